/**
 * Settling old dates keeps rollup items bounded without changing any average: concurrent and
 * repeated readers fold each date exactly once (one conditional update per item, no transactions).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RollupContribution, SETTLE_AFTER_DAYS, settledBefore } from '../../functions/core/rollups.ts';
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

  async function item(): Promise<Record<string, unknown>> {
    const result = await embedded.stores.dynamo.send(
      new QueryCommand({
        TableName: TABLES.rollups.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': PORT },
      }),
    );
    expect(result.Items).toHaveLength(1);
    return result.Items?.[0] ?? {};
  }

  it('before any read, the item holds one attribute per date', async () => {
    const dates = Object.keys(await item()).filter((name) => /^d\d{4}-\d{2}-\d{2}$/.test(name));
    expect(dates).toHaveLength(10);
  });

  it('ten concurrent reads, then three more, all give the exact average and fold each date once', async () => {
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
    for (let i = 0; i < 3; i++) expect(await embedded.stores.rollups.averages(PORT)).toEqual(expected);

    const stored = await item();
    const cutoff = `d${settledBefore(NOW)}`;
    const remaining = Object.keys(stored).filter((name) => /^d\d{4}-\d{2}-\d{2}$/.test(name));
    // Only the dates of the last SETTLE_AFTER_DAYS stay as dates; the rest is one running total.
    expect(remaining.every((name) => name >= cutoff)).toBe(true);
    expect(remaining).toHaveLength(Math.ceil(SETTLE_AFTER_DAYS / 7));
    const kept = CONTRIBUTIONS.filter((c) => `d${c.localDate}` >= cutoff);
    const settled = stored.settled as { s: number; n: number; h: Record<string, number> };
    expect(settled.n).toBe(SAMPLES - kept.reduce((t, c) => t + c.count, 0));
    expect(settled.s).toBe(SUM - kept.reduce((t, c) => t + c.sum, 0));
    expect(Object.values(settled.h).reduce((t, n) => t + n, 0)).toBe(settled.n);
    expect(stored.settledVersion).toBeGreaterThanOrEqual(1);
  });
});
