/**
 * The two embedded stores alone (dynalite and s3rver under a data directory, tables and buckets
 * from the manifest) with the adapters the functions use: for runs that drive the ingest use case
 * directly, without the edge and the gateway (history tests, benchmarks).
 */
import { createStores } from '../../functions/adapters/stores.ts';
import { parseConfig, StoreConfigSchema, storeSettingsOf } from '../../functions/config.ts';
import type { Clock } from '../../functions/core/stores.ts';
import { createTables, startDynamoOwner } from './dynamo.ts';
import { startS3 } from './s3.ts';

export interface EmbeddedStores {
  endpoints: { dynamodb: string; s3: string };
  /** The adapters, as `createStores` builds them for a function. */
  stores: ReturnType<typeof createStores>;
  stop(): Promise<void>;
}

export async function startEmbeddedStores(dataDir: string, clock: Clock): Promise<EmbeddedStores> {
  const dynamo = await startDynamoOwner(dataDir);
  const s3 = await startS3(dataDir).catch(async (error: unknown) => {
    await dynamo.close();
    throw error;
  });
  await createTables(dynamo.endpoint);
  const config = parseConfig(StoreConfigSchema, {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
  });
  const stores = createStores(storeSettingsOf(config), clock);
  return {
    endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint },
    stores,
    async stop() {
      stores.dynamo.destroy();
      stores.s3.destroy();
      await s3.close();
      await dynamo.close();
    },
  };
}
