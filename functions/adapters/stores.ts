/**
 * Builds the store adapters from a function's configuration: one set per cold start.
 */
import { createSoleWriter } from '../core/ingest/sole-writer.ts';
import type { Clock } from '../core/stores.ts';
import { createDocumentClient } from './dynamo/client.ts';
import { createForecastStore } from './dynamo/forecasts.ts';
import { createHealthStore } from './dynamo/health.ts';
import { createLatestStore } from './dynamo/latest.ts';
import { createObservationStore } from './dynamo/observations.ts';
import { createRollupStore } from './dynamo/rollups.ts';
import { createDocumentStore } from './s3/documents.ts';
import { createLazyS3 } from './s3/sdk.ts';

/** Endpoints (local stand-ins; unset in AWS), region and physical names (`storeSettingsOf` in config.ts). */
export interface StoreSettings {
  region: string;
  dynamodbEndpoint?: string | undefined;
  s3Endpoint?: string | undefined;
  tables: { observations: string; latest: string; rollups: string; health: string; forecasts: string };
  buckets: { data: string };
}

export function createStores(settings: StoreSettings, clock: Clock) {
  const dynamo = createDocumentClient({ endpoint: settings.dynamodbEndpoint, region: settings.region });
  // The S3 client is made on first use (see s3/sdk.ts).
  const s3 = createLazyS3({ endpoint: settings.s3Endpoint, region: settings.region });
  // Whether this process is, for the moment, the only writer of the observations and rollups (the
  // ingest claims it under its lease).
  const sole = createSoleWriter();
  return {
    dynamo,
    s3,
    sole,
    observations: createObservationStore(dynamo, settings.tables.observations, () => clock.now(), sole),
    latest: createLatestStore(dynamo, settings.tables.latest),
    rollups: createRollupStore(dynamo, settings.tables.rollups, () => clock.now(), sole),
    health: createHealthStore(dynamo, settings.tables.health),
    documents: createDocumentStore(s3, settings.buckets.data),
    forecasts: createForecastStore(dynamo, settings.tables.forecasts),
  };
}

export type Stores = ReturnType<typeof createStores>;
