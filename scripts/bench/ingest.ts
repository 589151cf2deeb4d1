/**
 * `npm run bench -- ingest`: the median time of one full ingest cycle (both sources, from the feed
 * simulator on loopback, each cycle a new simulated hour so there is new data to store), and the
 * throughput of /api/v1/port-current?include=ports through the local edge next to a plain static
 * file server holding the same bytes (one run, the ratio).
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
import { createIngestHandler } from '../../functions/handlers/ingest.ts';
import { lambdaContext } from '../../infra/local/lambda-context.ts';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { FUNCTIONS } from '../../infra/manifest.ts';
import { startStoresProcess } from './_remote.ts';
import { median } from './_stats.ts';

const CYCLES = 11;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = 8;

let nowMs = Date.parse('2026-11-16T14:05:00Z');
const clock = { now: () => nowMs };
const simulator = await startSimulator({ clock });
const dataDir = await mkdtemp(join(tmpdir(), 'bench-ingest-'));
// The local edge's per-IP limit for static views (WAF in AWS) would stop the throughput run: lifted here.
const remote = await startStoresProcess(dataDir, 'service', { EDGE_RATE_LIMIT_PER_MINUTE: '100000000' });
const ingest = createIngestHandler(
  {
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_DYNAMODB: remote.endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: remote.endpoints.s3,
    CBP_FEED_URL: simulator.cbpXmlUrl,
    CBSA_FEED_URL: simulator.cbsaEnUrl,
  },
  { clock, log: () => {}, secrets: createFileSecretSource(dataDir), metricsOutput: () => {} },
);
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

try {
  const times: number[] = [];
  const cpu: number[] = [];
  const storesCpu: number[] = [];
  for (let i = 0; i < CYCLES; i += 1) {
    nowMs += 3_600_000;
    simulator.setClock(nowMs);
    const storesBefore = await remote.cpuMs();
    const started = performance.now();
    const startedCpu = process.cpuUsage();
    await ingest(event(), lambdaContext(FUNCTIONS.ingest.name, FUNCTIONS.ingest.timeoutSeconds));
    times.push(performance.now() - started);
    const used = process.cpuUsage(startedCpu);
    cpu.push((used.user + used.system) / 1000);
    storesCpu.push((await remote.cpuMs()) - storesBefore);
  }
  console.log(
    `ingest cycle (cbp xml + cbsa csv, new hour each): median ${median(times).toFixed(0)} ms over ${CYCLES} cycles; ` +
      `CPU: the function ${median(cpu).toFixed(0)} ms, the stand-in stores (another process) ${median(storesCpu).toFixed(0)} ms ` +
      `(load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`,
  );

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
