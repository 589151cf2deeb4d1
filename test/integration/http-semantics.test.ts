/**
 * HTTP as clients outside the project meet it, through the local edge and gateway (the same
 * CloudFront function and handlers AWS runs): methods a path does not take, CORS preflights,
 * the attribution link on every answer, conditional requests, HEAD against GET, byte ranges on
 * the data documents and bodies over the gateway's limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VIEWS } from '../../functions/core/api/api-views.ts';
import { KEY_REQUESTS_PATH, OPENAPI_PATH } from '../../functions/core/views/view-paths.ts';
import { issueKey } from './keys.ts';
import { startStack, type TestStack } from './stack.ts';

// A whole minute and 5 seconds: the second request below comes 40 seconds later, in the same minute.
const AT = Date.parse('2026-11-18T20:10:05Z');
const AUTHOR = '<https://border-waits.dev/>; rel="author"';
let stack: TestStack;
let key = '';

beforeAll(async () => {
  stack = await startStack({
    atMs: AT,
    ports: ['250401', '250601'],
    env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '100000', EDGE_RATE_LIMIT_PER_MINUTE: '100000' },
  });
  await stack.service.ingestNow();
  key = (await issueKey(stack)).key;
});
afterAll(() => stack?.stop());

const DATA_PATHS = [
  ...Object.values(API_VIEWS).map((view) =>
    view.query.shape && 'port_id' in view.query.shape ? `${view.path}?port_id=250401` : view.path,
  ),
  OPENAPI_PATH,
];

/** A problem+json answer; `instance`, where there is one, is the path asked, never with API Gateway's stage. */
async function problemOf(response: Response, status: number) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.headers.get('link')).toContain(AUTHOR);
  const body = (await response.json()) as { status: number; instance: string };
  expect(body.status).toBe(status);
  if (body.instance !== undefined) expect(body.instance).not.toMatch(/^\/prod\//);
  return body;
}

describe('methods', () => {
  it.each(DATA_PATHS)(
    '%s: any method but GET and HEAD is 405 problem+json with Allow: GET, HEAD',
    async (path) => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const headers of [{}, { 'x-api-key': key }] as Record<string, string>[]) {
          const response = await stack.get(path, {
            method,
            headers,
            body: method === 'DELETE' ? null : '{}',
          });
          expect(response.headers.get('allow'), `${method} ${path}`).toBe('GET, HEAD');
          const body = await problemOf(response, 405);
          expect(body.instance).toBe(path.split('?')[0]);
        }
      }
    },
  );

  it('the key-request path takes POST only: 405 with Allow: POST', async () => {
    const response = await stack.get(KEY_REQUESTS_PATH, { method: 'GET' });
    expect(response.headers.get('allow')).toBe('POST');
    await problemOf(response, 405);
  });

  it('an unknown API path is the API’s 404, naming the path without the stage', async () => {
    const body = await problemOf(
      await stack.get('/api/v1/no-such-view', { headers: { 'x-api-key': key } }),
      404,
    );
    expect(body.instance).toBe('/api/v1/no-such-view');
  });

  it('/mcp answers a method it does not take with 405 and Allow: POST', async () => {
    const response = await fetch(stack.service.mcpUrl, { method: 'PUT', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    await response.body?.cancel();
  });
});

