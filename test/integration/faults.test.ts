import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../infra/local/simulator/server.ts';
import { withContract } from './contract.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');

interface Health {
  sources: {
    source: string;
    lastError: { message: string } | null;
    lastSuccessAt: string | null;
    consecutiveFailures: number;
  }[];
}

async function snapshot(stack: TestStack) {
  const current = await stack.get('/api/v1/port-current?include=ports');
  const observations = await stack.json<{ count: number }>(
    '/api/v1/wait-observations?port_id=250401&hours=336',
  );
  const ca = await stack.json<{ count: number }>('/api/v1/wait-observations?port_id=090101&hours=336');
  return { current: await current.text(), observations: observations.body.count, ca: ca.body.count };
}

const FAULTS: [string, Fault, RegExp][] = [
  ['a 500 answer', { kind: 'status', status: 500 }, /HTTP 500/],
  ['a feed hanging past the timeout', { kind: 'hang' }, /timed out/],
  ['a truncated document', { kind: 'truncated' }, /./],
  ['an empty body', { kind: 'empty' }, /./],
  ['a 5-port document after a full one', { kind: 'few-ports', ports: 5 }, /refused: 5 ports/],
  ['a wrong content type', { kind: 'content-type', contentType: 'text/html' }, /content type/],
  ['an oversized body', { kind: 'oversized', bytes: 20_000_000 }, /cap/],
  ['a dropped connection', { kind: 'down' }, /unreachable|closed|socket|terminated/i],
];

describe('a failing feed never erases good data', () => {
  let stack: TestStack;
  let good: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    stack = await withContract(await startStack({ atMs: AT }));
    await stack.service.ingestNow();
    good = await snapshot(stack);
    expect(good.observations).toBeGreaterThan(0);
    expect(good.ca).toBeGreaterThan(0);
  });
  afterAll(() => stack?.stop());

  it.each(FAULTS)('keeps serving the last good data after %s', async (_name, fault, message) => {
    stack.simulator.setFault('cbp', fault);
    try {
      const outcomes = await stack.service.ingestNow();
      const cbp = outcomes.find((o) => o.source === 'cbp');
      expect(cbp?.outcome).toMatch(/failed|refused/);
      expect(cbp?.error).toMatch(message);
      // The other source is independent.
      expect(outcomes.find((o) => o.source === 'cbsa')?.outcome).toMatch(/stored|unchanged/);
    } finally {
      stack.simulator.setFault('cbp', null);
    }
    const after = await snapshot(stack);
    const before = JSON.parse(good.current) as { ports: { id: string; current: { lanes: unknown[] } }[] };
    const now = JSON.parse(after.current) as typeof before;
    // Same ports and lanes (only freshness and generatedAt may move on).
    expect(now.ports.map((p) => [p.id, p.current.lanes.length])).toEqual(
      before.ports.map((p) => [p.id, p.current.lanes.length]),
    );
    expect(after.observations).toBe(good.observations);
    expect(after.ca).toBe(good.ca);
    const health = await stack.json<Health>('/v1/feed-health.json');
    const cbpHealth = health.body.sources.find((s) => s.source === 'cbp');
    expect(cbpHealth?.lastError?.message).toMatch(message);
    expect(cbpHealth?.consecutiveFailures).toBeGreaterThan(0);
    expect(cbpHealth?.lastSuccessAt).toBeTruthy();
  });

  it('recovers on the next good document and clears the error', async () => {
    stack.clock.set(AT + 3_600_000);
    const outcomes = await stack.service.ingestNow();
    expect(outcomes.find((o) => o.source === 'cbp')?.outcome).toBe('stored');
    const health = await stack.json<Health>('/v1/feed-health.json');
    expect(health.body.sources.find((s) => s.source === 'cbp')?.lastError).toBeNull();
    expect((await snapshot(stack)).observations).toBeGreaterThan(good.observations);
  });
});

describe('restart', () => {
  it('serves the same data after a stop and start with the same DATA_DIR', async () => {
    const stack = await withContract(await startStack({ atMs: AT }));
    try {
      await stack.service.ingestNow();
      const before = await snapshot(stack);
      const ports = await stack.get('/api/v1/ports');
      const etag = ports.headers.get('etag');
      await stack.restart();
      const after = await snapshot(stack);
      expect(after).toEqual(before);
      const again = await stack.get('/api/v1/ports', { headers: { 'if-none-match': etag ?? '' } });
      expect(again.status).toBe(304);
    } finally {
      await stack.stop();
    }
  });
});
