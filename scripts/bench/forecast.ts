/**
 * `npm run bench -- forecast`: the compute of one forecast slot for every lane of every catalogue
 * port (merge the 28-day record, score the due target, issue the slot, build the documents and the
 * skill summary), in memory, median of several runs; and the size of what is published and stored.
 *
 * Inputs come from the feed simulator's model, as a service that has run for weeks holds them:
 * three weeks of hourly readings for the profiles, 5-minute readings for the last three days, a
 * day's record of scores at every horizon up to +24 h (the slots of the two days before the
 * measured one issued, the last day's targets scored), copied over 28 days (a full window); the
 * measured slot reads what the service reads, the issues aimed at its due target and 25 hours of
 * readings.
 */

import { createHash } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { PORTS } from '../../functions/core/catalogue/catalogue.ts';
import {
  HISTORY_MS,
  HORIZONS_MINUTES,
  type IssuedPort,
  issuePort,
  type LaneId,
  type LaneReading,
  laneKeyOf,
  profileFromAverages,
  SLOT_MS,
} from '../../functions/core/forecast/forecast.ts';
import { portForecastBody, skillSummaryBody } from '../../functions/core/forecast/forecast-views.ts';
import {
  championOf,
  dueTargets,
  learnerOf,
  mergeRecords,
  type PortRecord,
  quantilerOf,
  RECORD_DAYS,
  scoreTargets,
} from '../../functions/core/forecast/skill.ts';
import {
  averagesFromContributions,
  contributionsOfDay,
  localBucketOf,
} from '../../functions/core/history/rollups.ts';
import type { HourlyAverage, Observation } from '../../functions/core/model.ts';
import { observationsSeen } from '../../infra/local/simulator/model.ts';
import { median, percentile, timeRuns } from './_stats.ts';

const HOUR = 3_600_000;
const SLOT = Date.parse('2026-11-18T17:00:00Z');
const RUNS = Number(process.argv[2] ?? 15);

interface PortInput {
  id: string;
  timeZone: string;
  border: 'mx' | 'ca';
  lanes: LaneId[];
  readings: Map<string, LaneReading[]>;
  profile: ReturnType<typeof profileFromAverages>;
  pending: IssuedPort[];
  /** The settled window (26 days) and the two live days, as a slot reads them. */
  window: PortRecord;
  days: PortRecord[];
}

function averagesOf(portId: string, zone: string, observations: readonly Observation[]): HourlyAverage[] {
  const byDate = new Map<string, Observation[]>();
  for (const o of observations) {
    const { localDate } = localBucketOf(Date.parse(o.observedAt), zone);
    const list = byDate.get(localDate) ?? [];
    list.push(o);
    byDate.set(localDate, list);
  }
  const contributions = [...byDate].flatMap(([date, list]) => contributionsOfDay(portId, date, zone, list));
  const buckets = new Map<string, Parameters<typeof averagesFromContributions>[1][number]>();
  for (const c of contributions) {
    const key = `${c.direction}#${c.mode}#${c.lane}#${c.dayOfWeek}#${c.hour}`;
    const bucket = buckets.get(key) ?? { ...c, dates: [] };
    (bucket.dates as { sum: number; count: number; histogram: Record<string, number> }[]).push(c);
    buckets.set(key, bucket);
  }
  return averagesFromContributions(portId, [...buckets.values()]);
}

const issue = (port: PortInput, slot: number, record: PortRecord, parts: readonly PortRecord[] = [record]) =>
  issuePort({
    portId: port.id,
    timeZone: port.timeZone,
    border: port.border,
    issuedAtMs: slot,
    profile: port.profile,
    lanes: port.lanes.map((lane) => ({
      lane,
      readings: (port.readings.get(laneKeyOf(lane)) ?? []).filter((r) => r.atMs <= slot),
    })),
    quantiles: quantilerOf(parts),
    champion: (lane, h, available) => championOf(record, lane, h, available),
    learned: learnerOf(record),
  });

/** Readings are kept from this far back: the day-earlier anomaly of the record's oldest issue (see below). */
const READINGS_FROM = SLOT - (2 * 24 + 26) * HOUR;

