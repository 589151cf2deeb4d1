/**
 * The observation store on dynalite: time ranges, filters, expiry, and `limit` keeping the newest.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPACT_MIN_READINGS } from '../../functions/adapters/dynamo/observations.ts';
import type { Observation } from '../../functions/core/model.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { RETENTION_HOURS, TABLES } from '../../infra/manifest.ts';

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

describe('observation store: compacted hours', () => {
  let embedded: EmbeddedStores;
  let dataDir: string;
  const PORT = '070801';
  const start = Date.parse('2026-11-21T06:00:00Z');
  /** Every 10 minutes for six hours on two lanes. */
  const readings: Observation[] = Array.from({ length: 72 }, (_, i) => ({
    ...(OBSERVATIONS[0] as Observation),
    portId: PORT,
    lane: i % 2 === 0 ? ('standard' as const) : ('ready' as const),
    delayMinutes: i,
    observedAt: iso(start + Math.floor(i / 2) * 600_000),
    fetchedAt: iso(start + Math.floor(i / 2) * 600_000 + 60_000),
  }));

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-compact-'));
    embedded = await startEmbeddedStores(dataDir, { now: () => NOW });
    // As the ingest writes them: a few readings at a time, hour after hour, each written twice.
    for (let i = 0; i < readings.length; i += 4) {
      await embedded.stores.observations.putMany(readings.slice(i, i + 4));
      await embedded.stores.observations.putMany(readings.slice(i, i + 4));
    }
    // A late reading of an hour already compacted, and one already there again.
    await embedded.stores.observations.putMany([
      { ...(readings[0] as Observation), lane: 'sentri' as const, delayMinutes: 99 },
      readings[1] as Observation,
    ]);
  });

  afterAll(async () => {
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** A port's hour items as stored. */
  const storedItems = async (portId: string) =>
    (
      await embedded.stores.dynamo.send(
        new QueryCommand({
          TableName: TABLES.observations.name,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': portId },
        }),
      )
    ).Items ?? [];

  it('folds finished hours into one attribute and still returns every reading exactly once', async () => {
    const items = await storedItems(PORT);
    expect(items).toHaveLength(6);
    // Every hour but the last (still being written) is compacted; the first got a late reading since.
    expect(items.slice(0, 5).every((item) => typeof item.c === 'string')).toBe(true);
    expect(Object.keys(items[0]?.m ?? {})).toHaveLength(2);
    expect(items.slice(1, 5).every((item) => item.m === undefined)).toBe(true);

    const all = await embedded.stores.observations.query(PORT, 0, NOW);
    const expected = [
      ...readings,
      { ...(readings[0] as Observation), lane: 'sentri' as const, delayMinutes: 99 },
    ];
    const key = (o: Observation) => `${o.observedAt}|${o.lane}`;
    expect(all.map(key).sort()).toEqual(expected.map(key).sort());
    expect(all.find((o) => o.lane === 'sentri')?.delayMinutes).toBe(99);
  });

  it('reads an hour compacted in the first form (an object by entry key) with readings set since', async () => {
    const sk = 'h#2026-11-21T09';
    // As the previous release compacted an hour: entry key -> [source, status, delay, open, max, fetchedAt].
    await embedded.stores.dynamo.send(
      new PutCommand({
        TableName: TABLES.observations.name,
        Item: {
          pk: 'old-form',
          sk,
          ttl: Date.parse('2026-11-21T10:00:00Z') / 1000 + RETENTION_HOURS * 3600,
          c: JSON.stringify({
            '05:00Z|into-us|passenger|standard': ['cbp', 'open', 12, 2, 8, '2026-11-21T09:06:00Z'],
            '2026-11-21T09:20:00.250Z|into-us|passenger|ready': [
              'cbp',
              'open',
              7,
              1,
              4,
              '2026-11-21T09:21:00Z',
            ],
          }),
          cn: 2,
          cv: 1,
          m: {
            '05:00Z|into-us|passenger|standard': ['cbp', 'lanes-closed', null, 0, 8, '2026-11-21T09:07:00Z'],
          },
        },
      }),
    );
    const all = await embedded.stores.observations.query('old-form', 0, NOW);
    expect(all.map((o) => [o.observedAt, o.lane, o.status, o.delayMinutes, o.fetchedAt])).toEqual([
      ['2026-11-21T09:05:00Z', 'standard', 'lanes-closed', null, '2026-11-21T09:07:00Z'],
      ['2026-11-21T09:20:00.250Z', 'ready', 'open', 7, '2026-11-21T09:21:00Z'],
    ]);
  });

  it('keeps a reading with an unusual time and extra fields through compaction', async () => {
    const odd: Observation = {
      ...(readings[0] as Observation),
      portId: 'odd-times',
      observedAt: '2026-11-21T06:10:00.500Z',
      note: 'kept',
    } as Observation;
    // Enough other readings in its hour for the hour to be compacted.
    const others = Array.from({ length: COMPACT_MIN_READINGS - 1 }, (_, i) => ({
      ...(readings[0] as Observation),
      portId: 'odd-times',
      observedAt: iso(Date.parse('2026-11-21T06:11:00Z') + i * 60_000),
    }));
    const next = { ...(readings[0] as Observation), portId: 'odd-times', observedAt: '2026-11-21T07:00:00Z' };
    await embedded.stores.observations.putMany([odd, ...others]);
    await embedded.stores.observations.putMany([next]);
    const [hour] = await storedItems('odd-times');
    expect(typeof hour?.c).toBe('string');
    expect(hour?.m).toBeUndefined();
    expect(await embedded.stores.observations.query('odd-times', 0, NOW)).toEqual([odd, ...others, next]);
  });

  it('leaves an hour of fewer readings than the compaction threshold as its map, and reads it whole', async () => {
    const few = Array.from({ length: COMPACT_MIN_READINGS - 1 }, (_, i) => ({
      ...(readings[0] as Observation),
      portId: 'few-readings',
      observedAt: iso(Date.parse('2026-11-21T06:00:00Z') + i * 300_000),
    }));
    const next = {
      ...(readings[0] as Observation),
      portId: 'few-readings',
      observedAt: '2026-11-21T07:00:00Z',
    };
    await embedded.stores.observations.putMany(few);
    await embedded.stores.observations.putMany([next]);
    const [hour] = await storedItems('few-readings');
    expect(hour?.c).toBeUndefined();
    expect(Object.keys(hour?.m ?? {})).toHaveLength(COMPACT_MIN_READINGS - 1);
    expect(await embedded.stores.observations.query('few-readings', 0, NOW)).toEqual([...few, next]);
  });
});
