/**
 * The mcp function reads the published views through the edge, as any client does (its role reads
 * only `exports/*` of the data bucket): its answers are the documents the edge serves, its reads
 * carry the origin secret and so never count against the edge's per-IP limit (the WAF's rule in
 * AWS, whose scope-down statement leaves them out), and a view it cannot read there is the tools'
 * usual "store unavailable" answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, structured } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T20:10:05Z');

describe('views through the edge', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({
      atMs: AT,
      ports: ['250401'],
      env: { EDGE_RATE_LIMIT_PER_MINUTE: '10', MCP_RATE_LIMIT_PER_MINUTE: '1000' },
    });
    await stack.service.ingestNow();
  }, 60_000);
  afterAll(() => stack?.stop());

  it('answers from the document the edge serves, and its reads leave the edge limit untouched', async () => {
    const published = await stack.json<{ generatedAt: string; current: { portId: string }[] }>(
      '/v1/port-current/all.json',
    );
    expect(published.status).toBe(200);
    // Each call reads the port list and the current view at the edge: well over its limit of 10.
    for (let i = 0; i < 12; i += 1) {
      const call = await callTool(stack, '2025-11-25', 'get_current_waits', { port_id: '250401' });
      expect(call.body?.result?.isError, JSON.stringify(call.body)).toBeFalsy();
      const answer = structured<{ publishedAt: string; lanes: unknown[] }>(call);
      expect(answer.publishedAt).toBe(published.body.generatedAt);
      expect(answer.lanes.length).toBe(published.body.current.filter((c) => c.portId === '250401').length);
    }
    // This client's own allowance: the document read above, and now this one.
    const mine = await stack.get('/api/v1/ports');
    await mine.arrayBuffer();
    expect(mine.status).toBe(200);
    expect(mine.headers.get('ratelimit')).toMatch(/^"edge";r=8;/);
  });
});

describe('a CDN that fails', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // Nothing listens on port 9 of loopback: every view read fails.
    stack = await startStack({
      atMs: AT,
      ports: ['250401'],
      env: { MCP_DOCUMENTS_URL: 'http://127.0.0.1:9' },
    });
    await stack.service.ingestNow();
  }, 60_000);
  afterAll(() => stack?.stop());

  it("is the tools' store-unavailable answer, while the edge itself still serves the view", async () => {
    const call = await callTool(stack, '2025-11-25', 'get_current_waits', { port_id: '250401' });
    expect(call.status).toBe(200);
    expect(call.body?.result?.isError, JSON.stringify(call.body)).toBe(true);
    expect(JSON.stringify(call.body?.result?.content)).toContain('unavailable right now; try again');
    expect((await stack.get('/v1/port-current/all.json')).status).toBe(200);
  });
});
