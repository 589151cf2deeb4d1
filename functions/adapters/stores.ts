/**
 * Builds the store adapters from a function's configuration: one set per cold start.
 */
import { BUCKETS, TABLES } from '../../infra/manifest.ts';
import type { Clock } from '../core/stores.ts';
import { createDocumentClient } from './dynamo/client.ts';
import { createForecastStore } from './dynamo/forecasts.ts';
import { createHealthStore } from './dynamo/health.ts';
import { createLatestStore } from './dynamo/latest.ts';
import { createObservationStore } from './dynamo/observations.ts';
import { createRollupStore } from './dynamo/rollups.ts';
import { createDocumentStore, createS3Client } from './s3/documents.ts';

export interface StoreConfig {
  AWS_ENDPOINT_URL_DYNAMODB?: string | undefined;
  AWS_ENDPOINT_URL_S3?: string | undefined;
  AWS_REGION: string;
  [name: string]: unknown;
}

export function createStores(config: StoreConfig, clock: Clock) {
  const name = (envVar: string) => String(config[envVar]);
  const dynamo = createDocumentClient({
    endpoint: config.AWS_ENDPOINT_URL_DYNAMODB,
    region: config.AWS_REGION,
  });
  const s3 = createS3Client({ endpoint: config.AWS_ENDPOINT_URL_S3, region: config.AWS_REGION });
  return {
    dynamo,
    s3,
    observations: createObservationStore(dynamo, name(TABLES.observations.envVar), () => clock.now()),
    latest: createLatestStore(dynamo, name(TABLES.latest.envVar)),
    rollups: createRollupStore(dynamo, name(TABLES.rollups.envVar), () => clock.now()),
    health: createHealthStore(dynamo, name(TABLES.health.envVar)),
    documents: createDocumentStore(s3, name(BUCKETS.data.envVar)),
    forecasts: createForecastStore(dynamo, name(TABLES.forecasts.envVar)),
  };
}

export type Stores = ReturnType<typeof createStores>;
