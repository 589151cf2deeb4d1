/**
 * The `latest` store on dynalite: a lane's or a port's item holds its content as one JSON attribute
 * beside its keys and `fetchedAt`, reads give back exactly what was written, and items written
 * with a field per attribute (before that layout) read the same.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LatestPortState, LatestReading } from '../../functions/core/model.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { TABLES } from '../../infra/manifest.ts';

const NOW = Date.parse('2026-11-26T05:01:00Z');

const reading = (lane: LatestReading['lane'], delayMinutes: number | null): LatestReading => ({
  portId: '250401',
  direction: 'into-us',
  mode: 'passenger',
  lane,
  status: delayMinutes === null ? 'update-pending' : 'open',
  delayMinutes,
  lanesOpen: delayMinutes === null ? null : 12,
  maxLanes: 24,
  observedAt: delayMinutes === null ? null : '2026-11-26T05:00:00Z',
  source: 'cbp',
  fetchedAt: '2026-11-26T05:01:00.000Z',
});

describe('the latest store', () => {
  let embedded: EmbeddedStores;
  let dataDir: string;
  const raw = async (pk: string, sk: string) =>
    (await embedded.stores.dynamo.send(new GetCommand({ TableName: TABLES.latest.name, Key: { pk, sk } })))
      .Item;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-latest-'));
    embedded = await startEmbeddedStores(dataDir, { now: () => NOW });
  });

  afterAll(async () => {
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('gives back what it stored, each item as its keys, fetchedAt and one JSON attribute', async () => {
    const readings = [reading('standard', 35), reading('ready', null)];
    // A port state as the feeds give it (fields the model does not list are kept too).
    const port = {
      portId: '250401',
      source: 'cbp',
      name: 'San Ysidro',
      status: 'open',
      hours: '24 hrs/day',
      notice: null,
      timeZone: 'America/Los_Angeles',
      fetchedAt: '2026-11-26T05:01:00.000Z',
    } as unknown as LatestPortState;
    await embedded.stores.latest.putReadings(readings);
    await embedded.stores.latest.putPorts([port]);
    const all = await embedded.stores.latest.all();
    expect(all.readings.sort((a, b) => (a.lane < b.lane ? -1 : 1))).toEqual(
      readings.sort((a, b) => (a.lane < b.lane ? -1 : 1)),
    );
    expect(all.ports).toEqual([port]);
    const item = await raw('250401', 'lane#into-us#passenger#standard');
    expect(Object.keys(item ?? {}).sort()).toEqual(['c', 'fetchedAt', 'pk', 'sk']);
    expect(item?.fetchedAt).toBe('2026-11-26T05:01:00.000Z');
  });

  it('reads an item written with a field per attribute as it reads a new one', async () => {
    const legacy = { ...reading('sentri', 12), portId: '250601' };
    await embedded.stores.dynamo.send(
      new PutCommand({
        TableName: TABLES.latest.name,
        Item: { pk: legacy.portId, sk: 'lane#into-us#passenger#sentri', ...legacy },
      }),
    );
    const { readings } = await embedded.stores.latest.all();
    expect(readings.find((r) => r.portId === '250601')).toEqual(legacy);
  });
});
