/**
 * Signs a development user in at the dev IdP through the public protocol (authorization code +
 * PKCE over HTTP, the login form posted like a browser would), for `npm run token` and the tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { TEST_CLIENT_ID, TEST_REDIRECT_URI } from './dev-idp.ts';

/** Enough of a cookie jar for oidc-provider's path-scoped cookies. */
class CookieJar {
  #cookies = new Map<string, { name: string; value: string; path: string }>();
  store(lines: string[]): void {
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      let path = '/';
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', v = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = v;
        if (key.toLowerCase() === 'expires' && Date.parse(v) <= Date.now()) expired = true;
      }
      if (expired || value === '') this.#cookies.delete(`${name}|${path}`);
      else this.#cookies.set(`${name}|${path}`, { name, value, path });
    }
  }
  header(url: URL): string {
    const p = url.pathname;
    return [...this.#cookies.values()]
      .filter((c) => p === c.path || p.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

/** Follows redirects with cookies, posts the login form as `user`, stops at `redirectUri`. */
export async function browseAuthorization(authUrl: URL, user: string, redirectUri: string): Promise<URL> {
  const jar = new CookieJar();
  let url = new URL(authUrl);
  let init: RequestInit = { method: 'GET' };
  for (let hop = 0; hop < 12; hop += 1) {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), cookie: jar.header(url) },
    });
    jar.store(response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return next;
      url = next;
      init = { method: 'GET' };
      continue;
    }
    const html = await response.text();
    const action = response.status === 200 ? /<form[^>]*action="([^"]+)"/.exec(html)?.[1] : undefined;
    if (!action) throw new Error(`unexpected ${response.status} at ${url.pathname}: ${html.slice(0, 300)}`);
    url = new URL(action.replaceAll('&amp;', '&'), url);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login: user }).toString(),
    };
  }
  throw new Error('the IdP never redirected back to the client');
}

export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

/** Tokens for `user` (`pro` or `business`) for `resource`, via the pre-registered test client. */
export async function devLogin(options: {
  issuer: string;
  user: string;
  resource: string;
  scope?: string;
}): Promise<TokenSet> {
  const metaResponse = await fetch(new URL('/.well-known/oauth-authorization-server', options.issuer));
  const meta = (await metaResponse.json()) as {
    issuer: string;
    authorization_endpoint: string;
    token_endpoint: string;
  };
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const auth = new URL(meta.authorization_endpoint);
  auth.search = new URLSearchParams({
    response_type: 'code',
    client_id: TEST_CLIENT_ID,
    redirect_uri: TEST_REDIRECT_URI,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: options.resource,
    ...(options.scope ? { scope: options.scope } : {}),
  }).toString();
  const callback = (await browseAuthorization(auth, options.user, TEST_REDIRECT_URI)).searchParams;
  if (callback.get('error')) {
    throw new Error(
      `authorization error: ${callback.get('error')} ${callback.get('error_description') ?? ''}`,
    );
  }
  if (callback.get('state') !== state || callback.get('iss') !== meta.issuer)
    throw new Error('state or iss mismatch');
  const response = await fetch(meta.token_endpoint, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.get('code') ?? '',
      redirect_uri: TEST_REDIRECT_URI,
      code_verifier: verifier,
      client_id: TEST_CLIENT_ID,
      resource: options.resource,
    }),
  });
  const tokens = (await response.json()) as TokenSet;
  if (!response.ok) throw new Error(`token error ${response.status}: ${JSON.stringify(tokens)}`);
  return tokens;
}
