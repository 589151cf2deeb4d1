/**
 * `npm run bench -- forecast`: the compute of one forecast slot for every lane of every catalogue
 * port, as the service runs it (`forecastPort` for each port: score the due target into the day's
 * record, merge the 28-day record, issue the slot; then each port's documents as published, and
 * the skill summary), the stores in memory, median of several runs; the size of what is
 * published and stored; and the time of the slot's store traffic through the forecasts table's
 * encoding (packed, against the DynamoDB maps it replaced).
 *
 * Inputs come from the feed simulator's model, as a service that has run for weeks holds them:
 * three weeks of hourly readings for the profiles, 5-minute readings for the last three days, a
 * day's record of scores at every horizon up to +24 h (the slots of the two days before the
 * measured one issued, the last day's targets scored), stored as today's record and summed over
 * the 27 days before as the settled window (at the measured slot, 17:00 UTC, yesterday's targets
 * are no longer scored); the measured slot reads what the service reads
 * (the issues aimed at its due target, 25 hours of observations, the hourly averages). Each run
 * gets its own copy of the day records, as the service reads them from the store: scoring changes
 * them.
 */

import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
// @ts-expect-error: dynalite's database module has no types (its item size rules, as DynamoDB's).
import { capacityUnits } from 'dynalite/db/index.js';
import { pack, packIssueLanes, unpackIssueLanes } from '../../functions/adapters/dynamo/packed.ts';
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
import {
  type ForecastStore,
  forecastPort,
  type SkillWindow,
} from '../../functions/core/forecast/forecast-cycle.ts';
import {
  buildForecastDocuments,
  portForecastBody,
  skillSummaryBody,
} from '../../functions/core/forecast/forecast-views.ts';
import {
  championOf,
  dueTargets,
  learnerOf,
  mergeRecords,
  type PortRecord,
  quantilerOf,
  RECORD_DAYS,
  type SkillDay,
  scoreTargets,
  utcDate,
} from '../../functions/core/forecast/skill.ts';
import {
  averagesFromContributions,
  contributionsOfDay,
  localBucketOf,
} from '../../functions/core/history/rollups.ts';
import type { HourlyAverage, Observation } from '../../functions/core/model.ts';
import type { ObservationStore } from '../../functions/core/stores.ts';
import { observationsSeen } from '../../infra/local/simulator/model.ts';
import { mapWire, packedWire } from './_dynamo-wire.ts';
import { median, percentile } from './_stats.ts';
import type { StoreTraffic } from './_store-traffic.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SLOT = Date.parse('2026-11-18T17:00:00Z');
const RUNS = Number(process.argv[2] ?? 15);

