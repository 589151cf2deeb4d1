/**
 * The observation store on dynalite: time ranges, filters, expiry, and `limit` keeping the newest.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation } from '../../functions/core/model.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { RETENTION_HOURS } from '../../infra/manifest.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-21T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');

/** One observation per hour for 400 hours, alternating lanes. */
const OBSERVATIONS: Observation[] = Array.from({ length: 400 }, (_, i) => ({
  portId: '250401',
  source: 'cbp',
  direction: 'into-us',
  mode: 'passenger',
  lane: i % 2 === 0 ? 'standard' : 'ready',
  status: 'open',
  delayMinutes: i % 60,
  lanesOpen: 3,
  maxLanes: 10,
  observedAt: iso(NOW - i * HOUR),
  fetchedAt: iso(NOW - i * HOUR + 60_000),
}));

describe('observation store', () => {
  let embedded: EmbeddedStores;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-observations-'));
    embedded = await startEmbeddedStores(dataDir, { now: () => NOW });
    await embedded.stores.observations.putMany(OBSERVATIONS);
    await embedded.stores.observations.putMany(OBSERVATIONS.slice(0, 50));
  });

  afterAll(async () => {
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const times = (list: readonly Observation[]) => list.map((o) => o.observedAt);

  it('returns one copy of each, oldest first, and never an expired one', async () => {
    const all = await embedded.stores.observations.query('250401', 0, NOW);
    const live = OBSERVATIONS.filter((o) => Date.parse(o.observedAt) > NOW - RETENTION_HOURS * HOUR);
    expect(times(all)).toEqual(times(live).reverse());
  });

  it.each([1, 10, 199, 336, 500])('with limit %i keeps the newest, oldest first', async (limit) => {
    const newest = await embedded.stores.observations.query('250401', NOW - 100 * HOUR, NOW, {}, limit);
    const expected = OBSERVATIONS.slice(0, Math.min(limit, 101)).reverse();
    expect(times(newest)).toEqual(times(expected));
  });

  it('applies filters before the limit', async () => {
    const ready = await embedded.stores.observations.query('250401', 0, NOW, { lane: 'ready' }, 5);
    expect(ready.map((o) => o.lane)).toEqual(Array(5).fill('ready'));
    expect(times(ready)).toEqual(times(OBSERVATIONS.filter((o) => o.lane === 'ready').slice(0, 5)).reverse());
  });
});
