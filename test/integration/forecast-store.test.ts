/**
 * The forecasts table on the embedded DynamoDB: a port's issues, day records and settled window
 * are stored packed (their lanes compressed JSON, one binary attribute), read back as written,
 * items written before as maps are still read, and a full day's record costs a fraction of the
 * write units its map did.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createForecastStore } from '../../functions/adapters/dynamo/forecasts.ts';
import { TABLES } from '../../functions/contract.ts';
import { HORIZONS_MINUTES, type IssuedPort } from '../../functions/core/forecast/forecast.ts';
import type { ForecastStore } from '../../functions/core/forecast/forecast-cycle.ts';
import type { PortRecord, Tally } from '../../functions/core/forecast/skill.ts';
import { createTables, startDynamoOwner } from '../../infra/local/dynamo.ts';
import { type CapacityMeter, meterCapacity } from '../../scripts/bench/_capacity.ts';

const TABLE = TABLES.forecasts.name;

let dataDir: string;
let dynamo: Awaited<ReturnType<typeof startDynamoOwner>>;
let client: ReturnType<typeof createDocumentClient>;
let store: ForecastStore;
let meter: CapacityMeter;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'border-waits-forecast-store-'));
  dynamo = await startDynamoOwner(dataDir);
  await createTables(dynamo.endpoint);
  client = createDocumentClient({ endpoint: dynamo.endpoint, region: 'us-east-1' });
  meter = meterCapacity(client);
  store = createForecastStore(client, TABLE);
});

/** Writes an item as it is (an item of another writer, or of this code before). */
const put = (Item: Record<string, unknown>) => client.send(new PutCommand({ TableName: TABLE, Item }));

