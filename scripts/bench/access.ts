/**
 * `npm run bench -- access`: what the key check and the limiter add, locally. Sequential requests
 * through the local edge and gateway, keyed vs keyless on the same path (median and p99), then the
 * two store calls on their own: the key lookup (GetItem by digest) and the limiter's counter
 * (UpdateItem ADD), and the limiter's throughput with 16 calls in flight. Limits are raised so
 * nothing is refused. dynalite is slower than DynamoDB; the ratios are what carry over.
 */
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createKeyStore } from '../../functions/adapters/dynamo/keys.ts';
import { createLimitStore } from '../../functions/adapters/dynamo/limits.ts';
import { createStores } from '../../functions/adapters/stores.ts';
import { ApiConfigSchema, parseConfig, storeSettingsOf } from '../../functions/config.ts';
import { checkKey, generateKey, newKeyRecord } from '../../functions/core/access/keys.ts';
import { consume } from '../../functions/core/access/limits.ts';
import { createReadApi } from '../../functions/core/api/read-api.ts';
import { createApiHandler } from '../../functions/handlers/api.ts';
import { createApiRouter } from '../../functions/http/api-router.ts';
import { toRestEvent } from '../../infra/local/gateway.ts';
import { TABLES } from '../../infra/manifest.ts';
import { startBenchService } from './_local.ts';
import { median, percentile, timeRuns } from './_stats.ts';

const RUNS = 300;
const LIMITER_CALLS = 2000;
const IN_FLIGHT = 16;

const nowMs = Date.parse('2026-11-18T20:10:00Z');
const clock = { now: () => nowMs };
const bench = await startBenchService('access', clock, {
  KEY_RATE_LIMIT_PER_MINUTE: '100000000',
  PUBLIC_RATE_LIMIT_PER_MINUTE: '100000000',
  EDGE_RATE_LIMIT_PER_MINUTE: '100000000',
});
const { service } = bench;
const doc = createDocumentClient({ endpoint: service.endpoints.dynamodb });

const fmt = (times: number[]) =>
  `median ${median(times).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`;

async function request(path: string, key?: string): Promise<void> {
  const response = await fetch(`${service.url}${path}`, key ? { headers: { 'x-api-key': key } } : {});
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
}

try {
  await service.ingestNow();
  const keys = createKeyStore(doc, TABLES.keys.name);
  const key = generateKey();
  await keys.put(newKeyRecord(key, 'Bench', nowMs));

  console.log(`access bench: ${RUNS} sequential requests each, local edge + gateway + dynalite`);
  for (const path of ['/api/v1/wait-observations?port_id=250401&hours=1', '/api/v1/ports?border=mx']) {
    const keyless = await timeRuns(() => request(path), RUNS, 20);
    const keyed = await timeRuns(() => request(path, key), RUNS, 20);
    const served = path.includes('wait-observations')
      ? 'api function both ways'
      : 'keyless from the CDN copy';
    console.log(`${path} (${served})`);
    console.log(`  keyless: ${fmt(keyless)}`);
    console.log(`  keyed:   ${fmt(keyed)}`);
    console.log(
      `  keyed - keyless: median +${(median(keyed) - median(keyless)).toFixed(2)} ms, p99 +${(percentile(keyed, 99) - percentile(keyless, 99)).toFixed(2)} ms; ratio ${(median(keyed) / median(keyless)).toFixed(2)}`,
    );
  }

  // The api function in process, same event, with and without the access layer: exactly what the
  // key check (no authorizer verdict, so the function looks the key up) and the limiter add.
  const env = {
    AWS_ENDPOINT_URL_DYNAMODB: service.endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: service.endpoints.s3,
    KEY_RATE_LIMIT_PER_MINUTE: '100000000',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '100000000',
  };
  const withAccess = createApiHandler(env, clock);
  const stores = createStores(storeSettingsOf(parseConfig(ApiConfigSchema, env)), clock);
  const bare = createApiRouter({
    readApi: createReadApi({ documents: stores.documents, observations: stores.observations, clock }),
  });
  const event = (withKey: boolean) =>
    toRestEvent(
      {
        method: 'GET',
        url: new URL('http://local/api/v1/wait-observations?port_id=250401&hours=1'),
        headers: withKey ? { 'x-api-key': key } : {},
        body: Buffer.alloc(0),
        sourceIp: '203.0.113.7',
      },
      '/api/v1/wait-observations',
      null,
    );
  const context = {} as never;
  const plain = await timeRuns(() => bare(event(false)), RUNS, 20);
  const limited = await timeRuns(() => withAccess(event(false), context), RUNS, 20);
  const checked = await timeRuns(() => withAccess(event(true), context), RUNS, 20);
  console.log('api function in process, /api/v1/wait-observations?port_id=250401&hours=1:');
  console.log(`  no access layer:          ${fmt(plain)}`);
  console.log(
    `  keyless (IP limiter):     ${fmt(limited)}  (+${(median(limited) - median(plain)).toFixed(2)} ms median)`,
  );
  console.log(
    `  keyed (key check + limiter): ${fmt(checked)}  (+${(median(checked) - median(plain)).toFixed(2)} ms median)`,
  );
  stores.dynamo.destroy();
  stores.s3.destroy();

  const lookups = await timeRuns(() => checkKey(keys, key), RUNS, 20);
  console.log(`key check (format, checksum, GetItem by digest, constant-time compare): ${fmt(lookups)}`);
  const limits = createLimitStore(doc, TABLES.limits.name);
  const policy = { name: 'key', quota: 100_000_000, windowSeconds: 60 };
  const counts = await timeRuns(() => consume(limits, policy, 'BENCH#sequential', nowMs), RUNS, 20);
  console.log(`limiter (UpdateItem ADD count, UPDATED_NEW): ${fmt(counts)}`);

  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < LIMITER_CALLS) {
        next += 1;
        await consume(limits, policy, 'BENCH#parallel', nowMs);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `limiter throughput, one counter, ${IN_FLIGHT} in flight: ${(LIMITER_CALLS / seconds).toFixed(0)} increments/s`,
  );
} finally {
  doc.destroy();
  await bench.stop();
}
