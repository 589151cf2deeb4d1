/**
 * The authorization matrix of DESIGN.md section 5 against the local runtime and its development
 * IdP: real tokens from the login flow, and forged ones signed with the IdP's own key where a
 * claim must be wrong. Raw HTTP without initialize (a stateless server sees calls cold) in both
 * eras, and the SDK client's own OAuth flow (401, metadata, registration, PKCE, retry).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { importJWK, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browseAuthorization } from '../../infra/local/dev-idp-login.ts';
import { callTool, clientOptions, type Era, rpcBody, tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');
const WIRE_ERAS: Era[] = ['2025-11-25', '2026-07-28'];

let stack: TestStack;
let proToken: string;
let businessToken: string;

/** A token signed with the IdP's key (or `key`), with `claims` over the ones the IdP would set. */
async function forge(claims: JWTPayload, options: { key?: 'other'; alg?: 'none' } = {}): Promise<string> {
  const idp = stack.service.idp;
  if (!idp) throw new Error('no dev IdP');
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = {
    iss: idp.issuer,
    aud: stack.service.mcpUrl,
    sub: 'dev-user-pro',
    scope: 'alerts',
    tier: 'pro',
    client_id: 'dev-test-client',
    iat: now,
    exp: now + 600,
    jti: randomUUID(),
    ...claims,
  };
  const kid = String(idp.signingKey.kid);
  if (options.alg === 'none') {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${encode({ alg: 'none', typ: 'at+jwt', kid })}.${encode(payload)}.`;
  }
  const jwk =
    options.key === 'other'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' })
      : idp.signingKey;
  const key = await importJWK(jwk, 'RS256');
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(key);
}

beforeAll(async () => {
  stack = await startStack({ atMs: AT });
  await stack.service.ingestNow();
  proToken = await tokenFor(stack, 'pro');
  businessToken = await tokenFor(stack, 'business');
});
afterAll(() => stack?.stop());

describe('tokens from the development IdP', () => {
  it('each user gets only the scopes of their plan, and a tier claim', async () => {
    const decode = (token: string) =>
      JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(decode(proToken)).toMatchObject({ scope: 'alerts', tier: 'pro', aud: stack.service.mcpUrl });
    expect(decode(businessToken)).toMatchObject({ scope: 'alerts history', tier: 'business' });
    // Asking for more than the plan gives the plan.
    expect(decode(await tokenFor(stack, 'pro', 'alerts history')).scope).toBe('alerts');
  });
});

describe.each(WIRE_ERAS)('the authorization matrix in %s (no initialize)', (era) => {
  const metadataUrl = () => `${stack.service.url}/.well-known/oauth-protected-resource/mcp`;

  it('no token on a Pro tool: 401 with resource_metadata and scope, no error code', async () => {
    const { response } = await callTool(stack, era, 'create_alert', {});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl()}", scope="alerts"`,
    );
  });

  it('no token on a Business tool: 401 asking for history', async () => {
    const { response } = await callTool(stack, era, 'get_wait_history', { port_id: '250401' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('scope="history"');
  });

  it('no token on an anonymous tool: it runs', async () => {
    const { status, body } = await callTool(stack, era, 'search_crossings', { query: 'san ysidro' });
    expect(status).toBe(200);
    expect(body?.result?.isError).toBeFalsy();
  });

  const invalid: [string, () => Promise<string>][] = [
    [
      'expired',
      () => forge({ exp: Math.floor(Date.now() / 1000) - 120, iat: Math.floor(Date.now() / 1000) - 800 }),
    ],
    ['wrong audience', () => forge({ aud: 'https://other.example/mcp' })],
    ['wrong issuer', () => forge({ iss: 'https://evil.example' })],
    ['alg none', () => forge({}, { alg: 'none' })],
    ['bad signature', () => forge({}, { key: 'other' })],
    ['garbage', async () => 'not-a-jwt'],
  ];

  it.each(invalid)('%s token: 401 invalid_token', async (_name, make) => {
    const { response } = await callTool(stack, era, 'list_alerts', {}, await make());
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
  });

  it('an invalid token is refused on anonymous tools too (never a silent fall-back)', async () => {
    const { response } = await callTool(stack, era, 'search_crossings', {}, await forge({ aud: 'x' }));
    expect(response.status).toBe(401);
  });

  it('a forged token with every claim right verifies (so the cases above fail for their reason)', async () => {
    const { status, body } = await callTool(stack, era, 'list_alerts', {}, await forge({}));
    expect(status).toBe(200);
    expect(body?.result?.isError).toBeFalsy();
  });

  it('missing scope, plan includes it: 403 insufficient_scope asking for all the scopes needed', async () => {
    const narrow = await tokenFor(stack, 'business', 'alerts');
    const { response } = await callTool(stack, era, 'get_wait_history', { port_id: '250401' }, narrow);
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/error="insufficient_scope"/);
    expect(challenge).toContain('scope="alerts history"');
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
  });

  it('a Pro user calling a Business tool: isError with an upgrade message, not 403', async () => {
    const { status, body } = await callTool(
      stack,
      era,
      'export_observations',
      { port_ids: ['250401'] },
      proToken,
    );
    expect(status).toBe(200);
    expect(body?.result?.isError).toBe(true);
    expect(JSON.stringify(body?.result?.content)).toMatch(/Business plan.*Upgrade at https:\/\//);
  });

  it.each([
    ['no tier claim', { tier: undefined }],
    ['an unknown tier', { tier: 'platinum' }],
  ])(
    'a token with %s is refused on paid tools, whatever its scopes (isError, no 403 loop)',
    async (_name, claims) => {
      const token = await forge({ ...claims, scope: 'alerts history' });
      for (const [tool, args] of [
        ['list_alerts', {}],
        ['get_wait_history', { port_id: '250401', hours: 2 }],
      ] as const) {
        const { status, body } = await callTool(stack, era, tool, args, token);
        expect(status, tool).toBe(200);
        expect(body?.result?.isError, tool).toBe(true);
        expect(JSON.stringify(body?.result?.content)).toMatch(/plan/);
      }
      // Anonymous tools still answer with such a token.
      const open = await callTool(stack, era, 'search_crossings', { query: 'laredo' }, token);
      expect(open.body?.result?.isError).toBeFalsy();
    },
  );

  it('a Business user calls a Business tool', async () => {
    const { status, body } = await callTool(
      stack,
      era,
      'get_wait_history',
      { port_id: '250401', hours: 2 },
      businessToken,
    );
    expect(status).toBe(200);
    expect(body?.result?.isError).toBeFalsy();
    expect(body?.result?.structuredContent).toMatchObject({ portId: '250401', hours: 2 });
  });
});

