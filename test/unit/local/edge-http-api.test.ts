/**
 * The local edge in front of the HTTP API's paths (`/mcp`, the OAuth resource metadata): the
 * answers the HTTP API gives itself (its origin authorizer's 401 and 403, a throttle's 429, a
 * 413, a path without a route), which carry neither CORS nor the author link, gain the mcp
 * function's, as the distribution's headers policy adds them; the function's own values win. The
 * HTTP API is a stand-in answering as API Gateway does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_RESPONSE_HEADERS } from '../../../functions/mcp/response-headers.ts';
import { createEdge } from '../../../infra/local/edge.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** An edge whose HTTP API answers every request with `status`, `headers` and `body`. */
async function edgeBefore(status: number, headers: Record<string, string>, body: string): Promise<string> {
  const edge = createEdge({
    s3Endpoint: 'http://127.0.0.1:9',
    api: async () => undefined,
    http: async (_req, res) => {
      res.writeHead(status, headers);
      res.end(body);
    },
    log: () => undefined,
  });
  const server = createServer((req, res) => void edge(req, res));
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe("the HTTP API's own answers at the local edge", () => {
  it.each([
    [401, '{"message":"Unauthorized"}', '/mcp'],
    [403, '{"message":"Forbidden"}', '/mcp'],
    [429, '{"message":"Too Many Requests"}', '/mcp'],
    [413, '{"message":"Request Entity Too Large"}', '/mcp'],
    [404, '{"message":"Not Found"}', '/.well-known/oauth-protected-resource/mcp'],
  ])('a %i from the HTTP API itself carries the author link and CORS', async (status, body, path) => {
    const base = await edgeBefore(status, JSON_TYPE, body);
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { origin: 'https://assistant.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(status);
    expect(await response.text()).toBe(body);
    for (const [name, value] of Object.entries(MCP_RESPONSE_HEADERS))
      expect(response.headers.get(name), name).toBe(value);
  });

  it("keeps the function's own values of those headers", async () => {
    const own = {
      ...JSON_TYPE,
      link: '<https://example.org/>; rel="author"',
      'access-control-expose-headers': 'WWW-Authenticate',
    };
    const response = await fetch(`${await edgeBefore(200, own, '{}')}/mcp`, { method: 'POST', body: '{}' });
    await response.arrayBuffer();
    expect(response.headers.get('link')).toBe(own.link);
    expect(response.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('adds nothing of the kind to the REST API’s paths, which answer CORS and Link themselves', async () => {
    const edge = createEdge({
      s3Endpoint: 'http://127.0.0.1:9',
      api: async (_req, res) => {
        res.writeHead(403, JSON_TYPE);
        res.end('{}');
      },
      http: async () => undefined,
      log: () => undefined,
    });
    const server = createServer((req, res) => void edge(req, res));
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    const response = await fetch(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/wait-observations?port_id=1`,
    );
    await response.arrayBuffer();
    expect(response.headers.get('link')).toBeNull();
  });
});