function prepare(): PortInput[] {
  return PORTS.map((port) => {
    const hourly: number[] = [];
    for (let t = SLOT - 21 * 24 * HOUR; t < READINGS_FROM; t += HOUR) hourly.push(t + 4 * 60_000);
    const recent: number[] = [];
    for (let t = READINGS_FROM; t <= SLOT; t += 5 * 60_000) recent.push(t);
    const history = observationsSeen(port, [...hourly, ...recent]).map(
      (o): Observation => ({ ...o, maxLanes: null, fetchedAt: o.observedAt }),
    );
    const all = new Map<string, LaneReading[]>();
    const lanes = new Map<string, LaneId>();
    for (const o of history) {
      if (Date.parse(o.observedAt) < READINGS_FROM) continue;
      const key = laneKeyOf(o);
      lanes.set(key, { direction: o.direction, mode: o.mode, lane: o.lane });
      let list = all.get(key);
      if (!list) {
        list = [];
        all.set(key, list);
      }
      list.push({ atMs: Date.parse(o.observedAt), delayMinutes: o.delayMinutes });
    }
    const input: PortInput = {
      id: port.id,
      timeZone: port.timeZone,
      border: port.border,
      lanes: [...lanes.values()],
      readings: all,
      profile: profileFromAverages(averagesOf(port.id, port.timeZone, history)),
      pending: [],
      window: {},
      days: [],
    };
    // A day of scores at every horizon: the slots of the two days before the measured one are
    // issued, and the last day's targets (one a slot) scored, so every horizon up to +24 h has a
    // record, as a service running for a while has, and intervals and champions come from it.
    const issued: IssuedPort[] = [];
    let record: PortRecord = {};
    for (let slot = SLOT - 2 * 24 * 4 * SLOT_MS; slot < SLOT; slot += SLOT_MS) {
      if (slot >= SLOT - 24 * 4 * SLOT_MS) {
        const scored = scoreTargets([slot - SLOT_MS], issued, all);
        record = mergeRecords([record, ...scored.values()]);
      }
      issued.push(issue(input, slot, record));
    }
    // What the measured slot reads, as the service reads it: the issues aimed at its due target
    // (one per horizon), and the last 25 hours of readings.
    const target = SLOT - SLOT_MS;
    const aimed = new Set(HORIZONS_MINUTES.map((h) => target - h * 60_000));
    input.pending = issued.filter((p) => aimed.has(Date.parse(p.issuedAt)));
    input.readings = new Map(
      [...all].map(([key, list]) => [key, list.filter((r) => r.atMs >= SLOT - HISTORY_MS)]),
    );
    input.days = [record, record];
    input.window = mergeRecords(Array.from({ length: RECORD_DAYS - 2 }, () => record));
    return input;
  });
}

/** One slot's compute for every port: what the ingest's forecast step does between its reads and writes. */
function cycle(ports: readonly PortInput[]) {
  const records: PortRecord[] = [];
  const bodies: string[] = [];
  let lanes = 0;
  for (const port of ports) {
    const targets = dueTargets(SLOT, new Map([[new Date(SLOT).toISOString().slice(0, 10), null]])).slice(-1);
    const scored = scoreTargets(targets, port.pending, port.readings);
    const parts = [port.window, ...port.days, ...scored.values()];
    const merged = mergeRecords(parts, { slot: true });
    const issued = issue(port, SLOT, merged, parts);
    lanes += issued.lanes.length;
    bodies.push(JSON.stringify(portForecastBody(port.id, issued, merged)));
    records.push(merged);
  }
  const summary = JSON.stringify(skillSummaryBody(new Date(SLOT).toISOString(), records));
  return { bodies, summary, lanes, records };
}

const prepared = performance.now();
const ports = prepare();
const prepareSeconds = (performance.now() - prepared) / 1000;
const sample = cycle(ports);
const times = await timeRuns(() => cycle(ports), RUNS, 2);
// CPU time of the same work: on a shared machine the wall clock also counts other processes' turns.
const cpu: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const before = process.cpuUsage();
  cycle(ports);
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1000);
}
// Once a day per port the settled window is rebuilt from 26 day records.
const rebuild = await timeRuns(
  () => {
    for (const port of ports) mergeRecords(Array.from({ length: RECORD_DAYS - 2 }, () => port.days[0] ?? {}));
  },
  3,
  1,
);
// What the slot published, hashed: a speed-up must leave it to the byte, and a cycle that changed
// its inputs would publish something else the next time.
const digest = (run: ReturnType<typeof cycle>) =>
  createHash('sha256').update(run.bodies.join('\n')).update(run.summary).digest('hex').slice(0, 16);
const again = cycle(ports);
const sizes = sample.bodies.map((b) => Buffer.byteLength(b));
const withLanes = ports.filter((p) => p.lanes.length > 0).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const pendingBytes = ports.map((p) => Buffer.byteLength(JSON.stringify(p.pending.at(-1)?.lanes ?? [])));
// A day's record as stored (with its error histograms; the slot's merged record leaves them out).
const dayBytes = ports.map((p) => Buffer.byteLength(JSON.stringify(p.days[0] ?? {})));

console.log(
  `forecast bench: ${ports.length} ports (${withLanes} with lanes), ${sample.lanes} lanes, ${RUNS} runs (inputs built in ${prepareSeconds.toFixed(1)} s)`,
);
console.log(
  `one slot, every lane of every port (merge the record's sums: window + 2 days; score, issue with intervals from the parts' histograms, documents, summary): median ${median(times).toFixed(1)} ms wall, p90 ${percentile(times, 90).toFixed(1)} ms; CPU median ${median(cpu).toFixed(1)} ms (target < 100 ms; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`,
);
console.log(
  `port-forecast documents: median ${kb(median(sizes))}, p90 ${kb(percentile(sizes, 90))}, max ${kb(Math.max(...sizes))}, all ${kb(sizes.reduce((a, b) => a + b, 0))} (one per port: under its id)`,
);
console.log(
  `once a day: rebuilding every port's settled 26-day window: median ${median(rebuild).toFixed(0)} ms`,
);
console.log(`forecast-skill document: ${kb(Buffer.byteLength(sample.summary))}`);
console.log(
  `published documents and summary, sha256: ${digest(sample)} (first cycle), ${digest(again)} (after the timed runs)${digest(sample) === digest(again) ? '' : ': THE CYCLE CHANGED ITS INPUTS'}`,
);
console.log(
  `stored per port: one slot's forecasts median ${kb(median(pendingBytes))} (max ${kb(Math.max(...pendingBytes))}); one day's record (a full day of scores) median ${kb(median(dayBytes))} (max ${kb(Math.max(...dayBytes))}), DynamoDB's item limit is 400 KiB`,
);
