/**
 * `npm run migrate` on a data folder written by the layout before the packed one: the ingest runs
 * three weeks with the legacy observation and rollup stores (so old dates are settled the legacy
 * way too), then the migration moves everything. Afterwards the packed layout returns the very
 * observations and averages the legacy layout did, no legacy item is left, and a second run changes
 * nothing. Crashes injected at several points of a migration, each followed by the command, end
 * in the same state.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createLegacyObservationStore } from '../../functions/adapters/dynamo/legacy-observations.ts';
import { createLegacyRollupStore } from '../../functions/adapters/dynamo/legacy-rollups.ts';
import { migrateHistory } from '../../functions/adapters/dynamo/migrate.ts';
import { createHttpFeedSource } from '../../functions/adapters/http-feed/source.ts';
import { createStores } from '../../functions/adapters/stores.ts';
import { parseConfig, StoreConfigSchema, storeSettingsOf } from '../../functions/config.ts';
import { type IngestDeps, runIngestCycle } from '../../functions/core/ingest/ingest.ts';
import type { HourlyAverage, Observation } from '../../functions/core/model.ts';
import type { ObservationStore } from '../../functions/core/stores.ts';
import { startDynamoOwner } from '../../infra/local/dynamo.ts';
import { startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { TABLES } from '../../infra/manifest.ts';
import { runScript, type ScriptRun } from './cli.ts';

const SCRIPT = new URL('../../scripts/migrate.ts', import.meta.url).pathname;
const HOUR = 3_600_000;
const START = Date.parse('2026-10-28T05:10:00Z');
const END = START + 21 * 24 * HOUR;
const PORTS = ['090101', '250401', 'cbsa-north-portal'];
const TABLE_NAMES = { observations: TABLES.observations.name, rollups: TABLES.rollups.name };

interface Snapshot {
  observations: Record<string, Observation[]>;
  averages: Record<string, HourlyAverage[]>;
}

function migrate(dataDir: string): Promise<ScriptRun> {
  return runScript(SCRIPT, [], { DATA_DIR: dataDir });
}

/** Items of the legacy layout still in the tables. */
async function legacyItems(doc: DynamoDBDocumentClient): Promise<number> {
  let count = 0;
  for (const [table, filter, values] of [
    [TABLES.observations.name, 'NOT begins_with(sk, :h)', { ':h': 'h#' }],
    [
      TABLES.rollups.name,
      'NOT begins_with(sk, :w) AND NOT begins_with(sk, :avg)',
      { ':w': 'w#', ':avg': 'avg#' },
    ],
  ] as const) {
    const page = await doc.send(
      new ScanCommand({ TableName: table, FilterExpression: filter, ExpressionAttributeValues: values }),
    );
    count += page.Items?.length ?? 0;
  }
  return count;
}

/** What a data folder holds, read with the packed layout's stores. */
async function readPacked(dataDir: string): Promise<Snapshot & { legacy: number }> {
  const dynamo = await startDynamoOwner(dataDir);
  const stores = createStores(
    storeSettingsOf(parseConfig(StoreConfigSchema, { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint })),
    {
      now: () => END,
    },
  );
  try {
    const snapshot: Snapshot = { observations: {}, averages: {} };
    for (const id of PORTS) {
      snapshot.observations[id] = await stores.observations.query(id, 0, END + 24 * HOUR);
      // The public fields: the legacy layout kept no recency-weighted centres to compare.
      snapshot.averages[id] = (await stores.rollups.averages(id)).map(({ recent: _, ...average }) => average);
    }
    return { ...snapshot, legacy: await legacyItems(stores.dynamo) };
  } finally {
    stores.dynamo.destroy();
    stores.s3.destroy();
    await dynamo.close();
  }
}

