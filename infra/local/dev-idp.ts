/**
 * The development authorization server of the local runtime (oidc-provider 9), on its own loopback
 * port in the same process. Two users, `pro` and `business`, each granted only the scopes their
 * plan includes; RFC 9068 JWT access tokens with `aud` = the `/mcp` URL and a `tier` claim; open
 * dynamic client registration and authorization code + PKCE for real MCP clients. It has no
 * passwords: it must never run outside the local runtime. Production uses an external IdP.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { errors, type KoaContext, Provider } from 'oidc-provider';
import { SCOPES_SUPPORTED, TIERS, type Tier } from '../../functions/mcp/scopes.ts';

export interface DevUser {
  sub: string;
  email: string;
  tier: Tier;
  scopes: readonly string[];
}

export const DEV_USERS: Readonly<Record<Tier, DevUser>> = {
  pro: { sub: 'dev-user-pro', email: 'pro@dev.invalid', tier: 'pro', scopes: TIERS.pro },
  business: {
    sub: 'dev-user-business',
    email: 'business@dev.invalid',
    tier: 'business',
    scopes: TIERS.business,
  },
};
const BY_SUB = new Map(Object.values(DEV_USERS).map((user) => [user.sub, user]));

/** Pre-registered public client for tests and `npm run token`. */
export const TEST_CLIENT_ID = 'dev-test-client';
export const TEST_REDIRECT_URI = 'http://127.0.0.1/callback';

export interface DevIdp {
  issuer: string;
  jwksUri: string;
  /** The signing key (private JWK): tests forge tokens with it (wrong audience, wrong issuer ...). */
  signingKey: Record<string, unknown>;
  /** A token without the login flow (any scope, any lifetime): for expiry tests. */
  mintAccessToken(options: { user: Tier; scope: string; expiresIn?: number }): Promise<string>;
  close(): Promise<void>;
}

const isLoopbackOrigin = (origin: string) => {
  try {
    return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(origin).hostname);
  } catch {
    return false;
  }
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface Stored {
  payload: Record<string, unknown>;
  exp: number | undefined;
}

/** In-memory storage, with clients, grants, sessions and refresh tokens mirrored to a file (0600). */
function createAdapter(dir: string | undefined) {
  const persisted = ['Client', 'Grant', 'RefreshToken', 'Session'];
  const file = dir && join(dir, 'store.json');
  const initial: [string, [string, Stored][]][] =
    file && existsSync(file) ? Object.entries(JSON.parse(readFileSync(file, 'utf8'))) : [];
  const stores = new Map(initial.map(([model, entries]) => [model, new Map(entries)]));
  const of = (model: string) => {
    let store = stores.get(model);
    if (!store) {
      store = new Map();
      stores.set(model, store);
    }
    return store;
  };
  const save = (model: string) => {
    if (!file || !dir || !persisted.includes(model)) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(Object.fromEntries(persisted.map((m) => [m, [...of(m)]]))), {
      mode: 0o600,
    });
  };
  const live = (entry: Stored | undefined): entry is Stored =>
    entry !== undefined && (!entry.exp || entry.exp > Date.now());
  return class DevAdapter {
    model: string;
    store: Map<string, Stored>;
    constructor(model: string) {
      this.model = model;
      this.store = of(model);
    }
    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number) {
      for (const [key, entry] of this.store) if (!live(entry)) this.store.delete(key);
      this.store.set(id, { payload, exp: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
      save(this.model);
    }
    async find(id: string) {
      const entry = this.store.get(id);
      return live(entry) ? entry.payload : undefined;
    }
    async findByUid(uid: string) {
      for (const entry of this.store.values())
        if (live(entry) && entry.payload.uid === uid) return entry.payload;
      return undefined;
    }
    async findByUserCode(code: string) {
      for (const entry of this.store.values())
        if (live(entry) && entry.payload.userCode === code) return entry.payload;
      return undefined;
    }
    async consume(id: string) {
      const entry = this.store.get(id);
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
      save(this.model);
    }
    async destroy(id: string) {
      this.store.delete(id);
      save(this.model);
    }
    async revokeByGrantId(grantId: string) {
      for (const model of ['AccessToken', 'AuthorizationCode', 'RefreshToken']) {
        for (const [key, entry] of of(model)) if (entry.payload.grantId === grantId) of(model).delete(key);
        save(model);
      }
    }
  };
}

