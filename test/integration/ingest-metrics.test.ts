/**
 * The ingest function's metrics, as CloudWatch reads them: one EMF document per cycle in the
 * BorderWaits namespace with the `service` dimension, counting failed or refused feeds (the
 * stack's FeedsFailing alarm), new observations and rejects.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_NAMES, METRICS_NAMESPACE } from '../../functions/core/metrics.ts';
import { createIngestHandler } from '../../functions/handlers/ingest.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { lambdaContext } from '../../infra/local/lambda-context.ts';
import { type Simulator, startSimulator } from '../../infra/local/simulator/server.ts';

const AT = Date.parse('2026-11-18T15:04:00Z');

interface Emf {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  service: string;
  [metric: string]: unknown;
}

let dataDir = '';
let simulator: Simulator;
let stores: EmbeddedStores;
const emitted: Emf[] = [];
const lines: string[] = [];
let ingest: ReturnType<typeof createIngestHandler>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'border-waits-metrics-'));
  simulator = await startSimulator({ clock: { now: () => AT }, ports: ['250401', '070801', '3004'] });
  stores = await startEmbeddedStores(dataDir, { now: () => AT });
  ingest = createIngestHandler(
    {
      AWS_ENDPOINT_URL_DYNAMODB: stores.endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: stores.endpoints.s3,
      CBP_FEED_URL: simulator.cbpXmlUrl,
      CBSA_FEED_URL: simulator.cbsaEnUrl,
      FEED_TIMEOUT_MS: '5000',
      WEBHOOK_SIGNING_KEY: 'k'.repeat(32),
    },
    {
      clock: { now: () => AT },
      log: (line) => lines.push(line),
      metricsOutput: (emf) => emitted.push(JSON.parse(emf) as Emf),
    },
  );
}, 60_000);

afterAll(async () => {
  await simulator?.stop();
  await stores?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const cycle = () => ingest({} as never, lambdaContext('ingest', 50));

describe('ingest metrics (EMF)', () => {
  it('counts new observations and no failures on a good cycle', async () => {
    const outcomes = await cycle();
    const emf = emitted.at(-1);
    expect(emf?._aws.CloudWatchMetrics[0]?.Namespace).toBe(METRICS_NAMESPACE);
    expect(emf?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service']]);
    expect(emf?.service).toBe('ingest');
    expect(emf?.[METRIC_NAMES.feedFailures]).toBe(0);
    const fresh = outcomes.reduce((sum, o) => sum + o.newObservations, 0);
    expect(fresh).toBeGreaterThan(0);
    expect(emf?.[METRIC_NAMES.newObservations]).toBe(fresh);
    expect(emf?.[METRIC_NAMES.rejects]).toBe(outcomes.reduce((sum, o) => sum + o.rejects, 0));
  });

  it('counts each failed or refused feed of a cycle', async () => {
    simulator.setFault('cbp', { kind: 'status', status: 503 });
    simulator.setFault('cbsa', { kind: 'few-ports', ports: 0 });
    try {
      const outcomes = await cycle();
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['failed', 'failed']);
      expect(emitted.at(-1)?.[METRIC_NAMES.feedFailures]).toBe(2);
      expect(lines.some((line) => line.includes('outcome=failed'))).toBe(true);
    } finally {
      simulator.setFault('cbp', null);
      simulator.setFault('cbsa', null);
    }
  });
});
