/**
 * Settling old dates keeps rollup items bounded without changing any average: concurrent and
 * repeated writers fold each date exactly once (one conditional update per item, no transactions),
 * and a settled date is never written again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRollupStore, loadRollups } from '../../functions/adapters/dynamo/rollups.ts';
import {
  type DecayedTotal,
  decayWeight,
  type RollupContribution,
  SETTLE_AFTER_DAYS,
  settledBefore,
} from '../../functions/core/history/rollups.ts';
import { buildAverageDocuments } from '../../functions/core/views/views.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { TABLES } from '../../infra/manifest.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-21T12:00:00Z');
const PORT = '250401';

/** Ten weeks of Saturdays at 8 am for one lane: week w has w + 1 samples of 2 (w + 1) minutes. */
const CONTRIBUTIONS: RollupContribution[] = Array.from({ length: 10 }, (_, week) => ({
  portId: PORT,
  direction: 'into-us',
  mode: 'passenger',
  lane: 'standard',
  localDate: new Date(Date.parse('2026-11-21T00:00:00Z') - week * 7 * DAY).toISOString().slice(0, 10),
  dayOfWeek: 6,
  hour: 8,
  sum: 2 * (week + 1) * (week + 1),
  count: week + 1,
  histogram: { [String(2 * (week + 1))]: week + 1 },
}));
const SUM = CONTRIBUTIONS.reduce((total, c) => total + c.sum, 0);
const SAMPLES = CONTRIBUTIONS.reduce((total, c) => total + c.count, 0);
const VALUES = CONTRIBUTIONS.flatMap((c) => Array(c.count).fill(c.sum / c.count) as number[]).sort(
  (a, b) => a - b,
);
const MEDIAN = ((VALUES[Math.floor((SAMPLES - 1) / 2)] ?? 0) + (VALUES[Math.floor(SAMPLES / 2)] ?? 0)) / 2;

