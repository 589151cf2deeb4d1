/**
 * `npm run bench -- ingest`: the median time of one full ingest cycle (both sources, from the feed
 * simulator on loopback, each cycle a new simulated hour so there is new data to store); the steady
 * state, cycles a minute apart as the schedule runs them (the simulator's automated ports publish
 * every 5 minutes, its manual ones hourly); the writes per cycle of both (DynamoDB write units and
 * requests, S3 PUTs); and the throughput of /api/v1/port-current?include=ports through the local
 * edge next to a plain static file server holding the same bytes (one run, the ratio).
 *
 * The ingest function runs in this process, as its handler runs in Lambda; the local service
 * (dynalite, s3rver, the edge) runs in a process of its own, as the AWS services do. The CPU figure
 * is then the function's own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileSecretSource } from '../../functions/adapters/secrets/files.ts';
import { createStores } from '../../functions/adapters/stores.ts';
import { IngestWithAlertsConfigSchema, storeSettingsOf } from '../../functions/config.ts';
import { createIngestHandler } from '../../functions/handlers/ingest.ts';
import { lambdaContext } from '../../infra/local/lambda-context.ts';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { FUNCTIONS } from '../../infra/manifest.ts';
import { countWrites, meterCapacity } from './_capacity.ts';
import { startStoresProcess } from './_remote.ts';
import { median } from './_stats.ts';

const CYCLES = 11;
/** Steady-state cycles, a minute apart, after as many to settle (an hour in all). */
const STEADY_CYCLES = 30;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = 8;

let nowMs = Date.parse('2026-11-16T14:05:00Z');
const clock = { now: () => nowMs };
const simulator = await startSimulator({ clock });
const dataDir = await mkdtemp(join(tmpdir(), 'bench-ingest-'));
// The local edge's per-IP limit for static views (WAF in AWS) would stop the throughput run: lifted here.
const remote = await startStoresProcess(dataDir, 'service', { EDGE_RATE_LIMIT_PER_MINUTE: '100000000' });
const env = {
  AWS_REGION: 'us-east-1',
  AWS_ENDPOINT_URL_DYNAMODB: remote.endpoints.dynamodb,
  AWS_ENDPOINT_URL_S3: remote.endpoints.s3,
  CBP_FEED_URL: simulator.cbpXmlUrl,
  CBSA_FEED_URL: simulator.cbsaEnUrl,
};
// The function's own adapters, metered: every DynamoDB request asks for its consumed capacity.
const stores = createStores(storeSettingsOf(IngestWithAlertsConfigSchema.parse(env)), clock);
const capacity = meterCapacity(stores.dynamo);
const writes = countWrites(stores.dynamo, (await stores.s3.use()).client);
const ingest = createIngestHandler(env, {
  clock,
  log: () => {},
  secrets: createFileSecretSource(dataDir),
  metricsOutput: () => {},
  stores,
});
const serviceUrl = remote.url as string;
const event = () =>
  ({ source: 'aws.events', 'detail-type': 'Scheduled Event', time: new Date(nowMs).toISOString() }) as never;

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

interface Cycle {
  ms: number;
  cpuMs: number;
  storesCpuMs: number;
  wcu: number;
  rcu: number;
  items: number;
  requests: number;
  puts: number;
}

/** One ingest cycle at the clock's time, as the schedule invokes it, timed and metered. */
async function cycle(): Promise<Cycle> {
  simulator.setClock(nowMs);
  capacity.reset();
  writes.reset();
  const storesBefore = await remote.cpuMs();
  const started = performance.now();
  const startedCpu = process.cpuUsage();
  await ingest(event(), lambdaContext(FUNCTIONS.ingest.name, FUNCTIONS.ingest.timeoutSeconds));
  const ms = performance.now() - started;
  const used = process.cpuUsage(startedCpu);
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    storesCpuMs: (await remote.cpuMs()) - storesBefore,
    wcu: capacity.write,
    rcu: capacity.read,
    items: writes.dynamoItems,
    requests: writes.dynamoRequests,
    puts: writes.s3Puts,
  };
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

function report(title: string, cycles: readonly Cycle[]): void {
  const of = (field: keyof Cycle) => cycles.map((c) => c[field]);
  console.log(
    `${title}: median ${median(of('ms')).toFixed(0)} ms over ${cycles.length} cycles; ` +
      `CPU: the function ${median(of('cpuMs')).toFixed(0)} ms, the stand-in stores (another process) ${median(of('storesCpuMs')).toFixed(0)} ms`,
  );
  console.log(
    `  writes per cycle (mean): DynamoDB ${mean(of('wcu')).toFixed(1)} write units, ${mean(of('items')).toFixed(1)} items in ` +
      `${mean(of('requests')).toFixed(1)} requests; S3 ${mean(of('puts')).toFixed(1)} PUTs ` +
      `(and DynamoDB ${mean(of('rcu')).toFixed(1)} read units)`,
  );
}

try {
  const hourly: Cycle[] = [];
  for (let i = 0; i < CYCLES; i += 1) {
    nowMs += 3_600_000;
    hourly.push(await cycle());
  }
  report('ingest cycle (cbp xml + cbsa csv, new hour each)', hourly);
  // The steady state: a cycle a minute, as scheduled, once the first ones have settled.
  const steady: Cycle[] = [];
  for (let i = 0; i < 2 * STEADY_CYCLES; i += 1) {
    nowMs += 60_000;
    const measured = await cycle();
    if (i >= STEADY_CYCLES) steady.push(measured);
  }
  report('steady state (a cycle a minute)', steady);
  console.log(`(load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`);

  const path = '/api/v1/port-current?include=ports';
  const body = Buffer.from(await (await fetch(`${serviceUrl}${path}`)).arrayBuffer());
  const plain = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((ready) => plain.listen(0, '127.0.0.1', () => ready()));
  const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
  const edgeRate = await load(`${serviceUrl}${path}`);
  const plainRate = await load(plainUrl);
  plain.close();
  console.log(
    `${path} (${(body.length / 1024).toFixed(0)} KB), ${REQUESTS} requests, ${CONCURRENCY} in flight:`,
  );
  console.log(`  local edge + s3rver: ${edgeRate.toFixed(0)} req/s`);
  console.log(`  plain static server: ${plainRate.toFixed(0)} req/s`);
  console.log(`  ratio edge/plain: ${(edgeRate / plainRate).toFixed(2)}`);
} finally {
  await remote.stop();
  await simulator.stop();
  await rm(dataDir, { recursive: true, force: true });
}