afterAll(async () => {
  client?.destroy();
  await dynamo?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A deterministic stream of numbers in [0, 1). */
function randomOf(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A histogram of relative-error bins as a record holds it: ascending bins, counts above 0. */
function histogramOf(random: () => number, bins: number): number[] {
  const out: number[] = [];
  let bin = -20 + Math.floor(random() * 10);
  for (let i = 0; i < bins; i++) {
    bin += 1 + Math.floor(random() * 3);
    out.push(bin, 1 + Math.floor(random() * 40));
  }
  return out;
}

/** A day's record of a port with `lanes` lanes, every horizon and series scored (`n` per tally). */
function recordOf(seed: number, lanes: number, n: number): PortRecord {
  const random = randomOf(seed);
  const int = (max: number) => Math.floor(random() * max);
  const record: PortRecord = {};
  for (let l = 0; l < lanes; l++) {
    const horizons: PortRecord[string] = {};
    for (const h of HORIZONS_MINUTES) {
      const tally = (model: boolean, published: boolean): Tally => ({
        abs: n * (20 + int(60)),
        err: n * (int(40) - 20),
        cov: Math.floor(n * (0.7 + random() * 0.2)),
        n,
        hist: [],
        ...(published ? {} : { bands: [0, 1, 2, 3].map(() => histogramOf(random, 4 + int(12))) }),
        lvn: [int(n), int(n), int(n), int(n)],
        lvc: [int(n), int(n), int(n), int(n)],
        ...(model
          ? {
              reg: Array.from({ length: 10 }, (_, i) => (i === 9 ? n : n * (int(20_000) - 5000))),
              ctr: [n * int(50), n * int(50), n, n * int(50), n * int(50), n],
              cor: [n * int(50), n * int(50), n],
            }
          : {}),
      });
      horizons[String(h)] = {
        model: tally(true, false),
        persistence: tally(false, false),
        profile: tally(false, false),
        champion: tally(false, true),
      };
    }
    record[`into-us#passenger#lane${l}`] = horizons;
  }
  return record;
}

function issueOf(portId: string, issuedAt: string, seed: number): IssuedPort {
  const random = randomOf(seed);
  const triple = (): [number, number, number] => {
    const point = Math.round(random() * 600) / 10;
    return [point, Math.round(point * 7) / 10, Math.round(point * 14) / 10];
  };
  return {
    portId,
    issuedAt,
    lanes: [
      {
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        reading: { delayMinutes: 12, observedAt: issuedAt },
        reasons: [{ code: 'partial-history', text: 'not enough history for 2 of 27 points' }],
        points: HORIZONS_MINUTES.map((h) => ({
          horizonMinutes: h,
          basis: { raw: 11.5, base: 9.2, x: [1.5, -0.3, 0.7], centres: [9.4, 9.2, 9.9, 9.5] },
          model: triple(),
          persistence: triple(),
          profile: h % 60 === 0 ? null : triple(),
          champion: 'model',
        })),
      },
    ],
  };
}

describe('the forecasts table stores lanes packed', () => {
  it('a record, a window and an issue read back as written, from one binary attribute', async () => {
    const lanes = recordOf(1, 3, 40);
    expect(
      await store.putSkillDay(
        '250401',
        { date: '2026-03-07', through: '2026-03-07T10:00:00.000Z', lanes },
        null,
      ),
    ).toBe(true);
    await store.putWindow('250401', { from: '2026-02-08', to: '2026-03-06', lanes: recordOf(2, 3, 900) });
    const issue = issueOf('250401', '2026-03-07T10:15:00.000Z', 3);
    expect(await store.putPending(issue)).toEqual(issue);

    expect(await store.skillDays('250401', '2026-03-07')).toEqual([
      { date: '2026-03-07', through: '2026-03-07T10:00:00.000Z', lanes },
    ]);
    expect(await store.window('250401')).toEqual({
      from: '2026-02-08',
      to: '2026-03-06',
      lanes: recordOf(2, 3, 900),
    });
    expect((await store.windows?.(['250401', '999999']))?.get('250401')?.lanes).toEqual(recordOf(2, 3, 900));
    expect(await store.pending('250401', [issue.issuedAt, '2026-03-07T10:30:00.000Z'])).toEqual([issue]);

    const stored = await client.send(
      new GetCommand({ TableName: TABLE, Key: { pk: 'S#250401', sk: '2026-03-07' } }),
    );
    expect(stored.Item?.lanesPacked).toBeInstanceOf(Uint8Array);
    expect(stored.Item).not.toHaveProperty('lanes');
  });

  it('an issue read for scoring carries its points at the horizons aimed at the targets alone', async () => {
    const issue = issueOf('230402', '2026-03-07T09:00:00.000Z', 11);
    const closed = {
      ...issue.lanes[0],
      lane: 'ready',
      reading: null,
      points: [],
    } as IssuedPort['lanes'][number];
    const whole = { ...issue, lanes: [...issue.lanes, closed] };
    await store.putPending(whole);
    const other = issueOf('230402', '2026-03-07T09:15:00.000Z', 12);
    await store.putPending(other);

    const aimed = new Map([[whole.issuedAt, [60, 1440]]]);
    const read = await store.pending('230402', [whole.issuedAt, other.issuedAt], aimed);
    const at = (lane: IssuedPort['lanes'][number], horizons: number[]) => ({
      ...lane,
      points: lane.points.filter((p) => horizons.includes(p.horizonMinutes)),
    });
    // The aimed issue: each lane with its points at +60 min and +24 h (a lane without points has none); the other whole.
    expect(read).toEqual([{ ...whole, lanes: whole.lanes.map((lane) => at(lane, [60, 1440])) }, other]);
    expect(read[0]?.lanes[0]?.points.map((p) => p.horizonMinutes)).toEqual([60, 1440]);
    // Several ports at once, each with its own aimed issues.
    const both = await store.pendingOf?.([
      { portId: '230402', issuedAt: [whole.issuedAt], aimed: new Map([[whole.issuedAt, [15]]]) },
      { portId: '250401', issuedAt: ['2026-03-07T10:15:00.000Z'] },
    ]);
    expect(both?.get('230402')?.[0]?.lanes.map((lane) => lane.points.length)).toEqual([1, 0]);
    expect(both?.get('250401')?.[0]?.lanes[0]?.points).toHaveLength(HORIZONS_MINUTES.length);
    // An issue of a port with no lane reads back empty, whole or aimed.
    const empty: IssuedPort = { portId: '230402', issuedAt: '2026-03-07T09:30:00.000Z', lanes: [] };
    await store.putPending(empty);
    expect(await store.pending('230402', [empty.issuedAt])).toEqual([empty]);
    expect(await store.pending('230402', [empty.issuedAt], new Map([[empty.issuedAt, [15]]]))).toEqual([
      empty,
    ]);
  });

  it('a second issue of a slot gets the first one back, unpacked', async () => {
    const first = issueOf('230501', '2026-03-07T11:00:00.000Z', 4);
    await store.putPending(first);
    expect(await store.putPending(issueOf('230501', '2026-03-07T11:00:00.000Z', 5))).toEqual(first);
  });

  it('a guarded write over a record that moved on writes nothing', async () => {
    const day = { date: '2026-03-08', through: '2026-03-08T01:00:00.000Z', lanes: recordOf(6, 1, 5) };
    expect(await store.putSkillDay('240201', day, null)).toBe(true);
    const stale = { ...day, through: '2026-03-08T01:15:00.000Z', lanes: recordOf(7, 1, 6) };
    expect(await store.putSkillDay('240201', stale, '2026-03-08T00:45:00.000Z')).toBe(false);
    expect(await store.skillDays('240201', '2026-03-08')).toEqual([day]);
  });

  it('items written before, with their lanes as a map, are read as they are', async () => {
    const lanes = recordOf(8, 2, 20);
    const issue = issueOf('070801', '2026-03-07T12:00:00.000Z', 9);
    await put({ pk: 'S#070801', sk: '2026-03-07', through: '2026-03-07T11:45:00.000Z', lanes });
    await put({ pk: 'W#070801', sk: 'window', from: '2026-02-08', to: '2026-03-06', lanes });
    await put({ pk: 'P#070801', sk: issue.issuedAt, lanes: issue.lanes });

    expect(await store.skillDays('070801', '2026-03-01')).toEqual([
      { date: '2026-03-07', through: '2026-03-07T11:45:00.000Z', lanes },
    ]);
    expect((await store.window('070801'))?.lanes).toEqual(lanes);
    expect(await store.pending('070801', [issue.issuedAt])).toEqual([issue]);
    // The next write of the record packs it, guarded by the through read from the map item.
    expect(
      await store.putSkillDay(
        '070801',
        { date: '2026-03-07', through: '2026-03-07T12:00:00.000Z', lanes },
        '2026-03-07T11:45:00.000Z',
      ),
    ).toBe(true);
    const stored = await client.send(
      new GetCommand({ TableName: TABLE, Key: { pk: 'S#070801', sk: '2026-03-07' } }),
    );
    expect(stored.Item?.lanesPacked).toBeInstanceOf(Uint8Array);
    expect(stored.Item).not.toHaveProperty('lanes');
  });

  it('a packed value that does not read back is an error naming the item', async () => {
    await put({ pk: 'S#090901', sk: '2026-03-07', through: null, lanesPacked: new Uint8Array([1, 2, 3, 4]) });
    await expect(store.skillDays('090901', '2026-03-01')).rejects.toThrow(
      /^item S#090901 \/ 2026-03-07: lanesPacked does not read back as packed JSON/,
    );
    await put({ pk: 'P#090901', sk: '2026-03-07T08:00:00.000Z', lanesPacked: new Uint8Array([9]) });
    await expect(store.pending('090901', ['2026-03-07T08:00:00.000Z'])).rejects.toThrow(
      /^item P#090901 \/ 2026-03-07T08:00:00.000Z: lanesPacked does not read back/,
    );
  });

  it('a full day of scores costs a fraction of the write units of its map', async () => {
    // Four lanes with a day of scores (96 targets) at every horizon.
    const lanes = recordOf(10, 4, 96);
    meter.reset();
    await put({ pk: 'S#map', sk: '2026-03-09', through: null, lanes });
    const asMap = meter.write;
    meter.reset();
    await store.putSkillDay('packed', { date: '2026-03-09', through: null, lanes }, null);
    const packed = meter.write;
    expect(asMap).toBeGreaterThan(50);
    expect(packed).toBeLessThan(asMap / 2);
  });
});
