import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { createAlertStore } from '../adapters/dynamo/alerts.ts';
import { createLeaseStore } from '../adapters/dynamo/lease.ts';
import { createPushAlertStore } from '../adapters/dynamo/push-alerts.ts';
import { createHttpFeedSource } from '../adapters/http-feed/source.ts';
import { createMetrics, type MetricsOptions, type MetricsSink } from '../adapters/powertools/metrics.ts';
import { createTelemetry, type TelemetryOptions } from '../adapters/powertools/telemetry.ts';
import { preloadS3 } from '../adapters/s3/sdk.ts';
import { createSecretsManagerSource, preloadSecretsManager } from '../adapters/secrets/secrets-manager.ts';
import { createStores, type Stores } from '../adapters/stores.ts';
import { createWebPushDelivery } from '../adapters/web-push/deliver.ts';
import { createWebhookDelivery } from '../adapters/webhook/deliver.ts';
import { IngestWithAlertsConfigSchema, parseConfig, storeSettingsOf } from '../config.ts';
import { INGEST_LEASE_MS } from '../contract.ts';
import { evaluateAllAlerts } from '../core/alerts/evaluate.ts';
import { vapidKeysOf } from '../core/alerts/push.ts';
import { latestOnce, runIngestCycle, type SourceOutcome } from '../core/ingest/ingest.ts';
import { withLease } from '../core/ingest/lease.ts';
import { METRIC_NAMES } from '../core/metrics.ts';
import { currentSecret, type SecretSource } from '../core/secrets.ts';
import { type Clock, systemClock } from '../core/stores.ts';

/** The cycle's metrics: the stack's FeedsFailing alarm reads FeedFailures. */
function countOutcomes(metrics: MetricsSink, outcomes: readonly SourceOutcome[]): void {
  const failures = outcomes.filter((o) => o.outcome === 'failed' || o.outcome === 'refused').length;
  metrics.count(METRIC_NAMES.feedFailures, failures);
  metrics.count(
    METRIC_NAMES.newObservations,
    outcomes.reduce((sum, o) => sum + o.newObservations, 0),
  );
  metrics.count(
    METRIC_NAMES.rejects,
    outcomes.reduce((sum, o) => sum + o.rejects, 0),
  );
}

/** Kept free at the end of the function's time for the last writes after the alert deadline. */
const ALERT_MARGIN_MS = 5_000;

/**
 * The ingest function for a given environment (the local runtime passes its own). `stores`: the
 * adapters already built from the same settings (a benchmark that meters their requests).
 */
