/**
 * Tool invocations are rate limited (the MCP spec's "rate limit tool invocations"): per client IP
 * without a token, per user with one, in fixed one-minute windows, with RateLimit headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, rpcRequest, tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:30Z');
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({
    atMs: AT,
    env: { MCP_RATE_LIMIT_PER_MINUTE: '3', MCP_USER_RATE_LIMIT_PER_MINUTE: '2' },
  });
  await stack.service.ingestNow();
});
afterAll(() => stack?.stop());

describe('tools/call limits', () => {
  it('anonymous: 3 calls a minute per IP, then 429 with Retry-After; listing is not counted', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const { response } = await callTool(stack, '2026-07-28', 'search_crossings', { query: 'laredo' });
      statuses.push(response.status);
      if (i === 0) {
        expect(response.headers.get('ratelimit-policy')).toBe('"mcp-ip";q=3;w=60');
        expect(response.headers.get('ratelimit')).toBe('"mcp-ip";r=2;t=30');
      }
      if (i === 3) {
        expect(response.headers.get('retry-after')).toBe('30');
        expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/Too many/);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const list = await fetch(stack.service.mcpUrl, rpcRequest('2025-11-25', 'tools/list'));
    expect(list.status).toBe(200);
    await list.body?.cancel();
  });

  it('signed in: counted per user, apart from the IP', async () => {
    const pro = await tokenFor(stack, 'pro');
    const business = await tokenFor(stack, 'business');
    const pros = [];
    for (let i = 0; i < 3; i += 1)
      pros.push((await callTool(stack, '2025-11-25', 'list_alerts', {}, pro)).status);
    expect(pros).toEqual([200, 200, 429]);
    expect((await callTool(stack, '2025-11-25', 'list_alerts', {}, business)).status).toBe(200);
  });

  it('a 429 answers with the JSON-RPC id of the request it refuses, each id of a batch', async () => {
    stack.clock.set(AT + 120_000);
    for (let i = 0; i < 3; i += 1)
      await (
        await fetch(
          stack.service.mcpUrl,
          rpcRequest(
            '2025-11-25',
            'tools/call',
            { name: 'search_crossings', arguments: {} },
            { id: 100 + i },
          ),
        )
      ).text();
    const single = await fetch(
      stack.service.mcpUrl,
      rpcRequest('2026-07-28', 'tools/call', { name: 'search_crossings', arguments: {} }, { id: 'call-7' }),
    );
    expect(single.status).toBe(429);
    expect(await single.json()).toMatchObject({ jsonrpc: '2.0', id: 'call-7', error: { code: -32000 } });
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'search_crossings', arguments: {} },
    });
    const batch = await fetch(stack.service.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify([call(41), call(42)]),
    });
    expect(batch.status).toBe(429);
    const answers = (await batch.json()) as { id: number; error: { code: number } }[];
    expect(answers.map((a) => a.id)).toEqual([41, 42]);
    expect(answers.every((a) => a.error.code === -32000)).toBe(true);
  });

  it('a new window starts over', async () => {
    stack.clock.set(AT + 180_000);
    expect((await callTool(stack, '2026-07-28', 'search_crossings', { query: 'laredo' })).status).toBe(200);
  });
});
