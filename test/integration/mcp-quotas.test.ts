/**
 * Every message counts: a JSON-RPC batch is counted once per message against the tool-call limit,
 * and the alert cap (25 per user) holds however the creates arrive, in one batch or concurrently.
 * An unreachable counter store does not take the tools down (fail open, as the API).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ALERTS_PER_OWNER } from '../../functions/core/alerts/alerts.ts';
import { callTool, structured, tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:30Z');

/** A batch of `count` tools/call messages of one tool, as an older-protocol client sends it. */
function batch(stack: TestStack, count: number, name: string, args: Record<string, unknown>, token?: string) {
  return fetch(stack.service.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(
      Array.from({ length: count }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name, arguments: args },
      })),
    ),
  });
}

const ALERT = { port_id: '250401', direction: 'into-us', threshold_minutes: 20 };
type Answer = { id: number; result?: { isError?: boolean; content?: { text: string }[] } };

describe('batches and the alert cap', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({
      atMs: AT,
      env: { MCP_RATE_LIMIT_PER_MINUTE: '100', MCP_USER_RATE_LIMIT_PER_MINUTE: '100' },
    });
    await stack.service.ingestNow();
  });
  afterAll(() => stack?.stop());

  it('counts a 60-message batch 60 times', async () => {
    const first = await batch(stack, 60, 'search_crossings', { query: 'laredo' });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toBe('"mcp-ip";r=40;t=30');
    const answers = (await first.json()) as Answer[];
    expect(answers).toHaveLength(60);
    // 60 more do not fit in what is left: the whole batch is refused, and says why.
    const second = await batch(stack, 60, 'search_crossings', { query: 'laredo' });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('30');
    // One error per request of the batch, each with its request's id.
    const refusals = (await second.json()) as { id: unknown; error: { message: string } }[];
    expect(refusals).toHaveLength(60);
    expect(new Set(refusals.map((r) => r.id)).size).toBe(60);
    expect(refusals[0]?.error.message).toMatch(/this batch counts 60/);
    expect(second.headers.get('ratelimit')).toBe('"mcp-ip";r=0;t=30');
  });

  it('a 60-message create_alert batch stores no more than the cap', async () => {
    stack.clock.set(AT + 60_000);
    const pro = await tokenFor(stack, 'pro');
    const response = await batch(stack, 60, 'create_alert', ALERT, pro);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as Answer[];
    const created = answers.filter((a) => a.result && !a.result.isError);
    const refused = answers.filter((a) => a.result?.isError);
    expect(created).toHaveLength(MAX_ALERTS_PER_OWNER);
    expect(refused).toHaveLength(60 - MAX_ALERTS_PER_OWNER);
    expect(refused[0]?.result?.content?.[0]?.text).toMatch(/the most allowed/);
    const listed = structured<{ alerts: unknown[] }>(
      await callTool(stack, '2025-06-18', 'list_alerts', {}, pro),
    );
    expect(listed.alerts).toHaveLength(MAX_ALERTS_PER_OWNER);
  });

  it('the cap holds under 50 concurrent creates, and a deleted alert frees its slot', async () => {
    stack.clock.set(AT + 120_000);
    const business = await tokenFor(stack, 'business');
    const calls = await Promise.all(
      Array.from({ length: 50 }, () => callTool(stack, '2025-11-25', 'create_alert', ALERT, business)),
    );
    expect(calls.map((c) => c.status).every((s) => s === 200)).toBe(true);
    const created = calls.filter((c) => !c.body?.result?.isError);
    expect(created).toHaveLength(MAX_ALERTS_PER_OWNER);
    const listed = structured<{ alerts: { id: string }[] }>(
      await callTool(stack, '2025-11-25', 'list_alerts', {}, business),
    );
    expect(listed.alerts).toHaveLength(MAX_ALERTS_PER_OWNER);

    const full = await callTool(stack, '2025-11-25', 'create_alert', ALERT, business);
    expect(full.body?.result?.isError).toBe(true);
    const [first] = listed.alerts;
    const deleted = await callTool(stack, '2025-11-25', 'delete_alert', { alert_id: first?.id }, business);
    expect(deleted.body?.result?.isError).toBeFalsy();
    const again = await callTool(stack, '2025-11-25', 'create_alert', ALERT, business);
    expect(again.body?.result?.isError).toBeFalsy();
    const after = await callTool(stack, '2025-11-25', 'create_alert', ALERT, business);
    expect(after.body?.result?.isError).toBe(true);
  });
});

describe('when the counters cannot be reached', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // The mcp function is pointed at a counter table that does not exist: every UpdateItem fails.
    stack = await startStack({ atMs: AT, env: { TABLE_LIMITS: 'no-such-limits' } });
    await stack.service.ingestNow();
  });
  afterAll(() => stack?.stop());

  it('tool calls still answer, with the policy and no RateLimit field (fail open)', async () => {
    for (const era of ['2025-11-25', '2026-07-28'] as const) {
      const { response, body } = await callTool(stack, era, 'search_crossings', { query: 'laredo' });
      expect(response.status).toBe(200);
      expect(body?.result?.isError).toBeFalsy();
      expect(response.headers.get('ratelimit-policy')).toBe('"mcp-ip";q=120;w=60');
      expect(response.headers.get('ratelimit')).toBeNull();
    }
    expect(stack.logs.join('\n')).not.toMatch(/http api: mcp failed/);
  });
});