function loadOrCreateSecrets(dir: string | undefined): {
  signingKey: Record<string, unknown>;
  cookieKey: string;
} {
  const file = dir && join(dir, 'secrets.json');
  if (file && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const secrets = {
    signingKey: {
      ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
      kid: `dev-${randomBytes(6).toString('hex')}`,
      use: 'sig',
      alg: 'RS256',
    },
    cookieKey: randomBytes(32).toString('base64url'),
  };
  if (file && dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  }
  return secrets;
}

function loginPage(uid: string, error?: string): string {
  const buttons = Object.keys(DEV_USERS)
    .map((name) => `<button type="submit" name="login" value="${name}">Sign in as ${name}</button>`)
    .join(' ');
  return `<!doctype html><meta charset="utf-8"><title>Development sign-in</title><h1>Development IdP</h1>
<p>Local runtime only: each user gets the scopes of their plan (pro: alerts; business: alerts, history).</p>
${error ? `<p style="color:red">${escapeHtml(error)}</p>` : ''}<form method="post" action="/interaction/${encodeURIComponent(uid)}/login">${buttons}</form>`;
}

/** Starts the IdP on `host:port` (0: any free port) for the resource `resource` (the /mcp URL). */
export async function startDevIdp(options: {
  resource: string;
  port?: number;
  host?: string;
  persistDir?: string;
  accessTokenTtlSeconds?: number;
}): Promise<DevIdp> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer();
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => ready());
  });
  // The issuer must carry the real port, so bind first.
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const resourceScopes = [...SCOPES_SUPPORTED];
  const ttl = options.accessTokenTtlSeconds ?? 600;
  const { signingKey, cookieKey } = loadOrCreateSecrets(options.persistDir);
  const resourceServerInfo = {
    scope: resourceScopes.join(' '),
    audience: options.resource,
    accessTokenFormat: 'jwt',
    accessTokenTTL: ttl,
    jwt: { sign: { alg: 'RS256' } },
  };
  const provider = new Provider(issuer, {
    adapter: createAdapter(options.persistDir),
    jwks: { keys: [signingKey] },
    cookies: { keys: [cookieKey] },
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [TEST_REDIRECT_URI],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // Resource scopes listed here too, or MCP clients' registrations (which carry `scope`) fail.
    scopes: ['openid', 'offline_access', ...resourceScopes],
    async findAccount(_ctx: unknown, sub: string) {
      const user = BY_SUB.get(sub);
      return (
        user && {
          accountId: sub,
          async claims() {
            return { sub, email: user.email, email_verified: true };
          },
        }
      );
    },
    clientBasedCORS: (_ctx: unknown, origin: string) => isLoopbackOrigin(origin),
    async extraTokenClaims(_ctx: unknown, token: { accountId?: string }) {
      const user = token.accountId ? BY_SUB.get(token.accountId) : undefined;
      return user ? { tier: user.tier } : undefined;
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      // On by default in v9; the resource server accepts Bearer tokens only.
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        async defaultResource(_ctx: unknown, _client: unknown, oneOf?: string) {
          return oneOf ?? options.resource;
        },
        async useGrantedResource() {
          return true;
        },
        async getResourceServerInfo(_ctx: unknown, indicator: string) {
          if (indicator !== options.resource) throw new errors.InvalidTarget();
          return resourceServerInfo;
        },
      },
    },
    async issueRefreshToken(_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) {
      return client.grantTypeAllowed('refresh_token');
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      IdToken: 3600,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 86_400,
      Grant: 86_400,
      AuthorizationCode: 60,
    },
    async renderError(ctx: KoaContext, out: unknown) {
      ctx.type = 'html';
      ctx.body = `<pre>${escapeHtml(JSON.stringify(out, null, 2))}</pre>`;
    },
  });

  // oidc-provider sends no CORS headers on /reg; browser MCP clients register cross-origin.
  provider.use(async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (ctx.path === '/reg' && origin && isLoopbackOrigin(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.vary('Origin');
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'POST');
        ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'content-type');
        ctx.status = 204;
        return;
      }
    }
    await next();
  });
  // An authorization request without `scope` would end in access_denied: default to every resource
  // scope, which consent then narrows to the user's plan.
  provider.use(async (ctx, next) => {
    if (ctx.path === '/auth' && ctx.method === 'GET' && !ctx.query.scope) {
      ctx.query = { ...ctx.query, scope: resourceScopes.join(' ') };
    }
    await next();
  });
  provider.use(async (ctx, next) => {
    const match = /^\/interaction\/([^/]+)(\/login)?$/.exec(ctx.path);
    if (!match) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const { prompt, params, session, grantId } = details;
    if (ctx.method === 'POST' && match[2]) {
      let body = '';
      for await (const chunk of ctx.req) body += chunk;
      const login = new URLSearchParams(body).get('login') ?? '';
      const user = login in DEV_USERS ? DEV_USERS[login as Tier] : undefined;
      if (!user) {
        ctx.status = 400;
        ctx.type = 'html';
        ctx.body = loginPage(details.uid, 'unknown user');
        return;
      }
      await provider.interactionFinished(
        ctx.req,
        ctx.res,
        { login: { accountId: user.sub } },
        { mergeWithLastSubmission: false },
      );
      ctx.respond = false;
      return;
    }
    if (ctx.method === 'GET' && prompt.name === 'login') {
      ctx.type = 'html';
      ctx.set('cache-control', 'no-store');
      ctx.body = loginPage(details.uid);
      return;
    }
    if (ctx.method === 'GET' && prompt.name === 'consent' && session) {
      // Auto-consent, granting only what the user's plan includes and rejecting the rest.
      const user = BY_SUB.get(session.accountId);
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      if (!user || !grant) return ctx.throw(400, 'unknown account');
      const allowed = (scope: string) =>
        !resourceScopes.includes(scope as never) || user.scopes.includes(scope);
      const split = (list: string[]) => [list.filter(allowed), list.filter((s) => !allowed(s))] as const;
      const detail = prompt.details;
      if (detail.missingOIDCScope) {
        const [yes, no] = split(detail.missingOIDCScope);
        if (yes.length) grant.addOIDCScope(yes.join(' '));
        if (no.length) grant.rejectOIDCScope(no.join(' '));
      }
      if (detail.missingOIDCClaims) grant.addOIDCClaims(detail.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(detail.missingResourceScopes ?? {})) {
        const [yes, no] = split(scopes);
        if (yes.length) grant.addResourceScope(indicator, yes.join(' '));
        if (no.length) grant.rejectResourceScope(indicator, no.join(' '));
      }
      await provider.interactionFinished(
        ctx.req,
        ctx.res,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      );
      ctx.respond = false;
      return;
    }
    return ctx.throw(400, 'unexpected interaction request');
  });

  server.on('request', provider.callback());

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    signingKey,
    async mintAccessToken({ user, scope, expiresIn }) {
      const client = await provider.Client.find(TEST_CLIENT_ID);
      const token = new provider.AccessToken({
        accountId: DEV_USERS[user].sub,
        client,
        scope,
        gty: 'authorization_code',
        ...(expiresIn ? { expiresIn } : {}),
      });
      token.resourceServer = new provider.ResourceServer(options.resource, resourceServerInfo);
      return token.save();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
