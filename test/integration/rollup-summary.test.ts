/**
 * A rollup store keeps the summaries it wrote without reading them back: a write to a day it holds
 * returns only what it set, and its copy is updated in place. The copy stays exact: when another
 * writer wrote the same day in between (its write count says so), the day is read again, and a new
 * bucket's create, which returns nothing, leaves the same summary as a write that returns the item.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRollupStore } from '../../functions/adapters/dynamo/rollups.ts';
import type { RollupContribution } from '../../functions/core/history/rollups.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { TABLES } from '../../infra/manifest.ts';

const NOW = Date.parse('2026-11-21T20:00:00Z');

/** One lane's contribution to Saturday 2026-11-21 at `hour`: `count` samples of `minutes`. */
const at = (portId: string, hour: number, minutes: number, count = 2): RollupContribution => ({
  portId,
  direction: 'into-us',
  mode: 'passenger',
  lane: 'standard',
  localDate: '2026-11-21',
  dayOfWeek: 6,
  hour,
  sum: minutes * count,
  count,
  histogram: { [String(minutes)]: count },
});

describe('rollup summaries held in memory', () => {
  let embedded: EmbeddedStores;
  let dataDir: string;
  const store = () => createRollupStore(embedded.stores.dynamo, TABLES.rollups.name, () => NOW);

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-summary-'));
    embedded = await startEmbeddedStores(dataDir, { now: () => NOW });
  });

  afterAll(async () => {
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a writer that holds the day keeps what a fresh read gives, over new buckets and rewritten ones', async () => {
    const ingest = store();
    await ingest.putContributions([at('p1', 8, 10)]);
    expect(await ingest.averages('p1')).toHaveLength(1);
    // Held from here on: a new hour (a create), two hours in one write, a rewritten hour.
    await ingest.putContributions([at('p1', 9, 20)]);
    await ingest.putContributions([at('p1', 10, 30), at('p1', 11, 40, 3)]);
    await ingest.putContributions([at('p1', 9, 24, 4)]);
    const held = await ingest.averages('p1');
    expect(held.map((a) => [a.hour, a.averageDelayMinutes, a.samples])).toEqual([
      [8, 10, 2],
      [9, 24, 4],
      [10, 30, 2],
      [11, 40, 3],
    ]);
    expect(held).toEqual(await store().averages('p1'));
  });

  it('a day another writer changed meanwhile is read again, so its hours are not lost', async () => {
    const ingest = store();
    const other = store();
    await ingest.putContributions([at('p2', 8, 10)]);
    expect(await ingest.averages('p2')).toHaveLength(1);
    // Another writer (an import, a second process) sets another hour of the same day...
    await other.putContributions([at('p2', 14, 50)]);
    // ...then the writer that holds the day writes a third hour: its write count shows the gap.
    await ingest.putContributions([at('p2', 9, 20)]);
    const averages = await ingest.averages('p2');
    expect(averages.map((a) => a.hour)).toEqual([8, 9, 14]);
    expect(averages).toEqual(await store().averages('p2'));
  });

  it('concurrent writes of one day by the same writer leave its copy exact, whatever order they answer in', async () => {
    const ingest = store();
    await ingest.putContributions([at('p3', 0, 5)]);
    await ingest.averages('p3');
    await Promise.all(
      Array.from({ length: 12 }, (_, hour) => ingest.putContributions([at('p3', hour + 1, hour + 1)])),
    );
    const averages = await ingest.averages('p3');
    expect(averages).toHaveLength(13);
    expect(averages).toEqual(await store().averages('p3'));
  });
});
