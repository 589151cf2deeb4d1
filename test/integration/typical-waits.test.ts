/**
 * CBP's typical waits on the local runtime: the forecast function fetches the simulator's hourly
 * graphs (daily and at the first start), publishes one document per port on the CDN and through the
 * keyed API, and keeps the last good values when the graphs fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPort } from '../../functions/core/catalogue/catalogue.ts';
import { GRAPH_CONCURRENCY, type TypicalWaitsBody } from '../../functions/core/typical/typical-waits.ts';
import { withContract } from './contract.ts';
import { issueKey } from './keys.ts';
import { startStack, type TestStack } from './stack.ts';

// Wednesday 2026-03-11, 15:07 UTC; a small world keeps the graph count readable.
const AT = Date.parse('2026-03-11T15:07:00Z');
const PORTS = ['250401', '300401', '090101', 'cbsa-north-portal'];
const CBP_PORTS_WITH_GRAPH = PORTS.filter((id) => getPort(id)?.bwtId);

describe('port-typical-waits on the local runtime', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await withContract(await startStack({ atMs: AT, ports: PORTS }));
    await stack.service.ingestNow();
  });
  afterAll(() => stack?.stop());

  const typical = (port: string, init?: RequestInit) =>
    stack.json<TypicalWaitsBody>(`/api/v1/port-typical-waits?port_id=${port}`, init);

  it('answers typical: [] for every listed port before the first fetch', async () => {
    for (const port of PORTS) {
      const { status, body } = await typical(port);
      expect(status).toBe(200);
      expect(body).toMatchObject({ portId: port, source: 'cbp', fetchedAt: null, typical: [] });
    }
  });

  it('fetches 7 dates of every CBP port with a graph id at the first forecast run, a few at a time', async () => {
    expect((await stack.service.forecastNow()).skipped).toBe(false);
    expect(stack.simulator.graphRequests()).toBe(7 * CBP_PORTS_WITH_GRAPH.length);
    expect(GRAPH_CONCURRENCY).toBeLessThanOrEqual(4);
    const { status, body } = await typical('san-ysidro');
    expect(status).toBe(200);
    expect(body.portId).toBe('250401');
    expect(body.source).toBe('cbp');
    expect(body.fetchedAt).toBe(new Date(AT).toISOString());
    // Every weekday and hour of each lane the simulated port has, CBP's range around the average.
    const lanes = new Set(body.typical.map((t) => `${t.mode}/${t.lane}`));
    expect(lanes).toContain('passenger/standard');
    expect(lanes).toContain('passenger/sentri');
    expect(body.typical.length).toBe(lanes.size * 7 * 24);
    for (const t of body.typical) {
      expect(t.direction).toBe('into-us');
      expect(t.minMinutes ?? 0).toBeLessThanOrEqual(t.averageMinutes);
      expect(t.maxMinutes ?? Number.POSITIVE_INFINITY).toBeGreaterThanOrEqual(t.averageMinutes);
    }
  });

  it('serves the same body keyless from the CDN and keyed through the API, and none for a CBSA-only office', async () => {
    const keyless = await typical('250401');
    const { key } = await issueKey(stack);
    const keyed = await typical('250401', { headers: { 'x-api-key': key } });
    expect(keyed.status).toBe(200);
    expect(keyed.body).toEqual(keyless.body);
    expect((await typical('cbsa-north-portal')).body.typical).toEqual([]);
  });

  it('does not fetch again the same day: one read, no request', async () => {
    const before = stack.simulator.graphRequests();
    stack.clock.set(AT + 20 * 60_000);
    await stack.service.forecastNow();
    expect(stack.simulator.graphRequests()).toBe(before);
  });

  it('keeps the last good values when every graph fails the next day, and never writes zeros', async () => {
    const before = (await typical('250401')).body;
    stack.simulator.setFault('graph', { kind: 'status', status: 500 });
    stack.clock.set(AT + 24 * 3_600_000);
    await stack.service.forecastNow();
    stack.simulator.setFault('graph', { kind: 'truncated' });
    stack.clock.set(AT + 26 * 3_600_000);
    await stack.service.forecastNow();
    stack.simulator.setFault('graph', null);
    const after = (await typical('250401')).body;
    expect(after.typical).toEqual(before.typical);
    expect(after.fetchedAt).toBe(before.fetchedAt);
    expect(
      stack.logs.some((line) =>
        /typical-waits port=250401: 7 of 7 graphs failed, kept the last good values/.test(line),
      ),
    ).toBe(true);
  });
});