describe('CORS for browser clients', () => {
  it.each([
    ['/api/v1/ports', 'GET', 'x-api-key, if-none-match', 'GET, HEAD'],
    [
      '/api/v1/wait-observations?port_id=250401',
      'GET',
      'x-api-key, if-none-match, if-modified-since',
      'GET, HEAD',
    ],
    [KEY_REQUESTS_PATH, 'POST', 'content-type', 'POST'],
    [
      '/mcp',
      'POST',
      'authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id',
      'POST',
    ],
  ])(
    'a preflight on %s is 204 with the methods and request headers it takes',
    async (path, method, asked, methods) => {
      const response = await stack.get(path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://dashboard.example',
          'access-control-request-method': method,
          'access-control-request-headers': asked,
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-methods')).toBe(methods);
      const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(', ');
      expect(allowed).toEqual(expect.arrayContaining(asked.split(', ')));
      expect(response.headers.get('link')).toContain(AUTHOR);
    },
  );

  it('answers expose the headers a client reads (validators, limits, the challenge)', async () => {
    const api = await stack.get('/api/v1/wait-observations?port_id=250401', {
      headers: { origin: 'https://a.example' },
    });
    await api.arrayBuffer();
    expect(api.headers.get('access-control-expose-headers')).toMatch(/ETag.*RateLimit.*Link/);
    const mcp = await fetch(stack.service.mcpUrl, {
      method: 'POST',
      headers: {
        origin: 'https://a.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_alerts', arguments: {} },
      }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('access-control-allow-origin')).toBe('*');
    expect(mcp.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
    expect(mcp.headers.get('www-authenticate')).toMatch(/^Bearer /);
    await mcp.body?.cancel();
  });

  it('an answer the HTTP API gives itself (a method without a route) carries CORS and the author link too', async () => {
    const response = await stack.get('/.well-known/oauth-protected-resource/mcp', {
      method: 'POST',
      headers: { origin: 'https://a.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not Found' });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
    expect(response.headers.get('link')).toContain(AUTHOR);
  });
});

describe('conditional requests', () => {
  it('wait-observations without a cursor has one ETag per minute of the same data, and answers 304', async () => {
    const first = await stack.get('/api/v1/wait-observations?port_id=250401');
    const body = (await first.json()) as { to: string };
    expect(body.to).toBe('2026-11-18T20:10:00.000Z');
    stack.clock.set(AT + 40_000);
    try {
      const again = await stack.get('/api/v1/wait-observations?port_id=250401');
      await again.arrayBuffer();
      expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
      const cached = await stack.get('/api/v1/wait-observations?port_id=250401', {
        headers: { 'if-none-match': String(first.headers.get('etag')) },
      });
      expect(cached.status).toBe(304);
    } finally {
      stack.clock.set(AT);
    }
  });

  it.each([
    ['a keyed answer', '/api/v1/ports', true],
    ['openapi.json', OPENAPI_PATH, false],
    ['a keyless view at the edge', '/api/v1/ports', false],
  ])('If-Modified-Since is honoured on %s', async (_name, path, keyed) => {
    const headers: Record<string, string> = keyed ? { 'x-api-key': key } : {};
    const first = await stack.get(path, { headers });
    await first.arrayBuffer();
    const lastModified = String(first.headers.get('last-modified'));
    const same = await stack.get(path, { headers: { ...headers, 'if-modified-since': lastModified } });
    expect(same.status).toBe(304);
    const older = new Date(Date.parse(lastModified) - 3_600_000).toUTCString();
    const changed = await stack.get(path, { headers: { ...headers, 'if-modified-since': older } });
    expect(changed.status).toBe(200);
    await changed.arrayBuffer();
  });

  it.each([
    ...DATA_PATHS.map((path) => [path, {}] as const),
    ...DATA_PATHS.map((path) => [path, { keyed: true }] as const),
    ['/api/v1/wait-observations?port_id=nowhere', {}] as const,
    ['/api/v1/ports?border=xx', {}] as const,
    ['/v1/port-current/all.json', {}] as const,
    ['/.well-known/oauth-protected-resource/mcp', {}] as const,
  ])('HEAD %s %j gives the same headers as GET', async (path, options) => {
    const headers: Record<string, string> = 'keyed' in options ? { 'x-api-key': key } : {};
    const get = await stack.get(path, { headers });
    const length = (await get.arrayBuffer()).byteLength;
    const head = await stack.get(path, { method: 'HEAD', headers });
    expect(head.status).toBe(get.status);
    const skip = new Set([
      'date',
      'x-amzn-requestid',
      'apigw-requestid',
      'ratelimit',
      'keep-alive',
      'connection',
    ]);
    const of = (response: Response) =>
      Object.fromEntries([...response.headers].filter(([name]) => !skip.has(name)));
    expect(of(head)).toEqual({ ...of(get), 'content-length': String(length) });
  });
});

describe('edge cases at the edge', () => {
  it('a malformed Range on a data document gets the whole document with 200, never a 206', async () => {
    const whole = await (await stack.get('/api/v1/ports')).text();
    for (const range of ['bytes=abc', 'bytes=9-2', 'bytes=0-1,4-6', 'lines=1-2']) {
      const response = await stack.get('/api/v1/ports', { headers: { range } });
      expect(response.status, range).toBe(200);
      expect(await response.text()).toBe(whole);
    }
    const part = await stack.get('/api/v1/ports', { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe(whole.slice(0, 10));
  });

  it('a Range past the end is 416 problem+json', async () => {
    const response = await stack.get('/v1/port-current/all.json', { headers: { range: 'bytes=99999999-' } });
    await problemOf(response, 416);
  });

  it.each([KEY_REQUESTS_PATH, '/mcp'])(
    'a body over the 6 MB limit on %s is 413 problem+json, not a 5xx',
    async (path) => {
      const response = await stack.get(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"use":"${'x'.repeat(7 * 1024 * 1024)}"}`,
      });
      const body = await problemOf(response, 413);
      // The gateway's own answer: no `instance`, since its path would carry the stage.
      expect(body).not.toHaveProperty('instance');
    },
  );
});