describe('rollup settling', () => {
  let embedded: EmbeddedStores;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-settle-'));
    embedded = await startEmbeddedStores(dataDir, { now: () => NOW });
    await embedded.stores.rollups.putContributions(CONTRIBUTIONS);
  });

  afterAll(async () => {
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The port's one bucket item (Saturday 8 am); the other item is its day's summary. */
  async function item(portId = PORT): Promise<Record<string, unknown>> {
    const result = await embedded.stores.dynamo.send(
      new QueryCommand({
        TableName: TABLES.rollups.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': portId },
      }),
    );
    expect(result.Items?.map((i) => i.sk)).toEqual(['avg#6', 'w#6#08']);
    return result.Items?.find((i) => i.sk === 'w#6#08') ?? {};
  }
  const dateNames = (stored: Record<string, unknown>) =>
    Object.keys((stored.p ?? {}) as Record<string, unknown>).map((key) => key.slice(key.indexOf('|') + 1));

  it('the first write keeps the recent dates as parts and folds the old ones into one total', async () => {
    const stored = await item();
    const cutoff = settledBefore(NOW);
    expect(dateNames(stored).every((date) => date >= cutoff)).toBe(true);
    expect(dateNames(stored)).toHaveLength(Math.ceil(SETTLE_AFTER_DAYS / 7));
  });

  it('ten concurrent writes of every date, then three more, leave the exact average: each date counted once', async () => {
    await Promise.all(
      Array.from({ length: 10 }, () => embedded.stores.rollups.putContributions(CONTRIBUTIONS)),
    );
    for (let i = 0; i < 3; i++) await embedded.stores.rollups.putContributions(CONTRIBUTIONS);
    const expected = [
      expect.objectContaining({
        dayOfWeek: 6,
        hour: 8,
        samples: SAMPLES,
        averageDelayMinutes: Math.round((SUM / SAMPLES) * 10) / 10,
        medianDelayMinutes: MEDIAN,
      }),
    ];
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () => embedded.stores.rollups.averages(PORT)),
    );
    for (const averages of concurrent) expect(averages).toEqual(expected);

    const stored = await item();
    const cutoff = settledBefore(NOW);
    // Only the dates of the last SETTLE_AFTER_DAYS stay as dates; the rest is one running total.
    expect(dateNames(stored).every((date) => date >= cutoff)).toBe(true);
    expect(dateNames(stored)).toHaveLength(Math.ceil(SETTLE_AFTER_DAYS / 7));
    const kept = CONTRIBUTIONS.filter((c) => c.localDate >= cutoff);
    const settled = (stored.t as Record<string, { s: number; n: number; h: Record<string, number> }>)[
      'into-us#passenger#standard'
    ];
    expect(settled?.n).toBe(SAMPLES - kept.reduce((t, c) => t + c.count, 0));
    expect(settled?.s).toBe(SUM - kept.reduce((t, c) => t + c.sum, 0));
    expect(Object.values(settled?.h ?? {}).reduce((t, n) => t + n, 0)).toBe(settled?.n);
    expect(stored.v).toBeGreaterThanOrEqual(1);
    expect(stored.ft).toBe(
      CONTRIBUTIONS.map((c) => c.localDate)
        .filter((d) => d < cutoff)
        .sort()
        .at(-1),
    );
  });

  it('keeps a decayed total beside the settled one: the averages carry recency-weighted centres, the published documents not', async () => {
    const stored = await item();
    const cutoff = settledBefore(NOW);
    const settled = CONTRIBUTIONS.filter((c) => c.localDate < cutoff);
    const kept = CONTRIBUTIONS.filter((c) => c.localDate >= cutoff);
    const decayed = (stored.d as Record<string, DecayedTotal>)['into-us#passenger#standard'];
    // Each settled date weighs 2^(-weeks before the newest settled date / half-life).
    const weight = (c: RollupContribution) => decayWeight(c.localDate, String(stored.ft));
    const s = settled.reduce((t, c) => t + weight(c) * c.sum, 0);
    const n = settled.reduce((t, c) => t + weight(c) * c.count, 0);
    expect(decayed?.at).toBe(stored.ft);
    expect(decayed?.s).toBeCloseTo(s, 3);
    expect(decayed?.n).toBeCloseTo(n, 3);
    const [average] = await embedded.stores.rollups.averages(PORT);
    const recentMean =
      (s + kept.reduce((t, c) => t + c.sum, 0)) / (n + kept.reduce((t, c) => t + c.count, 0));
    expect(average?.recent?.mean).toBeCloseTo(recentMean, 2);
    // The oldest weeks hold the most and the longest waits here: weighting by recency lowers the centres.
    expect(average?.recent?.mean).toBeLessThan(average?.averageDelayMinutes ?? 0);
    expect(average?.recent?.median).toBeLessThanOrEqual(average?.medianDelayMinutes ?? 0);
    const [document] = buildAverageDocuments({ id: PORT, slug: 'san-ysidro' }, [average ?? []].flat());
    expect(Object.keys(JSON.parse(document?.body ?? '[]')[0] ?? {})).toEqual([
      'portId',
      'direction',
      'mode',
      'lane',
      'dayOfWeek',
      'hour',
      'averageDelayMinutes',
      'medianDelayMinutes',
      'samples',
    ]);
  });

  it('an item settled before decayed totals were kept reads its undecayed total as one, and starts decaying at its next settle', async () => {
    const older = CONTRIBUTIONS.map((c) => ({ ...c, portId: 'older' }));
    await embedded.stores.rollups.putContributions(older);
    await embedded.stores.dynamo.send(
      new UpdateCommand({
        TableName: TABLES.rollups.name,
        Key: { pk: 'older', sk: 'w#6#08' },
        UpdateExpression: 'REMOVE d',
      }),
    );
    // Its summary rebuilt from the item as it is now (a kept summary of the same revision stands).
    await embedded.stores.dynamo.send(
      new DeleteCommand({ TableName: TABLES.rollups.name, Key: { pk: 'older', sk: 'avg#6' } }),
    );
    const store = createRollupStore(embedded.stores.dynamo, TABLES.rollups.name, () => NOW);
    await store.rebuildSummary('older');
    const [undecayed] = await store.averages('older');
    expect(undecayed?.recent).toEqual({
      mean: Math.round((SUM / SAMPLES) * 100) / 100,
      median: MEDIAN,
    });
    // A week later the oldest kept date settles: the old total is aged from its newest date.
    const later = createRollupStore(embedded.stores.dynamo, TABLES.rollups.name, () => NOW + 7 * DAY);
    await later.putContributions(older.filter((c) => c.localDate >= settledBefore(NOW)));
    const stored = await item('older');
    const decayed = (stored.d as Record<string, DecayedTotal>)['into-us#passenger#standard'];
    expect(decayed?.at).toBe(stored.ft);
    expect(decayed?.n).toBeLessThan(
      Number((stored.t as Record<string, { n: number }>)['into-us#passenger#standard']?.n),
    );
    const [after] = await later.averages('older');
    expect(after?.samples).toBe(SAMPLES);
    expect(after?.recent?.mean).toBeLessThan(after?.averageDelayMinutes ?? 0);
  });

  it('a bulk load at a given time leaves the items as the ingest leaves them, and later writes keep the exact average', async () => {
    const loaded = CONTRIBUTIONS.map((c) => ({ ...c, portId: 'loaded' }));
    await loadRollups(embedded.stores.dynamo, TABLES.rollups.name, loaded, NOW);
    const bulk = await item('loaded');
    const written = await item();
    expect(dateNames(bulk).sort()).toEqual(dateNames(written).sort());
    expect(bulk.t).toEqual(written.t);
    expect(bulk.ft).toBe(written.ft);
    // Settled dates written again are left out (their total holds them); recent ones are replaced.
    for (let i = 0; i < 2; i++) await embedded.stores.rollups.putContributions(loaded);
    expect(await embedded.stores.rollups.averages('loaded')).toEqual(
      (await embedded.stores.rollups.averages(PORT)).map((a) => ({ ...a, portId: 'loaded' })),
    );
  });
});
