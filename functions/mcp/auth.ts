/**
 * The OAuth 2.0 resource server in front of the MCP layer (DESIGN.md section 5). The SDK never
 * answers "this tool needs sign-in" with a 401 by itself, so the gate peeks at the JSON-RPC body:
 * a protected `tools/call` without a token is 401 with the challenge, an invalid token is 401
 * `invalid_token` (on every request: never a silent fall-back to anonymous), a token whose user is
 * entitled to the tier but lacks the scope is 403 `insufficient_scope` (step-up). A user whose plan
 * lacks the tier passes, and the tool answers `isError` with an upgrade message.
 */
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from 'jose';
import { TOOLS } from './registry.ts';
import { knownTier, planIncludes, SCOPES_SUPPORTED, type Scope } from './scopes.ts';

export {
  planIncludes,
  SCOPES,
  SCOPES_SUPPORTED,
  type Scope,
  TIER_OF_SCOPE,
  TIERS,
  type Tier,
  tierOf,
} from './scopes.ts';

/**
 * The scope each protected tool needs, from the tools' own definitions; tools not listed are
 * anonymous. A null-prototype object: a tool name a client sends (`constructor`, `__proto__`) finds
 * only the tools' own entries, never what `Object.prototype` has.
 */
export const TOOL_SCOPES: Readonly<Record<string, Scope>> = Object.assign(
  Object.create(null) as Record<string, Scope>,
  Object.fromEntries(TOOLS.flatMap((tool) => (tool.scope ? [[tool.name, tool.scope]] : []))),
);

export interface AuthSettings {
  /** This endpoint's public URL (`https://host/mcp`): the RFC 8707 resource. */
  resourceUrl: string;
  /** Where the Protected Resource Metadata is served (path-inserted RFC 9728 URL). */
  resourceMetadataUrl: string;
  issuer: string;
  audience: string;
  /** Unset: discovered from the issuer's RFC 8414 / OIDC metadata on first use. */
  jwksUrl?: string | undefined;
  tierClaim: string;
}

/** `https://host/mcp` -> `https://host/.well-known/oauth-protected-resource/mcp`. */
export function resourceMetadataUrlOf(resourceUrl: string): string {
  const url = new URL(resourceUrl);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname === '/' ? '' : url.pathname}`;
}

/** The RFC 9728 document. */
export function protectedResourceMetadata(settings: AuthSettings) {
  return {
    resource: settings.resourceUrl,
    authorization_servers: [settings.issuer],
    scopes_supported: [...SCOPES_SUPPORTED],
    bearer_methods_supported: ['header'],
    resource_name: 'Border wait times (MCP)',
    resource_documentation: new URL('/docs/', settings.resourceUrl).href,
  };
}

async function discoverJwksUrl(issuer: string): Promise<string> {
  const base = issuer.replace(/\/$/, '');
  const issuerUrl = new URL(issuer);
  const candidates = [
    `${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerUrl.pathname === '/' ? '' : issuerUrl.pathname}`,
    `${base}/.well-known/openid-configuration`,
  ];
  for (const candidate of candidates) {
    const response = await fetch(candidate, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    if (!response?.ok) continue;
    const meta = (await response.json()) as { issuer?: string; jwks_uri?: string };
    if (meta.issuer === issuer && meta.jwks_uri) return meta.jwks_uri;
  }
  throw new OAuthError(OAuthErrorCode.ServerError, 'authorization server metadata unavailable');
}

/**
 * jose against the issuer's JWKS, created once per cold start: the key set is cached (jose keeps
 * it up to 10 minutes and refetches on an unknown `kid` at most every 30 seconds).
 */
export function createJwtVerifier(settings: AuthSettings): OAuthTokenVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keySet = () => {
    keys ??= (async () =>
      createRemoteJWKSet(new URL(settings.jwksUrl ?? (await discoverJwksUrl(settings.issuer)))))();
    keys.catch(() => {
      keys = undefined;
    });
    return keys;
  };
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const jwks = await keySet();
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: settings.issuer,
          audience: settings.audience,
          algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
          requiredClaims: ['exp', 'sub'],
        });
        const scope = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
        const scp = Array.isArray(payload.scp) ? payload.scp.map(String) : [];
        const tier = payload[settings.tierClaim];
        return {
          token,
          clientId: String(payload.client_id ?? payload.azp ?? payload.sub),
          scopes: [...new Set([...scope, ...scp].filter(Boolean))],
          expiresAt: payload.exp,
          resource: new URL(settings.resourceUrl),
          extra: { sub: payload.sub, tier: knownTier(tier) },
        };
      } catch (error: unknown) {
        if (error instanceof joseErrors.JOSEError && !(error instanceof joseErrors.JWKSTimeout)) {
          throw new OAuthError(OAuthErrorCode.InvalidToken, error.code);
        }
        throw new OAuthError(OAuthErrorCode.ServerError, 'token verification unavailable');
      }
    },
  };
}

/** The scopes the `tools/call` messages of a body need (a batch may hold several). */
export function requiredScopesFor(body: unknown): Scope[] {
  const out = new Set<Scope>();
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!message || typeof message !== 'object') continue;
    const m = message as { method?: unknown; params?: { name?: unknown } };
    if (m.method !== 'tools/call') continue;
    const scope = TOOL_SCOPES[String(m.params?.name)];
    if (scope) out.add(scope);
  }
  return [...out];
}

/** The gate: a ready challenge `Response`, or the request's `authInfo` (undefined: anonymous). */
export async function authGate(
  request: Request,
  body: unknown,
  verifier: OAuthTokenVerifier,
  settings: AuthSettings,
): Promise<Response | { authInfo: AuthInfo | undefined }> {
  const required = requiredScopesFor(body);
  const header = request.headers.get('authorization');
  const resourceMetadataUrl = settings.resourceMetadataUrl;
  if (!header) {
    if (required.length === 0) return { authInfo: undefined };
    // RFC 6750 section 3.1: a request without credentials gets no error code.
    return Response.json(
      { error: 'unauthorized', error_description: 'This tool requires sign-in' },
      {
        status: 401,
        headers: {
          'WWW-Authenticate': `Bearer resource_metadata="${resourceMetadataUrl}", scope="${required.join(' ')}"`,
        },
      },
    );
  }
  let authInfo: AuthInfo;
  try {
    authInfo = await verifyBearerToken(header, {
      verifier,
      expectedResource: new URL(settings.resourceUrl),
      resourceMetadataUrl,
    });
  } catch (error: unknown) {
    return bearerAuthChallengeResponse(error, { requiredScopes: required, resourceMetadataUrl });
  }
  // Step-up only where signing in again can help: the plan includes the scope, the token lacks it.
  const stepUp = required.filter(
    (scope) => !authInfo.scopes.includes(scope) && planIncludes(authInfo, scope),
  );
  if (stepUp.length > 0) {
    const wanted = [
      ...new Set([...authInfo.scopes.filter((s) => SCOPES_SUPPORTED.includes(s as Scope)), ...required]),
    ];
    return bearerAuthChallengeResponse(
      new OAuthError(OAuthErrorCode.InsufficientScope, 'Insufficient scope'),
      {
        requiredScopes: wanted,
        resourceMetadataUrl,
      },
    );
  }
  return { authInfo };
}