interface PortInput {
  id: string;
  slug: string;
  timeZone: string;
  border: 'mx' | 'ca';
  /** CBP's hours: the slot issues no point at a time the port is closed. */
  hours: string | null;
  lanes: LaneId[];
  averages: HourlyAverage[];
  /** The issues aimed at the due target, whole (as stored). */
  issues: IssuedPort[];
  /** The same as the slot reads them from the store: each with its points at the horizon aimed at the target. */
  pending: IssuedPort[];
  /** The last 25 hours of observations. */
  observations: Observation[];
  window: SkillWindow;
  /** The live records (today's), as stored (each run scores into a copy). */
  days: SkillDay[];
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

/** Readings are kept from this far back: the day-earlier anomaly of the record's oldest issue (see below). */
const READINGS_FROM = SLOT - (2 * 24 + 26) * HOUR;
/** The target the measured slot scores (the one it finds due). */
const TARGET = SLOT - SLOT_MS;

function prepare(): PortInput[] {
  return PORTS.map((port) => {
    const hourly: number[] = [];
    for (let t = SLOT - 21 * DAY; t < READINGS_FROM; t += HOUR) hourly.push(t + 4 * 60_000);
    const recent: number[] = [];
    for (let t = READINGS_FROM; t <= SLOT; t += 5 * 60_000) recent.push(t);
    const history = observationsSeen(port, [...hourly, ...recent]).map(
      (o): Observation => ({ ...o, maxLanes: null, fetchedAt: o.observedAt }),
    );
    const readings = new Map<string, LaneReading[]>();
    const lanes = new Map<string, LaneId>();
    for (const o of history) {
      if (Date.parse(o.observedAt) < READINGS_FROM) continue;
      const key = laneKeyOf(o);
      lanes.set(key, { direction: o.direction, mode: o.mode, lane: o.lane });
      let list = readings.get(key);
      if (!list) {
        list = [];
        readings.set(key, list);
      }
      list.push({ atMs: Date.parse(o.observedAt), delayMinutes: o.delayMinutes });
    }
    const averages = averagesOf(port.id, port.timeZone, history);
    const profile = profileFromAverages(averages);
    // A day of scores at every horizon: the slots of the two days before the measured one are
    // issued, and the last day's targets (one a slot) scored, so every horizon up to +24 h has a
    // record, as a service running for a while has, and intervals and champions come from it.
    const issued: IssuedPort[] = [];
    let record: PortRecord = {};
    for (let slot = SLOT - 2 * DAY; slot < SLOT; slot += SLOT_MS) {
      if (slot >= SLOT - DAY) {
        const scored = scoreTargets([slot - SLOT_MS], issued, readings);
        record = mergeRecords([record, ...scored.values()]);
      }
      issued.push(
        issuePort({
          portId: port.id,
          timeZone: port.timeZone,
          border: port.border,
          hours: port.hours,
          issuedAtMs: slot,
          profile,
          lanes: [...lanes.values()].map((lane) => ({
            lane,
            readings: (readings.get(laneKeyOf(lane)) ?? []).filter((r) => r.atMs <= slot),
          })),
          quantiles: quantilerOf(record),
          champion: (lane, h, available) => championOf(record, lane, h, available),
          learned: learnerOf(record),
        }),
      );
    }
    const aimed = new Set(HORIZONS_MINUTES.map((h) => TARGET - h * 60_000));
    return {
      id: port.id,
      slug: port.slug,
      timeZone: port.timeZone,
      border: port.border,
      hours: port.hours,
      lanes: [...lanes.values()],
      averages,
      issues: issued.filter((p) => aimed.has(Date.parse(p.issuedAt))),
      pending: [],
      observations: history.filter((o) => Date.parse(o.observedAt) >= SLOT - HISTORY_MS),
      // At 17:00 UTC yesterday is settled: the window holds the 27 days before today.
      window: {
        from: utcDate(SLOT - (RECORD_DAYS - 1) * DAY),
        to: utcDate(SLOT - DAY),
        lanes: mergeRecords(Array.from({ length: RECORD_DAYS - 1 }, () => record)),
      },
      // Today's record, scored through the target before the measured slot's.
      days: [{ date: utcDate(SLOT), through: new Date(TARGET - SLOT_MS).toISOString(), lanes: record }],
    };
  });
}

/** The stores a slot writes to, in memory (it reads nothing from them: its inputs are given). */
const forecasts: ForecastStore = {
  cycleDone: async () => false,
  markCycle: async () => {},
  pending: async () => [],
  putPending: async (issue) => issue,
  skillDays: async () => [],
  putSkillDay: async () => true,
  window: async () => undefined,
  putWindow: async () => {},
};
const observations = new Proxy({} as ObservationStore, {
  get: () => {
    throw new Error('the bench gives the slot its observations');
  },
});

const GENERATED_AT = new Date(SLOT + 6 * 60_000).toISOString();

/** One slot for every port: what the forecast step does between its reads and its writes. */
async function cycle(ports: readonly PortInput[], read: readonly Read[]) {
  const records: PortRecord[] = [];
  const bodies: string[] = [];
  let lanes = 0;
  for (const [i, port] of ports.entries()) {
    const { days, window, pending } = read[i] as Read;
    const plan = {
      days,
      targets: dueTargets(SLOT, new Map(days.map((day) => [day.date, day.through]))),
      issuedAt: [],
      aimed: new Map(),
      fromMs: SLOT - HISTORY_MS,
    };
    const inputs = { pending, observations: port.observations, window };
    const rollups = { averages: async () => port.averages };
    const result = await forecastPort({ forecasts, observations, rollups }, port, port.lanes, SLOT, {
      plan,
      inputs,
    });
    lanes += result.issue.lanes.length;
    records.push(result.record);
    const [document] = buildForecastDocuments(
      port,
      portForecastBody(port.id, result.issue, result.record),
      GENERATED_AT,
    );
    bodies.push(document?.body ?? '');
  }
  const summary = JSON.stringify(skillSummaryBody(new Date(SLOT).toISOString(), records));
  return { bodies, summary, lanes, records };
}

/** A port's records and issues as a run reads them. */
interface Read {
  days: SkillDay[];
  window: SkillWindow;
  pending: IssuedPort[];
}

/**
 * Each port's records and issues as the store gives them to a run: new objects, not yet
 * surviving a collection (the service parses them from the store every run; scoring changes the
 * day's).
 */
const copies = (ports: readonly PortInput[]): Read[] =>
  ports.map((port) => ({
    days: structuredClone(port.days),
    window: structuredClone(port.window),
    pending: structuredClone(port.pending),
  }));

/** `issue` as the store gives it to scoring: packed, then read for the horizon aimed at the target. */
const aimedRead = async (issue: IssuedPort): Promise<IssuedPort> => ({
  ...issue,
  lanes: await unpackIssueLanes(await packIssueLanes(issue.lanes), new Set([horizonOf(issue)])),
});
const horizonOf = (issue: IssuedPort) => (TARGET - Date.parse(issue.issuedAt)) / 60_000;

const prepared = performance.now();
const ports = prepare();
for (const port of ports) port.pending = await Promise.all(port.issues.map(aimedRead));
const prepareSeconds = (performance.now() - prepared) / 1000;
const sample = await cycle(ports, copies(ports));
for (let i = 0; i < 2; i++) await cycle(ports, copies(ports));
const times: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const read = copies(ports);
  const start = performance.now();
  const before = process.cpuUsage();
  await cycle(ports, read);
  const used = process.cpuUsage(before);
  times.push(performance.now() - start);
  // CPU time of the same work: on a shared machine the wall clock also counts other processes' turns.
  cpu.push((used.user + used.system) / 1000);
}
// Twice a day (at midnight UTC, and when yesterday settles) each port's settled window is rebuilt
// from its day records.
const rebuild: number[] = [];
for (let i = 0; i < 3; i++) {
  const start = performance.now();
  for (const port of ports)
    mergeRecords(Array.from({ length: RECORD_DAYS - 1 }, () => port.days[0]?.lanes ?? {}));
  rebuild.push(performance.now() - start);
}
// What the slot published, hashed: a speed-up must leave it to the byte, and a cycle that changed
// its inputs would publish something else the next time.
const digest = (run: Awaited<ReturnType<typeof cycle>>) =>
  createHash('sha256').update(run.bodies.join('\n')).update(run.summary).digest('hex').slice(0, 16);
