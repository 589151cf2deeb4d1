/**
 * The /mcp endpoint of the local runtime, through the SDK's own client over HTTP in both protocol
 * eras, and raw HTTP for the transport rules (POST only, Origin, body size, metadata).
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeResult } from '../../infra/local/gateway.ts';
import { callTool, connectClient, ERAS, rpcBody, rpcRequest } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');
const TOOLS = [
  'search_crossings',
  'get_current_waits',
  'compare_crossings',
  'best_time_to_cross',
  'create_alert',
  'list_alerts',
  'delete_alert',
  'get_wait_history',
  'export_observations',
];

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ atMs: AT });
  await stack.service.ingestNow();
  stack.clock.set(AT + 10 * 60_000);
  await stack.service.ingestNow();
});
afterAll(() => stack?.stop());

describe.each(ERAS)('the SDK client in %s', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectClient(stack, era);
  });
  afterAll(() => client?.close());

  it('negotiates the era', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
  });

  it('lists the nine tools, each with a title, an object output schema and annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description, tool.name).toMatch(/minutes|Anonymous|Requires|catalogue/);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
    }
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly).not.toContain('create_alert');
    expect(readOnly).not.toContain('delete_alert');
    expect(readOnly).toContain('get_current_waits');
    expect(tools.find((t) => t.name === 'delete_alert')?.annotations?.destructiveHint).toBe(true);
  });

  it('search_crossings finds a crossing by its twin city and near a point', async () => {
    const byTwin = await client.callTool({ name: 'search_crossings', arguments: { query: 'tijuana' } });
    expect(byTwin.isError).toBeFalsy();
    const found = (byTwin.structuredContent as { crossings: { id: string }[] }).crossings.map((c) => c.id);
    expect(found).toContain('250401');
    const near = await client.callTool({
      name: 'search_crossings',
      arguments: { near: { lat: 32.54, lon: -117.03, radius_km: 30 } },
    });
    const crossings = (near.structuredContent as { crossings: { distanceKm: number; border: string }[] })
      .crossings;
    expect(crossings.length).toBeGreaterThan(0);
    expect(crossings.every((c) => c.border === 'mx' && c.distanceKm <= 30)).toBe(true);
    expect(crossings.map((c) => c.distanceKm)).toEqual(
      [...crossings.map((c) => c.distanceKm)].sort((a, b) => a - b),
    );
  });

  it('get_current_waits gives lanes with observedAt, age, freshness and source', async () => {
    const result = await client.callTool({
      name: 'get_current_waits',
      arguments: { port_id: 'san-ysidro', mode: 'passenger' },
    });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as {
      portId: string;
      generatedAt: string;
      lanes: {
        mode: string;
        observedAt: string | null;
        freshness: string;
        source: string;
        ageMinutes: number;
      }[];
    };
    expect(body.portId).toBe('250401');
    expect(body.generatedAt).toBe(new Date(AT + 10 * 60_000).toISOString());
    expect(body.lanes.length).toBeGreaterThan(0);
    for (const lane of body.lanes) {
      expect(lane.mode).toBe('passenger');
      expect(lane.source).toBe('cbp');
      expect(['fresh', 'stale', 'expired']).toContain(lane.freshness);
    }
    expect(result.content?.[0]).toMatchObject({ type: 'text' });
  });

  it('get_current_waits answers an unknown port with an actionable isError', async () => {
    const result = await client.callTool({ name: 'get_current_waits', arguments: { port_id: 'atlantis' } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toMatch(
      /Unknown port "atlantis".*search_crossings/,
    );
  });

  it('rejects a bad argument with isError, not a protocol error', async () => {
    const result = await client.callTool({
      name: 'compare_crossings',
      arguments: { direction: 'into-mexico', port_ids: ['250401', '250601'] },
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/direction/);
  });

  it('compare_crossings ranks by the shortest usable wait', async () => {
    const result = await client.callTool({
      name: 'compare_crossings',
      arguments: {
        direction: 'into-us',
        mode: 'passenger',
        lanes: ['standard', 'sentri'],
        border: 'mx',
        limit: 30,
      },
    });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as {
      ranked: { rank: number; delayMinutes: number; freshness: string; lane: string }[];
      excluded: { reason: string }[];
    };
    expect(body.ranked.length).toBeGreaterThan(1);
    const delays = body.ranked.map((r) => r.delayMinutes);
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
    expect(body.ranked.every((r) => r.freshness === 'fresh' && ['standard', 'sentri'].includes(r.lane))).toBe(
      true,
    );
    expect(body.ranked[0]?.rank).toBe(1);
  });

  it('best_time_to_cross answers from the hourly averages in the port time zone', async () => {
    const result = await client.callTool({
      name: 'best_time_to_cross',
      arguments: { port_id: '250401', direction: 'into-us', min_samples: 1 },
    });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as {
      timeZone: string;
      best: { hour: number; samples: number; averageDelayMinutes: number }[];
    };
    expect(body.timeZone).toBe('America/Los_Angeles');
    expect(body.best.length).toBeGreaterThan(0);
    expect(body.best[0]?.samples).toBeGreaterThanOrEqual(1);
  });

  it('lets an anonymous caller call an anonymous tool without a token', async () => {
    const result = await client.callTool({
      name: 'search_crossings',
      arguments: { state: 'WA', border: 'ca' },
    });
    expect((result.structuredContent as { count: number }).count).toBeGreaterThan(0);
  });
});

describe('tool definitions', () => {
  it('match the reviewed snapshot (a change to a name, schema or description is deliberate)', async () => {
    const client = await connectClient(stack, '2025-11-25');
    try {
      const { tools } = await client.listTools();
      await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(
        '../fixtures/mcp/tools.snapshot.json',
      );
    } finally {
      await client.close();
    }
  });
});

describe('raw HTTP, no initialize (stateless)', () => {
  it.each(ERAS)('%s: tools/call works without a handshake', async (era) => {
    const { status, body } = await callTool(stack, era, 'get_current_waits', { port_id: '250401' });
    expect(status).toBe(200);
    expect(body?.result?.structuredContent?.portId).toBe('250401');
  });

  it('modern answers are plain JSON with resultType and server info', async () => {
    const response = await fetch(stack.service.mcpUrl, rpcRequest('2026-07-28', 'tools/list'));
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const body = await rpcBody(response);
    expect(body.result?.resultType).toBe('complete');
    expect(body.result?.ttlMs).toBe(600_000);
  });

  it('legacy answers are plain JSON too and never mint a session', async () => {
    const response = await fetch(stack.service.mcpUrl, rpcRequest('2025-11-25', 'tools/list'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });

  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])('%s /mcp is 405 with Allow: POST', async (method) => {
    const response = await fetch(stack.service.mcpUrl, { method, headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    await response.body?.cancel();
  });

  it('accepts a call from any web origin (bearer tokens, no cookies) and lets the page read its headers', async () => {
    for (const origin of ['https://evil.example', 'https://assistant.example', stack.service.url]) {
      const response = await fetch(
        stack.service.mcpUrl,
        rpcRequest('2025-11-25', 'tools/list', {}, { headers: { origin } }),
      );
      expect(response.status, origin).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toMatch(
        /WWW-Authenticate.*Mcp-Session-Id/,
      );
      await response.body?.cancel();
    }
  });

  it('refuses a foreign Host (DNS rebinding) with 403', async () => {
    const url = new URL(stack.service.mcpUrl);
    const init = rpcRequest('2025-11-25', 'tools/list');
    const status = await new Promise<number>((done, fail) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/mcp',
          method: 'POST',
          headers: { ...(init.headers as Record<string, string>), host: 'evil.example.com' },
        },
        (res) => {
          res.resume();
          done(res.statusCode ?? 0);
        },
      );
      req.on('error', fail);
      req.end(init.body as string);
    });
    expect(status).toBe(403);
  });

  it('refuses a body over the size cap with 413', async () => {
    const init = rpcRequest('2025-11-25', 'tools/call', {
      name: 'search_crossings',
      arguments: { query: 'x'.repeat(300 * 1024) },
    });
    const response = await fetch(stack.service.mcpUrl, init);
    expect(response.status).toBe(413);
    await response.body?.cancel();
  });

  it('answers a malformed body with a JSON-RPC parse error', async () => {
    const response = await fetch(stack.service.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    expect((await rpcBody(response)).error?.code).toBe(-32700);
  });
});

describe('Protected Resource Metadata and the challenge', () => {
  it.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])(
    '%s describes the resource and its issuer',
    async (path) => {
      const { status, body } = await stack.json<Record<string, unknown>>(path);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        resource: stack.service.mcpUrl,
        authorization_servers: [stack.service.issuer],
        scopes_supported: ['alerts', 'history'],
        bearer_methods_supported: ['header'],
      });
    },
  );

  it('the 401 challenge reaches the client as WWW-Authenticate (served by the HTTP API)', async () => {
    const { response } = await callTool(stack, '2025-11-25', 'create_alert', {});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${stack.service.url}/.well-known/oauth-protected-resource/mcp", scope="alerts"`,
    );
    expect(response.headers.get('x-amzn-remapped-www-authenticate')).toBeNull();
  });

  it('the REST gateway would have renamed it, which is why /mcp does not go through it', async () => {
    const server = createServer((_req, res) =>
      writeResult(
        res,
        { statusCode: 401, headers: { 'WWW-Authenticate': 'Bearer resource_metadata="x"' }, body: '' },
        'POST',
      ),
    );
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(response.headers.get('x-amzn-remapped-www-authenticate')).toBe('Bearer resource_metadata="x"');
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
});
