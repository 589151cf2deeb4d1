/**
 * `npm run bench -- ingest`: the median time of one full ingest cycle (both sources, from the feed
 * simulator on loopback, each cycle a new simulated hour so there is new data to store), and the
 * throughput of /api/v1/port-current?include=ports through the local edge next to a plain static
 * file server holding the same bytes (one run, the ratio).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { startBenchService } from './_local.ts';
import { median } from './_stats.ts';

const CYCLES = 7;
const REQUESTS = 400;
const CONCURRENCY = 8;

let nowMs = Date.parse('2026-11-16T14:05:00Z');
const clock = { now: () => nowMs };
// The local edge's per-IP limit for static views (WAF in AWS) would stop the throughput run: lifted here.
const bench = await startBenchService('ingest', clock, { EDGE_RATE_LIMIT_PER_MINUTE: '100000000' });
const { service, simulator } = bench;

async function load(url: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next += 1;
        const response = await fetch(url);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      }
    }),
  );
  return REQUESTS / ((performance.now() - started) / 1000);
}

try {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < CYCLES; i += 1) {
    nowMs += 3_600_000;
    simulator.setClock(nowMs);
    const started = performance.now();
    const startedCpu = process.cpuUsage();
    await service.ingestNow();
    times.push(performance.now() - started);
    const used = process.cpuUsage(startedCpu);
    cpu.push((used.user + used.system) / 1000);
  }
  console.log(
    `ingest cycle (cbp xml + cbsa csv, new hour each): median ${median(times).toFixed(0)} ms over ${CYCLES} cycles ` +
      `(process CPU ${median(cpu).toFixed(0)} ms: the stand-ins run in this process; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`,
  );

  const path = '/api/v1/port-current?include=ports';
  const body = Buffer.from(await (await fetch(`${service.url}${path}`)).arrayBuffer());
  const plain = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((ready) => plain.listen(0, '127.0.0.1', () => ready()));
  const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
  const edgeRate = await load(`${service.url}${path}`);
  const plainRate = await load(plainUrl);
  plain.close();
  console.log(
    `${path} (${(body.length / 1024).toFixed(0)} KB), ${REQUESTS} requests, ${CONCURRENCY} in flight:`,
  );
  console.log(`  local edge + s3rver: ${edgeRate.toFixed(0)} req/s`);
  console.log(`  plain static server: ${plainRate.toFixed(0)} req/s`);
  console.log(`  ratio edge/plain: ${(edgeRate / plainRate).toFixed(2)}`);
} finally {
  await bench.stop();
}