const again = await cycle(ports, copies(ports));

// The slot's store traffic: what it reads (each port's window, today's record and the issues
// aimed at the due target, for that horizon) and writes (today's record and the new issue),
// through the forecasts table's encoding (packed: compressed JSON), and through DynamoDB maps as
// the document client converts them (marshall and JSON on the wire, and back), as they were
// stored before (an issue read whole).
const records = ports.flatMap((p) => [p.window.lanes, ...p.days.map((d) => d.lanes)]);
const issues = ports.flatMap((p) => p.issues);
const packedRecords = await Promise.all(records.map((value) => pack(value)));
const packedIssues = await Promise.all(issues.map((issue) => packIssueLanes(issue.lanes)));
const newRecords = ports.map((p) => p.days[0]?.lanes ?? {});
// The last issue aimed at the target (issued 15 minutes before it) stands in for the new one.
const newIssues = ports.flatMap((p) => p.issues.slice(-1));
const mapWires = [...records, ...issues.map((issue) => issue.lanes)].map(mapWire);
const traffic: StoreTraffic = {
  records: packedRecords.map(packedWire),
  issues: packedIssues.map((bytes, i) => ({
    wire: packedWire(bytes),
    horizon: horizonOf(issues[i] as IssuedPort),
  })),
  newRecords: newRecords.map((value) => JSON.stringify(value)),
  newIssues: newIssues.map((issue) => JSON.stringify(issue.lanes)),
  mapWires,
};
const worker = new Worker(new URL('./_store-traffic.ts', import.meta.url), { workerData: traffic });
const storeTimes = (await once(worker, 'message'))[0] as {
  packed: number;
  packedCpu: number;
  maps: number;
  mapsCpu: number;
};
// DynamoDB's capacity units of the same reads (strongly consistent: 4 KB a unit, each item
// rounded up) and writes (1 KB a unit), by DynamoDB's item size rules as dynalite applies them;
// each item with its key and other attributes (an issue's TTL; a record's through and TTL).
const OTHER_ATTRIBUTES = {
  pk: { S: 'S#250401' },
  sk: { S: '2026-11-18' },
  through: { S: '2026-11-18T16:45:00.000Z' },
  ttl: { N: '1766000000' },
};
const packedItem = (bytes: Uint8Array) => ({
  ...OTHER_ATTRIBUTES,
  lanesPacked: { B: Buffer.from(bytes).toString('base64') },
});
const mapItem = (wire: string) => ({ ...OTHER_ATTRIBUTES, ...JSON.parse(wire) });
const unitsOf = (items: readonly Record<string, unknown>[], read: boolean) =>
  items.reduce((sum: number, item) => sum + (capacityUnits(item, read, true) as number), 0);
const newPacked = await Promise.all([
  ...newRecords.map((value) => pack(value)),
  ...newIssues.map((issue) => packIssueLanes(issue.lanes)),
]);
const units = {
  packedRead: unitsOf([...packedRecords, ...packedIssues].map(packedItem), true),
  packedWrite: unitsOf(newPacked.map(packedItem), false),
  mapsRead: unitsOf(mapWires.map(mapItem), true),
  mapsWrite: unitsOf(
    [...newRecords, ...newIssues.map((issue) => issue.lanes)].map(mapWire).map(mapItem),
    false,
  ),
};
const bytesOf = (values: readonly string[] | readonly Uint8Array[]) =>
  values.reduce((sum, v) => sum + (typeof v === 'string' ? Buffer.byteLength(v) : v.byteLength), 0);
