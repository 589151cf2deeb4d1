/**
 * The ingest as the only writer of the observations and rollups (core/ingest/sole-writer.ts):
 * under its lease it puts whole, in batches, what it knows in full, and what it stores is what the
 * conditional writes store; another writer (an import) takes the same lease, so the ingest's next
 * cycle knows and drops what it held, and the other writer's readings survive.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createLeaseStore } from '../../functions/adapters/dynamo/lease.ts';
import { createObservationStore } from '../../functions/adapters/dynamo/observations.ts';
import { createRollupStore } from '../../functions/adapters/dynamo/rollups.ts';
import type { RollupContribution } from '../../functions/core/history/rollups.ts';
import { asAnotherWriter, withLease } from '../../functions/core/ingest/lease.ts';
import { createSoleWriter, type SoleWriter } from '../../functions/core/ingest/sole-writer.ts';
import type { Observation } from '../../functions/core/model.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { TABLES } from '../../infra/manifest.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-21T12:10:00Z');
let nowMs = NOW;
const clock = () => nowMs;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');

/** A reading of `portId` at `atMs`. */
const reading = (portId: string, atMs: number, delayMinutes: number, lane = 'standard'): Observation => ({
  portId,
  source: 'cbp',
  direction: 'into-us',
  mode: 'passenger',
  lane: lane as Observation['lane'],
  status: 'open',
  delayMinutes,
  lanesOpen: 2,
  maxLanes: 6,
  observedAt: iso(atMs),
  fetchedAt: iso(atMs + 30_000),
});

/** A DynamoDB client of its own (another process), counting its requests by command. */
function countedClient(endpoint: string): { doc: DynamoDBDocumentClient; requests: Map<string, number> } {
  const doc = createDocumentClient({ endpoint, region: 'us-east-1' });
  const requests = new Map<string, number>();
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      requests.set(String(context.commandName), (requests.get(String(context.commandName)) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  return { doc, requests };
}

/** Every item of a partition, without its key, for comparing what two writers left. */
async function itemsOf(doc: DynamoDBDocumentClient, table: string, pk: string) {
  const found = await doc.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    }),
  );
  return (found.Items ?? []).map(({ pk: _pk, ...item }) => item);
}

