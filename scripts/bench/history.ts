/**
 * `npm run bench -- history`: what an ingest cycle's rollup work costs with 1, 7, 14 and 60 days of
 * history for all ports (it should follow the new data, not the history), and a 336-hour
 * `wait-observations` read for a busy port (median and p99), on the embedded stores.
 *
 * Each level starts from empty stores seeded with that much history from the feed simulator's model
 * (hourly readings of every catalogue port: raw observations for the last 14 days at most, as TTL
 * leaves them, and rollups for every day), then runs ingest cycles over the following simulated
 * hours with timers around the store calls.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRollups } from '../../functions/adapters/dynamo/rollups.ts';
import { createHttpFeedSource } from '../../functions/adapters/http-feed/source.ts';
import { PORTS } from '../../functions/core/catalogue.ts';
import { runIngestCycle } from '../../functions/core/ingest.ts';
import type { Observation } from '../../functions/core/model.ts';
import { createReadApi } from '../../functions/core/read-api.ts';
import { contributionsOfDay, localBucketOf, type RollupContribution } from '../../functions/core/rollups.ts';
import { startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { isAutomated, observationsSeen } from '../../infra/local/simulator/model.ts';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { RETENTION_HOURS, TABLES } from '../../infra/manifest.ts';
import { median, percentile, timeRuns } from './_stats.ts';

const LEVELS = (process.argv[2] ?? '1,7,14,60').split(',').map(Number);
const CYCLES = 6;
const QUERIES = 40;
const HOUR = 3_600_000;
const START = Date.parse('2026-11-20T06:07:00Z');
const BUSY_PORT = PORTS.find((port) => isAutomated(port, 'passenger'))?.id ?? '090101';

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
  days: number;
  seedSeconds: number;
  rollupMs: number;
  averagesMs: number;
  cycleMs: number;
  newObservations: number;
  queryMedianMs: number;
  queryP99Ms: number;
  queryCount: number;
}

async function level(days: number): Promise<Figures> {
  let nowMs = START;
  const clock = { now: () => nowMs };
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-history-'));
  const simulator = await startSimulator({ clock });
  const embedded = await startEmbeddedStores(dataDir, clock);
  try {
    const { stores } = embedded;
    const seedStarted = performance.now();
    const all = history(days, START);
    const rawFrom = START - RETENTION_HOURS * HOUR;
    await stores.observations.putMany(all.filter((o) => Date.parse(o.observedAt) >= rawFrom));
    await loadRollups(stores.dynamo, TABLES.rollups.name, rollupsOf(all));
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
      ...stores,
      observations: { ...stores.observations, query: timed(stores.observations.query, 'rollup') },
      rollups: {
        putContributions: timed(stores.rollups.putContributions, 'rollup'),
        averages: timed(stores.rollups.averages, 'averages'),
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
    let newObservations = 0;
    for (let i = 1; i <= CYCLES; i++) {
      nowMs = START + i * HOUR;
      simulator.setClock(nowMs);
      timers.rollup = 0;
      timers.averages = 0;
      const started = performance.now();
      const outcomes = await runIngestCycle(deps);
      cycles.push(performance.now() - started);
      rollup.push(timers.rollup);
      averages.push(timers.averages);
      newObservations += outcomes.reduce((sum, o) => sum + o.newObservations, 0);
    }

    const readApi = createReadApi({ documents: stores.documents, observations: stores.observations, clock });
    let queryCount = 0;
    const queries = await timeRuns(async () => {
      const result = await readApi.observations({ port_id: BUSY_PORT, hours: 336 });
      queryCount = result.body.count;
    }, QUERIES);
    return {
      days,
      seedSeconds,
      rollupMs: median(rollup),
      averagesMs: median(averages),
      cycleMs: median(cycles),
      newObservations: Math.round(newObservations / CYCLES),
      queryMedianMs: median(queries),
      queryP99Ms: percentile(queries, 99),
      queryCount,
    };
  } finally {
    await simulator.stop();
    await embedded.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

console.log(
  `history benchmark: ${PORTS.length} ports, ${CYCLES} ingest cycles per level (median), ` +
    `wait-observations?port_id=${BUSY_PORT}&hours=336 x${QUERIES}`,
);
console.log(
  'days  seed(s)  new obs/cycle  rollup ms  averages ms  cycle ms  | 336h query: rows  median ms  p99 ms',
);
const results: Figures[] = [];
for (const days of LEVELS) {
  const f = await level(days);
  results.push(f);
  console.log(
    `${String(f.days).padStart(4)}  ${f.seedSeconds.toFixed(1).padStart(7)}  ${String(f.newObservations).padStart(13)}  ` +
      `${f.rollupMs.toFixed(0).padStart(9)}  ${f.averagesMs.toFixed(0).padStart(11)}  ${f.cycleMs.toFixed(0).padStart(8)}  | ` +
      `${String(f.queryCount).padStart(17)}  ${f.queryMedianMs.toFixed(0).padStart(9)}  ${f.queryP99Ms.toFixed(0).padStart(6)}`,
  );
}
// Below a week some hour x weekday buckets are still empty; from 7 days on, every bucket exists.
const base = results.find((f) => f.days === 7) ?? results[0];
if (base) {
  for (const f of results.filter((r) => r.days > base.days)) {
    console.log(
      `${f.days} days vs ${base.days}: rollup x${(f.rollupMs / base.rollupMs).toFixed(2)}, ` +
        `averages read x${(f.averagesMs / base.averagesMs).toFixed(2)}, cycle x${(f.cycleMs / base.cycleMs).toFixed(2)} (flat is ~1)`,
    );
  }
}
