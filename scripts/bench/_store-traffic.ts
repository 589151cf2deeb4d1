/**
 * The forecast bench's store traffic, timed in a worker thread: a heap of its own, holding what a
 * slot reads and writes and nothing else (the bench's own heap holds weeks of simulated inputs,
 * whose collections would be timed with it). `workerData` gives each item as stored both ways;
 * the worker posts back the medians.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { pack, packIssueLanes, unpack, unpackIssueLanes } from '../../functions/adapters/dynamo/packed.ts';
import type { IssuedLane } from '../../functions/core/forecast/forecast.ts';
import { fromPackedWire, mapWire, packedWire } from './_dynamo-wire.ts';
import { median } from './_stats.ts';

export interface StoreTraffic {
  /** Records (windows, today's) as stored (packed), in DynamoDB's wire JSON of a binary attribute (base64). */
  records: string[];
  /** Issues the same, with the horizon of each aimed at the target. */
  issues: { wire: string; horizon: number }[];
  /** What a slot writes, as JSON: today's records, and new issues' lanes. */
  newRecords: string[];
  newIssues: string[];
  /** Every item read, as DynamoDB's wire JSON of its map (as stored before). */
  mapWires: string[];
}

const data = workerData as StoreTraffic;
const newRecords = data.newRecords.map((text) => JSON.parse(text) as unknown);
const newIssues = data.newIssues.map((text) => JSON.parse(text) as IssuedLane[]);

async function timed(run: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const before = process.cpuUsage();
  const start = performance.now();
  await run();
  const used = process.cpuUsage(before);
  return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 };
}

// Both keep what they read until the end, as a slot does.
const packed = () =>
  timed(async () => {
    const read = await Promise.all([
      ...data.records.map((wire) => unpack(fromPackedWire(wire))),
      ...data.issues.map(({ wire, horizon }) => unpackIssueLanes(fromPackedWire(wire), new Set([horizon]))),
    ]);
    const written = await Promise.all([
      ...newRecords.map((value) => pack(value)),
      ...newIssues.map((lanes) => packIssueLanes(lanes)),
    ]);
    for (const bytes of written) packedWire(bytes);
    return read;
  });
const maps = () =>
  timed(async () => {
    const read = data.mapWires.map((wire) => unmarshall(JSON.parse(wire)));
    for (const value of [...newRecords, ...newIssues]) mapWire(value);
    return read;
  });

const runs = {
  packed: [] as number[],
  packedCpu: [] as number[],
  maps: [] as number[],
  mapsCpu: [] as number[],
};
for (let i = 0; i < 6; i++) {
  const p = await packed();
  const m = await maps();
  // The first round warms up.
  if (i === 0) continue;
  runs.packed.push(p.wall);
  runs.packedCpu.push(p.cpu);
  runs.maps.push(m.wall);
  runs.mapsCpu.push(m.cpu);
}
parentPort?.postMessage({
  packed: median(runs.packed),
  packedCpu: median(runs.packedCpu),
  maps: median(runs.maps),
  mapsCpu: median(runs.mapsCpu),
});