describe('the ingest as the only writer', () => {
  let embedded: EmbeddedStores;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-sole-'));
    embedded = await startEmbeddedStores(dataDir, { now: clock });
  });

  afterAll(async () => {
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the lease records the last process that held it, and a holder gives back only its own', async () => {
    const leases = createLeaseStore(embedded.stores.dynamo, TABLES.health.name);
    const name = 'test-lease';
    const first = await leases.acquire(name, 'run-1', 'process-a', Date.now(), Date.now() + 60_000);
    expect(first).toEqual({ acquired: true, previousWriter: null });
    // Held: another cannot take it, and cannot give it back either.
    expect(await leases.acquire(name, 'run-2', 'process-b', Date.now(), Date.now() + 60_000)).toMatchObject({
      acquired: false,
      holder: 'run-1',
    });
    await leases.release(name, 'run-2');
    expect((await leases.acquire(name, 'run-2', 'process-b', Date.now(), Date.now() + 60_000)).acquired).toBe(
      false,
    );
    await leases.release(name, 'run-1');
    expect(await leases.acquire(name, 'run-3', 'process-b', Date.now(), Date.now() + 60_000)).toEqual({
      acquired: true,
      previousWriter: 'process-a',
    });
    await leases.release(name, 'run-3');
    const runs: boolean[] = [];
    const options = { name, writer: 'process-b', ttlMs: 60_000, now: Date.now };
    await withLease(leases, { ...options, holder: 'run-4' }, async ({ continued }) => runs.push(continued));
    await withLease(leases, { ...options, holder: 'run-5', writer: 'process-c' }, async ({ continued }) =>
      runs.push(continued),
    );
    expect(runs).toEqual([true, false]);
    // Another writer waits for a run in progress, then runs under the lease.
    const held = await leases.acquire('ingest', 'cycle-1', 'ingest/x', Date.now(), Date.now() + 60_000);
    expect(held.acquired).toBe(true);
    const order: string[] = [];
    const importing = asAnotherWriter(leases, { writer: 'import/y', ttlMs: 60_000, waitMs: 5_000 })(
      async () => {
        order.push('import');
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    order.push('cycle done');
    await leases.release('ingest', 'cycle-1');
    await importing;
    expect(order).toEqual(['cycle done', 'import']);
    expect(await leases.acquire('ingest', 'cycle-2', 'ingest/x', Date.now(), Date.now() + 60_000)).toEqual({
      acquired: true,
      previousWriter: 'import/y',
    });
    await leases.release('ingest', 'cycle-2');
  });

  it('puts new hours whole, 25 a request, only while the only writer; the items are those of the conditional writes', async () => {
    const ports = Array.from({ length: 30 }, (_, i) => `sole-${i}`);
    const hour = Date.parse('2026-11-21T13:00:00Z');
    const readings = (prefix: string) =>
      ports.flatMap((port, i) => [
        reading(`${prefix}${port}`, hour + 5 * 60_000, i),
        reading(`${prefix}${port}`, hour + 10 * 60_000, i + 1, 'ready'),
      ]);
    const sole = createSoleWriter();
    const alone = countedClient(embedded.endpoints.dynamodb);
    const guarded = countedClient(embedded.endpoints.dynamodb);
    const soleStore = createObservationStore(alone.doc, TABLES.observations.name, clock, sole);
    const guardedStore = createObservationStore(
      guarded.doc,
      TABLES.observations.name,
      clock,
      createSoleWriter(),
    );
    nowMs = hour - 50 * 60_000;
    sole.begin(false, nowMs);
    nowMs = hour + 11 * 60_000;
    await soleStore.putMany(readings('a-'));
    await guardedStore.putMany(readings('b-'));
    expect(Object.fromEntries(alone.requests)).toEqual({ BatchWriteItemCommand: 2 });
    expect(guarded.requests.get('UpdateItemCommand')).toBeGreaterThanOrEqual(30);
    expect(guarded.requests.has('BatchWriteItemCommand')).toBe(false);
    for (const port of ports) {
      expect(await itemsOf(embedded.stores.dynamo, TABLES.observations.name, `a-${port}`)).toEqual(
        await itemsOf(embedded.stores.dynamo, TABLES.observations.name, `b-${port}`),
      );
    }
    // The hour the era started in, and any hour once the cycle is over, are written with a condition.
    alone.requests.clear();
    await soleStore.putMany([reading('a-sole-0', hour - 30 * 60_000, 7)]);
    sole.end();
    await soleStore.putMany([reading('a-sole-1', hour + 2 * HOUR, 7)]);
    expect(alone.requests.has('BatchWriteItemCommand')).toBe(false);
    expect(alone.requests.get('UpdateItemCommand')).toBeGreaterThanOrEqual(2);
    const reader = createObservationStore(embedded.stores.dynamo, TABLES.observations.name, clock);
    expect((await reader.query('a-sole-0', hour - HOUR, hour + HOUR - 1)).map((o) => o.delayMinutes)).toEqual(
      [7, 0, 1],
    );
    alone.doc.destroy();
    guarded.doc.destroy();
  });

  it('a batch put whose answer is lost after it applied: the next write of the hour keeps what arrived', async () => {
    const client = countedClient(embedded.endpoints.dynamodb);
    let failures = 1;
    // The fault: the first batch write reaches the table, and its answer is lost.
    client.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'BatchWriteItemCommand' && failures-- > 0)
          throw new Error('socket hang up');
        return result;
      },
      { step: 'initialize', name: 'loseAnswer' },
    );
    const sole = createSoleWriter();
    const store = createObservationStore(client.doc, TABLES.observations.name, clock, sole);
    const hour = Date.parse('2026-11-21T18:00:00Z');
    sole.begin(false, hour - 30 * 60_000);
    nowMs = hour + 6 * 60_000;
    await expect(store.putMany([reading('lost-answer', hour + 5 * 60_000, 5)])).rejects.toThrow(
      'socket hang up',
    );
    nowMs = hour + 7 * 60_000;
    await store.putMany([reading('lost-answer', hour + 6 * 60_000, 6)]);
    sole.end();
    const reader = createObservationStore(embedded.stores.dynamo, TABLES.observations.name, clock);
    expect((await reader.query('lost-answer', hour, hour + HOUR - 1)).map((o) => o.delayMinutes)).toEqual([
      5, 6,
    ]);
    client.doc.destroy();
  });

  it("an import between two cycles makes the ingest drop what it held: the import's readings survive", async () => {
    const leases = createLeaseStore(embedded.stores.dynamo, TABLES.health.name);
    const hour = Date.parse('2026-11-22T05:00:00Z');
    /** One ingest process: its stores and its fence, its cycles under the lease as the handler runs them. */
    const ingestProcess = (trustBlindly: boolean) => {
      const sole: SoleWriter = createSoleWriter();
      const store = createObservationStore(embedded.stores.dynamo, TABLES.observations.name, clock, sole);
      const writer = `ingest/${Math.random()}`;
      let runs = 0;
      return (work: () => Promise<void>) =>
        withLease(
          leases,
          { name: 'ingest', holder: `${writer}/${++runs}`, writer, ttlMs: 60_000, now: Date.now },
          async ({ continued }) => {
            sole.begin(trustBlindly || continued, clock());
            try {
              await work();
            } finally {
              sole.end();
            }
          },
        ).then(() => store);
    };
    const importer = createObservationStore(embedded.stores.dynamo, TABLES.observations.name, clock);
    const exclusive = asAnotherWriter(leases, { writer: 'import/test', ttlMs: 60_000, waitMs: 5_000 });

    const scenario = async (port: string, trustBlindly: boolean) => {
      const cycle = ingestProcess(trustBlindly);
      // The ingest's era starts the hour before; it writes the port's hour before the import's.
      nowMs = hour - 55 * 60_000;
      let store = await cycle(async () => {});
      store = await cycle(() => store.putMany([reading(port, hour - 50 * 60_000, 3)]));
      // The import writes a reading into the next hour, under the lease.
      nowMs = hour + 20 * 60_000;
      await exclusive(() => importer.putMany([reading(port, hour + 10 * 60_000, 12)]));
      // The ingest's next cycle writes its own reading of that hour.
      await cycle(() => store.putMany([reading(port, hour + 15 * 60_000, 14)]));
      // Read by a process of its own (each writer's store answers a short range from its own writes).
      const reader = createObservationStore(embedded.stores.dynamo, TABLES.observations.name, clock);
      return (await reader.query(port, hour, hour + HOUR - 1)).map((o) => o.delayMinutes);
    };
    expect(await scenario('fenced', false)).toEqual([12, 14]);
    // What the fence is for: a process that trusted what it held would put the hour whole over the
    // import's reading.
    expect(await scenario('unfenced', true)).toEqual([14]);
  });

  it('rollups: buckets and held summaries put whole in batches leave the items and averages of the guarded writes', async () => {
    const contribution = (portId: string, localDate: string, hour: number, minutes: number, count = 2) =>
      ({
        portId,
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        localDate,
        dayOfWeek: new Date(`${localDate}T00:00:00Z`).getUTCDay(),
        hour,
        sum: minutes * count,
        count,
        histogram: { [String(minutes)]: count },
      }) satisfies RollupContribution;
    // Rounds of writes: new buckets, rewritten dates, new dates of the same buckets, and (the clock
    // moving on) dates old enough to be settled, then one written again after its settle.
    const rounds: [number, (port: string) => RollupContribution[]][] = [
      [
        Date.parse('2026-11-07T20:00:00Z'),
        (p) => [contribution(p, '2026-11-07', 8, 10), contribution(p, '2026-11-07', 9, 20)],
      ],
      [
        Date.parse('2026-11-07T21:00:00Z'),
        (p) => [contribution(p, '2026-11-07', 9, 24, 4), contribution(p, '2026-11-07', 10, 5)],
      ],
      [
        Date.parse('2026-11-14T21:00:00Z'),
        (p) => [contribution(p, '2026-11-14', 8, 30), contribution(p, '2026-11-14', 9, 16, 3)],
      ],
      [Date.parse('2026-11-28T21:00:00Z'), (p) => [contribution(p, '2026-11-28', 8, 40)]],
      [
        Date.parse('2026-11-28T22:00:00Z'),
        (p) => [contribution(p, '2026-11-07', 8, 90), contribution(p, '2026-11-28', 9, 12)],
      ],
    ];
    const sole = createSoleWriter();
    const alone = countedClient(embedded.endpoints.dynamodb);
    const soleStore = createRollupStore(alone.doc, TABLES.rollups.name, clock, sole);
    const guardedStore = createRollupStore(embedded.stores.dynamo, TABLES.rollups.name, clock);
    sole.begin(false, rounds[0]?.[0] ?? 0);
    for (const [at, of] of rounds) {
      nowMs = at;
      alone.requests.clear();
      await soleStore.putContributions(of('r-alone'));
      await guardedStore.putContributions(of('r-guarded'));
      // Buckets are read and put in batches; a summary held here is put with them.
      expect(alone.requests.get('BatchWriteItemCommand')).toBeGreaterThanOrEqual(1);
      expect(alone.requests.get('BatchGetItemCommand')).toBe(1);
      // The averages read holds the port's summaries for the next round.
      expect((await soleStore.averages('r-alone')).map(({ portId: _p, ...a }) => a)).toEqual(
        (await guardedStore.averages('r-guarded')).map(({ portId: _p, ...a }) => a),
      );
    }
    // Settling ran (the first dates are folded) on both.
    const soleItems = await itemsOf(embedded.stores.dynamo, TABLES.rollups.name, 'r-alone');
    expect(soleItems.some((item) => typeof item.ft === 'string')).toBe(true);
    expect(soleItems).toEqual(await itemsOf(embedded.stores.dynamo, TABLES.rollups.name, 'r-guarded'));
    alone.doc.destroy();
  });
});
