/**
 * `npm run bench -- history [days,...] [legacy,packed]`: what an ingest cycle's rollup and averages
 * work costs with 7, 14 and 60 days of history for all ports (it should follow the new data, not
 * the history), the DynamoDB read and write capacity units per cycle (`ReturnConsumedCapacity`),
 * and the 336-hour `wait-observations` read at the busiest port (every page: rows stored and
 * returned, median and p99 time, capacity units), for the legacy layout (one item per reading, one
 * rollup item per lane and hour of week) and the packed one, on the embedded stores. The stores run
 * in a process of their own (as DynamoDB does in AWS), so the CPU figures are the function's.
 *
 * Each level starts from empty stores seeded with that much history from the feed simulator's model
 * (hourly readings of every catalogue port, every 5 minutes at the busiest: raw observations for
 * the last 14 days at most, as TTL leaves them, and rollups for every day, settled as the ingest
 * settles them), then runs ingest cycles
 * over the following simulated hours with timers around the store calls.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLegacyObservationStore } from '../../functions/adapters/dynamo/legacy-observations.ts';
import {
  createLegacyRollupStore,
  loadLegacyRollups,
} from '../../functions/adapters/dynamo/legacy-rollups.ts';
import { loadObservations } from '../../functions/adapters/dynamo/observations.ts';
import { loadRollups } from '../../functions/adapters/dynamo/rollups.ts';
import { createHttpFeedSource } from '../../functions/adapters/http-feed/source.ts';
import { createStores } from '../../functions/adapters/stores.ts';
import { parseConfig, StoreConfigSchema, storeSettingsOf } from '../../functions/config.ts';
import { createReadApi } from '../../functions/core/api/read-api.ts';
import { PORTS } from '../../functions/core/catalogue/catalogue.ts';
import {
  contributionsOfDay,
  localBucketOf,
  type RollupContribution,
} from '../../functions/core/history/rollups.ts';
import { runIngestCycle } from '../../functions/core/ingest/ingest.ts';
import type { Observation } from '../../functions/core/model.ts';
import { MAX_OBSERVATIONS } from '../../functions/core/views/queries.ts';
import { isAutomated, observationsSeen } from '../../infra/local/simulator/model.ts';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { RETENTION_HOURS, TABLES } from '../../infra/manifest.ts';
import { meterCapacity } from './_capacity.ts';
import { startStoresProcess } from './_remote.ts';
import { median, percentile, timeRuns } from './_stats.ts';

const LEVELS = (process.argv[2] ?? '7,14,60').split(',').map(Number);
const LAYOUTS = (process.argv[3] ?? 'legacy,packed').split(',') as Layout[];
type Layout = 'legacy' | 'packed';
const CYCLES = 6;
// A p99 of 40 runs would be their slowest: 100 make it the second slowest.
const QUERIES = 100;
const HOUR = 3_600_000;
const START = Date.parse('2026-11-20T06:07:00Z');
const BUSY_PORT = PORTS.find((port) => isAutomated(port, 'passenger'))?.id ?? '090101';

/** Process CPU milliseconds since `started` (user + system, every thread). */
function cpuMs(started: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/** Every simulated observation of every port over `days` ending at `endMs`: hourly, every 5 minutes for the busy port. */
function history(days: number, endMs: number): Observation[] {
  const fetchedAt = new Date(endMs).toISOString();
  const out: Observation[] = [];
  for (const port of PORTS) {
    const step = port.id === BUSY_PORT ? 5 * 60_000 : HOUR;
    const instants: number[] = [];
    for (let t = endMs - days * 24 * HOUR; t < endMs; t += step) instants.push(t);
    for (const o of observationsSeen(port, instants)) {
      out.push({ ...o, maxLanes: null, fetchedAt } as unknown as Observation);
    }
  }
  return out;
}

function rollupsOf(observations: readonly Observation[]): RollupContribution[] {
  const days = new Map<string, { portId: string; localDate: string; zone: string; list: Observation[] }>();
  for (const o of observations) {
    const zone = PORTS.find((p) => p.id === o.portId)?.timeZone ?? 'America/New_York';
    const { localDate } = localBucketOf(Date.parse(o.observedAt), zone);
    const key = `${o.portId}|${localDate}`;
    const day = days.get(key) ?? { portId: o.portId, localDate, zone, list: [] };
    day.list.push(o);
    days.set(key, day);
  }
  return [...days.values()].flatMap((d) => contributionsOfDay(d.portId, d.localDate, d.zone, d.list));
}

interface Figures {
  layout: Layout;
  days: number;
  seedSeconds: number;
  rollupMs: number;
  averagesMs: number;
  cycleMs: number;
  cycleRcu: number;
  cycleWcu: number;
  /** Units of the two history tables (observations and rollups) alone. */
  historyRcu: number;
  historyWcu: number;
  newObservations: number;
  /** The function's CPU (the stores run in another process): median per cycle, mean per query. */
  cycleCpuMs: number;
  queryCpuMs: number;
  queryMedianMs: number;
  queryP99Ms: number;
  queryStored: number;
  queryReturned: number;
  queryRcu: number;
}

async function level(days: number, layout: Layout): Promise<Figures> {
  let nowMs = START;
  const clock = { now: () => nowMs };
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-history-'));
  const simulator = await startSimulator({ clock });
  const remote = await startStoresProcess(dataDir, 'stores');
  const adapters = createStores(
    storeSettingsOf(
      parseConfig(StoreConfigSchema, {
        AWS_ENDPOINT_URL_DYNAMODB: remote.endpoints.dynamodb,
        AWS_ENDPOINT_URL_S3: remote.endpoints.s3,
      }),
    ),
    clock,
  );
  try {
    // The forecast step has its own bench (bench -- forecast): these figures are the history's.
    const { forecasts: _forecasts, ...stores } = adapters;
    const capacity = meterCapacity(stores.dynamo);
    const legacyObservations = createLegacyObservationStore(
      stores.dynamo,
      TABLES.observations.name,
      clock.now,
    );
    const base =
      layout === 'legacy'
        ? {
            ...stores,
            // The legacy store has no pages: the ingest never asks for them, the read below neither.
            observations: legacyObservations as typeof stores.observations,
            rollups: createLegacyRollupStore(stores.dynamo, TABLES.rollups.name, clock.now),
          }
        : stores;
    const seedStarted = performance.now();
    // The seed's own arrays (a million readings at 60 days) live only in this call, so they do not
    // stay on the heap (and in every garbage collection) while the cycles and queries are timed.
    await (async () => {
      const all = history(days, START);
      const rawFrom = START - RETENTION_HOURS * HOUR;
      const raw = all.filter((o) => Date.parse(o.observedAt) >= rawFrom);
      if (layout === 'legacy') {
        await legacyObservations.putMany(raw);
        await loadLegacyRollups(stores.dynamo, TABLES.rollups.name, rollupsOf(all));
      } else {
        await loadObservations(stores.dynamo, TABLES.observations.name, raw);
        // Rollups as the ingest leaves them at START: dates past the settle age folded into totals.
        await loadRollups(stores.dynamo, TABLES.rollups.name, rollupsOf(all), START);
      }
    })();
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const timers = { rollup: 0, averages: 0 };
    const timed =
      <A extends unknown[], R>(fn: (...args: A) => Promise<R>, slot: keyof typeof timers) =>
      async (...args: A): Promise<R> => {
        const started = performance.now();
        try {
          return await fn(...args);
        } finally {
          timers[slot] += performance.now() - started;
        }
      };
    const deps = {
      ...base,
      observations: { ...base.observations, query: timed(base.observations.query, 'rollup') },
      rollups: {
        putContributions: timed(base.rollups.putContributions, 'rollup'),
        averages: timed(base.rollups.averages, 'averages'),
      },
      sources: [
        createHttpFeedSource({ source: 'cbp', url: simulator.cbpXmlUrl }),
        createHttpFeedSource({ source: 'cbsa', url: simulator.cbsaEnUrl }),
      ],
      clock,
    };
    // The first cycle publishes every port's documents; the measured ones follow it, an hour apart.
    await runIngestCycle(deps);
    const rollup: number[] = [];
    const averages: number[] = [];
    const cycles: number[] = [];
    const cycleCpu: number[] = [];
    const rcu: number[] = [];
    const wcu: number[] = [];
    const historyRcu: number[] = [];
    const historyWcu: number[] = [];
    const historyUnits = (kind: 'read' | 'write') =>
      [TABLES.observations.name, TABLES.rollups.name].reduce(
        (sum, name) => sum + (capacity.tables.get(name)?.[kind] ?? 0),
        0,
      );
    let newObservations = 0;
    for (let i = 1; i <= CYCLES; i++) {
      nowMs = START + i * HOUR;
      simulator.setClock(nowMs);
      timers.rollup = 0;
      timers.averages = 0;
      capacity.reset();
      const started = performance.now();
      const startedCpu = process.cpuUsage();
      const outcomes = await runIngestCycle(deps);
      cycles.push(performance.now() - started);
      cycleCpu.push(cpuMs(startedCpu));
      rcu.push(capacity.read);
      wcu.push(capacity.write);
      historyRcu.push(historyUnits('read'));
      historyWcu.push(historyUnits('write'));
      rollup.push(timers.rollup);
      averages.push(timers.averages);
      newObservations += outcomes.reduce((sum, o) => sum + o.newObservations, 0);
    }

    // The 336-hour read at the busiest port: the legacy API read the newest 10,000 (one more to know
    // whether some were left off); the packed one reads every page.
    const toMs = nowMs;
    const queryStored = (await legacyOrPackedAll(base.observations, toMs)).length;
    const readApi = createReadApi({ documents: stores.documents, observations: stores.observations, clock });
    let queryReturned = 0;
    const read = async () => {
      if (layout === 'legacy') {
        const found = await legacyObservations.query(
          BUSY_PORT,
          toMs - RETENTION_HOURS * HOUR,
          toMs,
          {},
          MAX_OBSERVATIONS + 1,
        );
        return Math.min(found.length, MAX_OBSERVATIONS);
      }
      let count = 0;
      let cursor: string | undefined;
      do {
        const page = await readApi.observations({ port_id: BUSY_PORT, hours: RETENTION_HOURS, cursor });
        count += page.body.count;
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      return count;
    };
    capacity.reset();
    queryReturned = await read();
    const queryRcu = capacity.read;
    const queryCpuStarted = process.cpuUsage();
    const queries = await timeRuns(read, QUERIES, 2);
    const queryCpuMs = cpuMs(queryCpuStarted) / (QUERIES + 2);
    return {
      layout,
      days,
      seedSeconds,
      rollupMs: median(rollup),
      averagesMs: median(averages),
      cycleMs: median(cycles),
      cycleCpuMs: median(cycleCpu),
      queryCpuMs,
      cycleRcu: median(rcu),
      cycleWcu: median(wcu),
      historyRcu: median(historyRcu),
      historyWcu: median(historyWcu),
      newObservations: Math.round(newObservations / CYCLES),
      queryMedianMs: median(queries),
      queryP99Ms: percentile(queries, 99),
      queryStored,
      queryReturned,
      queryRcu,
    };
  } finally {
    await simulator.stop();
    adapters.dynamo.destroy();
    adapters.s3.destroy();
    await remote.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Every stored observation of the busiest port's 336-hour window, whatever the layout. */
function legacyOrPackedAll(
  store: { query(portId: string, fromMs: number, toMs: number): Promise<Observation[]> },
  toMs: number,
): Promise<Observation[]> {
  return store.query(BUSY_PORT, toMs - RETENTION_HOURS * HOUR, toMs);
}

console.log(
  `history benchmark: ${PORTS.length} ports, ${CYCLES} ingest cycles per level (median), ` +
    `wait-observations?port_id=${BUSY_PORT}&hours=336 (every page) x${QUERIES}`,
);
console.log(
  'layout  days  seed(s)  new obs  rollup ms  averages ms  cycle ms (cpu)  RCU/cycle (history)  WCU/cycle (history) | 336h query: stored  returned  median ms  p99 ms  cpu ms  RCU',
);
const results: Figures[] = [];
for (const layout of LAYOUTS) {
  for (const days of LEVELS) {
    const f = await level(days, layout);
    results.push(f);
    console.log(
      `${f.layout.padEnd(6)}  ${String(f.days).padStart(4)}  ${f.seedSeconds.toFixed(1).padStart(7)}  ${String(f.newObservations).padStart(7)}  ` +
        `${f.rollupMs.toFixed(0).padStart(9)}  ${f.averagesMs.toFixed(0).padStart(11)}  ${`${f.cycleMs.toFixed(0)} (${f.cycleCpuMs.toFixed(0)})`.padStart(14)}  ` +
        `${`${f.cycleRcu.toFixed(1)} (${f.historyRcu.toFixed(1)})`.padStart(19)}  ${`${f.cycleWcu.toFixed(1)} (${f.historyWcu.toFixed(1)})`.padStart(19)} | ` +
        `${String(f.queryStored).padStart(18)}  ${String(f.queryReturned).padStart(8)}  ${f.queryMedianMs.toFixed(1).padStart(9)}  ` +
        `${f.queryP99Ms.toFixed(1).padStart(6)}  ${f.queryCpuMs.toFixed(1).padStart(6)}  ${f.queryRcu.toFixed(1).padStart(5)}`,
    );
  }
}
console.log(
  `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores (wall times grow with it; CPU less so)`,
);
for (const layout of LAYOUTS) {
  const mine = results.filter((f) => f.layout === layout);
  const base = mine.find((f) => f.days === 7) ?? mine[0];
  if (!base) continue;
  for (const f of mine.filter((r) => r.days > base.days)) {
    console.log(
      `${layout} ${f.days} days vs ${base.days}: rollup x${(f.rollupMs / base.rollupMs).toFixed(2)}, ` +
        `averages x${(f.averagesMs / base.averagesMs).toFixed(2)}, cycle x${(f.cycleMs / base.cycleMs).toFixed(2)} ` +
        `(cpu x${(f.cycleCpuMs / base.cycleCpuMs).toFixed(2)}), ` +
        `query x${(f.queryMedianMs / base.queryMedianMs).toFixed(2)} (cpu x${(f.queryCpuMs / base.queryCpuMs).toFixed(2)}) (flat is ~1), query per stored row ` +
        `x${(f.queryMedianMs / f.queryStored / (base.queryMedianMs / base.queryStored)).toFixed(2)} ` +
        `(a window shorter than 336 h holds fewer rows: ${base.queryStored} at ${base.days} days, ${f.queryStored} at ${f.days})`,
    );
  }
}
for (const days of LEVELS) {
  const legacy = results.find((f) => f.layout === 'legacy' && f.days === days);
  const packed = results.find((f) => f.layout === 'packed' && f.days === days);
  if (legacy && packed) {
    console.log(
      `${days} days, legacy / packed: RCU per cycle x${(legacy.cycleRcu / packed.cycleRcu).toFixed(1)} ` +
        `(history tables x${(legacy.historyRcu / packed.historyRcu).toFixed(1)}), ` +
        `WCU per cycle x${(legacy.cycleWcu / packed.cycleWcu).toFixed(1)} (history tables x${(legacy.historyWcu / packed.historyWcu).toFixed(1)}), ` +
        `RCU per 336 h query x${(legacy.queryRcu / packed.queryRcu).toFixed(1)}`,
    );
  }
}