export function createIngestHandler(
  env: Record<string, string | undefined>,
  options: {
    clock?: Clock;
    secrets?: SecretSource;
    /** Extra trusted CA certificates (PEM) for push services: a local stand-in's own CA. */
    pushCa?: string;
    stores?: Stores;
  } & TelemetryOptions &
    MetricsOptions = {},
) {
  const config = parseConfig(IngestWithAlertsConfigSchema, env);
  const clock = options.clock ?? systemClock;
  const settings = storeSettingsOf(config);
  const stores = options.stores ?? createStores(settings, clock);
  const feed = { timeoutMs: config.FEED_TIMEOUT_MS, maxBytes: config.FEED_MAX_BYTES };
  const sources = [
    createHttpFeedSource({ source: 'cbp', url: config.CBP_FEED_URL, ...feed }),
    createHttpFeedSource({ source: 'cbsa', url: config.CBSA_FEED_URL, ...feed }),
  ];
  const telemetry = createTelemetry('ingest', options);
  const metrics = createMetrics('ingest', options);
  const log = (line: string) => telemetry.log(line);
  const alerts = createAlertStore(stores.dynamo, settings.tables.alerts);
  const pushAlerts = createPushAlertStore(stores.dynamo, settings.tables.pushAlerts);
  // The lease is about real time (how long a cycle may run), never the simulated clock.
  const leases = createLeaseStore(stores.dynamo, settings.tables.health);
  /** This process, as the lease records its last writer. */
  const writer = `ingest/${randomUUID()}`;
  const secrets = options.secrets ?? createSecretsManagerSource();
  // The signing key and the VAPID key are read at run time (cached by the source), never from
  // the environment.
  const webhookDelivery = async () =>
    createWebhookDelivery({
      allowPrivate: config.ALERT_WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: config.ALERT_WEBHOOK_TIMEOUT_MS,
      signingKey: await currentSecret(secrets, config.WEBHOOK_SIGNING_KEY_SECRET),
    });
  let vapid: { secret: string; keys: ReturnType<typeof vapidKeysOf> } | undefined;
  const pushDelivery = async () => {
    const secret = await currentSecret(secrets, config.VAPID_KEY_SECRET);
    if (vapid?.secret !== secret) vapid = { secret, keys: vapidKeysOf(secret) };
    return createWebPushDelivery({
      vapid: vapid.keys,
      hosts: config.PUSH_SERVICE_HOSTS,
      timeoutMs: config.PUSH_TIMEOUT_MS,
      ...(options.pushCa ? { ca: options.pushCa } : {}),
    });
  };
  return middy<ScheduledEvent | Record<string, never>, SourceOutcome[]>().handler(async (_event, context) => {
    const run = await withLease(
      leases,
      {
        name: 'ingest',
        holder: `${context.awsRequestId ?? 'local'}/${randomUUID().slice(0, 8)}`,
        writer,
        ttlMs: INGEST_LEASE_MS,
        now: Date.now,
      },
      async ({ continued }) => {
        // The only writer of the observations and rollups until the lease is given back; what
        // the stores hold of earlier writes is dropped if another writer came between.
        stores.sole.begin(continued, clock.now());
        try {
          // `latest` read once for the cycle and the alerts after it (this lease holder is its only
          // writer, and the copy follows every write that succeeded): one Scan a cycle, not two.
          const latest = latestOnce(stores.latest);
          const outcomes = await runIngestCycle({
            ...stores,
            latest,
            sources,
            clock,
            log,
          });
          countOutcomes(metrics, outcomes);
          metrics.flush();
          // After the cycle, on whatever the latest readings now are: stale ones never fire.
          const left = context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
          // One engine for both kinds of alert: the readings read once, one deadline for deliveries.
          await evaluateAllAlerts({
            latest,
            clock,
            log,
            deadlineMs: Math.max(0, Math.min(config.ALERT_DELIVERY_DEADLINE_MS, left - ALERT_MARGIN_MS)),
            concurrency: config.ALERT_DELIVERY_CONCURRENCY,
            webhooks: {
              alerts,
              delivery: webhookDelivery,
              attempts: config.ALERT_WEBHOOK_ATTEMPTS,
              backoffMs: config.ALERT_WEBHOOK_BACKOFF_MS,
            },
            push: { store: pushAlerts, delivery: pushDelivery, timeoutMs: config.PUSH_TIMEOUT_MS },
          }).catch((error: unknown) => telemetry.error('alerts: evaluation failed', error));
          return outcomes;
        } finally {
          stores.sole.end();
        }
      },
    );
    if (run.ran) return run.result;
    log(`ingest: skipped: ${run.reason}`);
    return [];
  });
}

let cached: ReturnType<typeof createIngestHandler> | undefined;

/**
 * The Lambda entry point (EventBridge schedule), configured from `process.env` on the first call.
 * A cycle first takes its lease (DynamoDB) and downloads the feeds; only then does it publish
 * documents (S3) and sign alert deliveries (Secrets Manager). So the first call starts loading
 * those two SDK modules and does not wait for them: they load while the cycle waits on the
 * network, and the init phase loads only what a cycle needs first.
 */
export const handler = (event: ScheduledEvent, context: Context) => {
  if (!cached) {
    cached = createIngestHandler(process.env);
    // A failed load surfaces where the module is used, with the cycle's own error handling.
    Promise.all([preloadS3(), preloadSecretsManager()]).catch(() => {});
  }
  return cached(event, context);
};
