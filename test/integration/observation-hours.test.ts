/**
 * The first write of an hour: an hour after the newest one a store has written is created with
 * nothing sent back (the store's copy is what it wrote), and the copy is what the table holds.
 * When that guess meets an hour another writer already wrote and compacted, the write takes the
 * stored item back instead, so the hour's rollup, read from the copy, still sees every reading.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMPACT_MIN_READINGS,
  createObservationStore,
  hourSk,
} from '../../functions/adapters/dynamo/observations.ts';
import type { Observation } from '../../functions/core/model.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { TABLES } from '../../infra/manifest.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-21T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');

/** A reading of `portId` at `ms`, a lane per minute of the hour so each is its own entry. */
const reading = (portId: string, ms: number): Observation => ({
  portId,
  source: 'cbp',
  direction: 'into-us',
  mode: 'passenger',
  lane: 'standard',
  status: 'open',
  delayMinutes: new Date(ms).getUTCMinutes(),
  lanesOpen: 3,
  maxLanes: 10,
  observedAt: iso(ms),
  fetchedAt: iso(ms + 60_000),
});
/** `count` readings of the hour starting at `hourMs`, a minute apart from `fromMinute`. */
const hourOf = (portId: string, hourMs: number, count: number, fromMinute = 0) =>
  Array.from({ length: count }, (_, i) => reading(portId, hourMs + (fromMinute + i) * 60_000));

describe('the first write of an hour', () => {
  let embedded: EmbeddedStores;
  let dataDir: string;
  const store = () => createObservationStore(embedded.stores.dynamo, TABLES.observations.name, () => NOW);
  const stored = async (portId: string, ms: number) =>
    (
      await embedded.stores.dynamo.send(
        new GetCommand({ TableName: TABLES.observations.name, Key: { pk: portId, sk: hourSk(ms) } }),
      )
    ).Item;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-hours-'));
    embedded = await startEmbeddedStores(dataDir, { now: () => NOW });
  });

  afterAll(async () => {
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates a new hour and reads it back from its copy as the table holds it', async () => {
    const ingest = store();
    const first = NOW - 3 * HOUR;
    await ingest.putMany(hourOf('p1', first, 3));
    // The next hour is after the newest one written: created from the guess.
    await ingest.putMany(hourOf('p1', first + HOUR, 4, 10));
    const item = await stored('p1', first + HOUR);
    expect(Object.keys(item?.m ?? {})).toHaveLength(4);
    const read = await ingest.query('p1', first + HOUR, first + 2 * HOUR - 1);
    expect(read).toEqual(await store().query('p1', first + HOUR, first + 2 * HOUR - 1));
    expect(read.map((o) => o.observedAt)).toEqual(hourOf('p1', first + HOUR, 4, 10).map((o) => o.observedAt));
  });

  it('an hour another writer wrote and compacted keeps its readings in the copy after a late one', async () => {
    const ingest = store();
    const other = store();
    const early = NOW - 6 * HOUR;
    const hour = NOW - 5 * HOUR;
    // This store's newest hour is the one before...
    await ingest.putMany(hourOf('p2', early, 2));
    // ...while another writer fills the next hour and compacts it by writing the one after.
    await other.putMany(hourOf('p2', hour, COMPACT_MIN_READINGS));
    await other.putMany(hourOf('p2', hour + HOUR, 2));
    const compacted = await stored('p2', hour);
    expect(compacted?.m).toBeUndefined();
    expect(compacted?.cn).toBe(COMPACT_MIN_READINGS);
    // A late reading of the compacted hour, through the store that guesses it is new.
    await ingest.putMany([reading('p2', hour + 59 * 60_000)]);
    const read = await ingest.query('p2', hour, hour + HOUR - 1);
    expect(read).toHaveLength(COMPACT_MIN_READINGS + 1);
    expect(read).toEqual(await store().query('p2', hour, hour + HOUR - 1));
  });
});