/** Names `Object.prototype` has: a lookup that is not own-properties-only finds them. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

describe('names Object.prototype has', () => {
  it('a validly signed tier claim such as constructor or __proto__ is no plan: isError, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PROTOTYPE_NAMES),
        fc.constantFrom(...WIRE_ERAS),
        fc.constantFrom(
          ['list_alerts', {}] as const,
          ['get_wait_history', { port_id: '250401', hours: 2 }] as const,
        ),
        async (tier, era, [tool, args]) => {
          const token = await forge({ tier, scope: 'alerts history' });
          const { status, body } = await callTool(stack, era, tool, args, token);
          expect(status).toBe(200);
          expect(body?.result?.isError).toBe(true);
          expect(JSON.stringify(body?.result?.content)).toMatch(/plan/);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('a tool named after one is an unknown tool, not a protected one', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const { response, status } = await callTool(stack, '2026-07-28', name, {});
      expect(status, name).toBeLessThan(500);
      expect(response.headers.get('www-authenticate'), name).toBeNull();
    }
  });
});

describe('users are isolated', () => {
  it('one user can neither see nor delete another user’s alert', async () => {
    const created = await callTool(
      stack,
      '2026-07-28',
      'create_alert',
      { port_id: '250401', direction: 'into-us', threshold_minutes: 30 },
      proToken,
    );
    expect(created.body?.result?.isError).toBeFalsy();
    const id = String((created.body?.result?.structuredContent?.alert as { id?: string } | undefined)?.id);

    const theirs = await callTool(stack, '2025-11-25', 'list_alerts', {}, businessToken);
    expect(JSON.stringify(theirs.body?.result?.structuredContent)).not.toContain(id);

    const deleted = await callTool(stack, '2025-11-25', 'delete_alert', { alert_id: id }, businessToken);
    expect(deleted.status).toBe(200);
    expect(deleted.body?.result?.isError).toBe(true);
    expect(JSON.stringify(deleted.body?.result?.content)).toMatch(/no alert/);

    const mine = await callTool(stack, '2026-07-28', 'list_alerts', {}, proToken);
    expect(JSON.stringify(mine.body?.result?.structuredContent)).toContain(id);
    const own = await callTool(stack, '2026-07-28', 'delete_alert', { alert_id: id }, proToken);
    expect(own.body?.result?.structuredContent).toMatchObject({ deleted: id });
  });
});

/** An in-memory OAuth client whose "browser" signs in as `user` at the dev IdP's login page. */
class HeadlessProvider implements OAuthClientProvider {
  readonly user: string;
  callback: URLSearchParams | undefined;
  #client: unknown;
  #tokens: unknown;
  #verifier = '';
  #discovery: unknown;
  constructor(user: string) {
    this.user = user;
  }
  get redirectUrl() {
    return 'http://127.0.0.1:8976/oauth/callback';
  }
  get clientMetadata() {
    return {
      client_name: 'border-waits test',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.#client as never;
  }
  saveClientInformation(info: unknown) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens as never;
  }
  saveTokens(tokens: unknown) {
    this.#tokens = tokens;
  }
  discoveryState() {
    return this.#discovery as never;
  }
  saveDiscoveryState(state: unknown) {
    this.#discovery = state;
  }
  codeVerifier() {
    return this.#verifier;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.callback = (await browseAuthorization(url, this.user, this.redirectUrl)).searchParams;
  }
  invalidateCredentials(scope: string) {
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
  }
}

describe.each(['2025-11-25', '2026-07-28'] as Era[])('the SDK client signs in on a 401 (%s)', (era) => {
  it('discovers the IdP from the challenge, registers, signs in with PKCE and calls the Pro tool', async () => {
    const provider = new HeadlessProvider('pro');
    const transport = () =>
      new StreamableHTTPClientTransport(new URL(stack.service.mcpUrl), { authProvider: provider as never });
    const client = new Client({ name: 'oauth-test', version: '0.0.0' }, clientOptions(era));
    await client.connect(transport());
    await expect(client.callTool({ name: 'list_alerts', arguments: {} })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await client.close();
    expect(provider.callback?.get('code')).toBeTruthy();
    const finishing = transport();
    await finishing.finishAuth(provider.callback as URLSearchParams);
    const signedIn = new Client({ name: 'oauth-test', version: '0.0.0' }, clientOptions(era));
    await signedIn.connect(transport());
    const result = await signedIn.callTool({ name: 'list_alerts', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ count: expect.any(Number) });
    await signedIn.close();
  });
});

describe('the gate answers before the MCP layer', () => {
  it('a batch with a protected call needs its scope', async () => {
    const response = await fetch(stack.service.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_crossings', arguments: {} } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_wait_history', arguments: {} } },
      ]),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('scope="history"');
    await rpcBody(response).catch(() => undefined);
  });
});
