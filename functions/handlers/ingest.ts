import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { createHttpFeedSource } from '../adapters/http-feed/source.ts';
import { createStores } from '../adapters/stores.ts';
import { IngestConfigSchema, parseConfig } from '../config.ts';
import { runIngestCycle, type SourceOutcome } from '../core/ingest.ts';
import { type Clock, systemClock } from '../core/stores.ts';

/** The ingest function for a given environment (the local runtime passes its own). */
export function createIngestHandler(
  env: Record<string, string | undefined>,
  options: { clock?: Clock; log?: (line: string) => void } = {},
) {
  const config = parseConfig(IngestConfigSchema, env);
  const clock = options.clock ?? systemClock;
  const stores = createStores(config, clock);
  const feed = { timeoutMs: config.FEED_TIMEOUT_MS, maxBytes: config.FEED_MAX_BYTES };
  const sources = [
    createHttpFeedSource({ source: 'cbp', url: config.CBP_FEED_URL, ...feed }),
    createHttpFeedSource({ source: 'cbsa', url: config.CBSA_FEED_URL, ...feed }),
  ];
  const log = options.log ?? ((line: string) => console.log(line));
  return middy<ScheduledEvent | Record<string, never>, SourceOutcome[]>().handler(() =>
    runIngestCycle({ ...stores, sources, clock, log }),
  );
}

let cached: ReturnType<typeof createIngestHandler> | undefined;

/** The Lambda entry point (EventBridge schedule), configured from `process.env` on the first call. */
export const handler = (event: ScheduledEvent, context: Context) => {
  cached ??= createIngestHandler(process.env);
  return cached(event, context);
};