const packedBytes = bytesOf([...packedRecords, ...packedIssues]);
const jsonBytes = bytesOf(
  [...records, ...issues.map((issue) => issue.lanes)].map((value) => JSON.stringify(value)),
);
const sizes = sample.bodies.map((b) => Buffer.byteLength(b));
const withLanes = ports.filter((p) => p.lanes.length > 0).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const pendingBytes = ports.map((p) => Buffer.byteLength(JSON.stringify(p.issues.at(-1)?.lanes ?? [])));
// A day's record and the window as stored (with their error histograms; the slot's merged record leaves them out).
const dayBytes = ports.map((p) => Buffer.byteLength(JSON.stringify(p.days[0]?.lanes ?? {})));
const windowBytes = ports.map((p) => Buffer.byteLength(JSON.stringify(p.window.lanes)));
// The same packed, as the forecasts table stores them (each port's window, then its day record).
const packedWindows = packedRecords.filter((_, i) => i % 2 === 0).map((bytes) => bytes.byteLength);
const packedDays = packedRecords.filter((_, i) => i % 2 === 1).map((bytes) => bytes.byteLength);
let issuesBefore = 0;
const packedIssueBytes = ports.map((p) => {
  issuesBefore += p.issues.length;
  return packedIssues[issuesBefore - 1]?.byteLength ?? 0;
});

console.log(
  `forecast bench: ${ports.length} ports (${withLanes} with lanes), ${sample.lanes} lanes, ${RUNS} runs (inputs built in ${prepareSeconds.toFixed(1)} s)`,
);
console.log(
  `one slot, every lane of every port (score into the day's record, add today's sums into the settled window read for it; issue with intervals from the parts' histograms, documents as published, summary): median ${median(times).toFixed(1)} ms wall, p90 ${percentile(times, 90).toFixed(1)} ms; CPU median ${median(cpu).toFixed(1)} ms (target < 100 ms; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`,
);
console.log(
  `port-forecast documents: median ${kb(median(sizes))}, p90 ${kb(percentile(sizes, 90))}, max ${kb(Math.max(...sizes))}, all ${kb(sizes.reduce((a, b) => a + b, 0))} (one per port: under its id)`,
);
console.log(
  `twice a day: rebuilding every port's settled 27-day window: median ${median(rebuild).toFixed(0)} ms`,
);
console.log(`forecast-skill document: ${kb(Buffer.byteLength(sample.summary))}`);
console.log(
  `the slot's store traffic, timed in a worker thread (${records.length + issues.length} items read: windows, today's records, the issues aimed at the due target; ${newRecords.length + newIssues.length} written: records, new issues): packed (compressed JSON, as stored; an issue read for its horizon aimed at the target) median ${storeTimes.packed.toFixed(0)} ms wall, ${storeTimes.packedCpu.toFixed(0)} ms CPU (decompression and compression on the thread pool), ${kb(packedBytes)} read; as DynamoDB maps (as stored before: marshall and wire JSON, and back; issues whole) median ${storeTimes.maps.toFixed(0)} ms wall, ${storeTimes.mapsCpu.toFixed(0)} ms CPU, ${kb(bytesOf(mapWires))} of wire JSON read (${kb(jsonBytes)} of plain JSON)`,
);
console.log(
  `the same traffic in DynamoDB capacity units (strongly consistent reads, each item rounded up): packed ${units.packedRead} read and ${units.packedWrite} written; as DynamoDB maps ${units.mapsRead} read and ${units.mapsWrite} written`,
);
console.log(
  `published documents and summary, sha256: ${digest(sample)} (first cycle), ${digest(again)} (after the timed runs)${digest(sample) === digest(again) ? '' : ': THE CYCLE CHANGED ITS INPUTS'}`,
);
console.log(
  `stored per port, as JSON and packed: one slot's forecasts median ${kb(median(pendingBytes))} and ${kb(median(packedIssueBytes))} (max ${kb(Math.max(...pendingBytes))} and ${kb(Math.max(...packedIssueBytes))}); one day's record (a full day of scores) median ${kb(median(dayBytes))} and ${kb(median(packedDays))} (max ${kb(Math.max(...dayBytes))} and ${kb(Math.max(...packedDays))}); the settled window median ${kb(median(windowBytes))} and ${kb(median(packedWindows))} (max ${kb(Math.max(...windowBytes))} and ${kb(Math.max(...packedWindows))}); DynamoDB's item limit is 400 KiB`,
);