/** Runs the migration in this process on a client that dies right after its `crashAt`-th request. */
async function crashingMigration(dataDir: string, crashAt: number): Promise<number> {
  const dynamo = await startDynamoOwner(dataDir);
  const doc = createDocumentClient({ endpoint: dynamo.endpoint });
  let requests = 0;
  let dead = false;
  const inFlight = new Set<Promise<unknown>>();
  // After the crash nothing more is sent; requests already sent complete (they reached the table).
  const dying = new Proxy(doc, {
    get(target, property) {
      if (property !== 'send') return Reflect.get(target, property);
      return async (command: Parameters<DynamoDBDocumentClient['send']>[0]) => {
        if (dead) throw new Error('injected: the process is gone');
        const sent = target.send(command);
        inFlight.add(sent);
        try {
          const result = await sent;
          if (++requests === crashAt) dead = true;
          if (dead) throw new Error('injected: the migration died here');
          return result;
        } finally {
          inFlight.delete(sent);
        }
      };
    },
  });
  try {
    await migrateHistory(dying, TABLE_NAMES, () => END);
  } catch (error: unknown) {
    if (!(error instanceof Error && error.message.startsWith('injected'))) throw error;
  } finally {
    await Promise.allSettled([...inFlight]);
    doc.destroy();
    await dynamo.close();
  }
  return requests;
}

describe('npm run migrate on a data folder of the legacy layout', () => {
  let root: string;
  let legacyDir: string;
  let before: Snapshot;
  let cleanRequests = 0;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'border-waits-migrate-'));
    legacyDir = join(root, 'legacy');
    let nowMs = START;
    const clock = { now: () => nowMs };
    const simulator = await startSimulator({ clock, ports: PORTS });
    const embedded = await startEmbeddedStores(legacyDir, clock);
    try {
      const { stores } = embedded;
      const observations = createLegacyObservationStore(stores.dynamo, TABLES.observations.name, clock.now);
      const rollups = createLegacyRollupStore(stores.dynamo, TABLES.rollups.name, clock.now);
      const deps: IngestDeps = {
        ...stores,
        // The legacy store has no pages; the ingest never asks for them.
        observations: observations as ObservationStore,
        rollups,
        sources: [
          createHttpFeedSource({ source: 'cbp', url: simulator.cbpXmlUrl, timeoutMs: 5_000 }),
          createHttpFeedSource({ source: 'cbsa', url: simulator.cbsaEnUrl, timeoutMs: 5_000 }),
        ],
        clock,
      };
      for (nowMs = START; nowMs <= END; nowMs += 4 * HOUR + 7 * 60_000) {
        simulator.setClock(nowMs);
        await runIngestCycle(deps);
      }
      nowMs = END;
      before = { observations: {}, averages: {} };
      for (const id of PORTS) {
        before.observations[id] = await observations.query(id, 0, END + 24 * HOUR);
        before.averages[id] = await rollups.averages(id);
      }
    } finally {
      await simulator.stop();
      await embedded.stop();
    }
  }, 300_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('the legacy folder holds observations, settled and unsettled rollups of every port', () => {
    for (const id of PORTS) {
      expect(before.observations[id]?.length).toBeGreaterThan(20);
      expect(before.averages[id]?.length).toBeGreaterThan(20);
    }
  });

  it('moves everything: same observations, same averages, no legacy item; a second run changes nothing', async () => {
    const dir = join(root, 'clean');
    await cp(legacyDir, dir, { recursive: true });
    const first = await migrate(dir);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/migrated: [1-9]\d* observations, [1-9]\d* rollup items/);
    const after = await readPacked(dir);
    expect(after.legacy).toBe(0);
    expect(after.observations).toEqual(before.observations);
    expect(after.averages).toEqual(before.averages);

    const second = await migrate(dir);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('migrated: 0 observations, 0 rollup items');
    expect(await readPacked(dir)).toEqual(after);

    // How many requests a whole migration makes, for the crash points below.
    const counted = join(root, 'counted');
    await cp(legacyDir, counted, { recursive: true });
    cleanRequests = await crashingMigration(counted, Number.POSITIVE_INFINITY);
    expect(cleanRequests).toBeGreaterThan(10);
  }, 240_000);

  it.each([0.05, 0.3, 0.6, 0.9, 0.99])(
    'a crash %f of the way through, then npm run migrate, ends in the same state',
    async (fraction) => {
      const dir = join(root, `crash-${fraction}`);
      await cp(legacyDir, dir, { recursive: true });
      const crashAt = Math.max(1, Math.floor(cleanRequests * fraction));
      expect(await crashingMigration(dir, crashAt)).toBeGreaterThanOrEqual(crashAt);
      const rerun = await migrate(dir);
      expect(rerun.code).toBe(0);
      const after = await readPacked(dir);
      expect(after.legacy).toBe(0);
      expect(after.observations).toEqual(before.observations);
      expect(after.averages).toEqual(before.averages);
    },
    240_000,
  );
});
