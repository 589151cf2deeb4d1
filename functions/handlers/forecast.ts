import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { createHttpGraphSource } from '../adapters/http-feed/graph-source.ts';
import { createTelemetry, type TelemetryOptions } from '../adapters/powertools/telemetry.ts';
import { preloadS3 } from '../adapters/s3/sdk.ts';
import { createStores } from '../adapters/stores.ts';
import { ForecastConfigSchema, parseConfig, storeSettingsOf } from '../config.ts';
import { PORTS } from '../core/catalogue/catalogue.ts';
import { type ForecastOutcome, runForecastCycle } from '../core/forecast/forecast-cycle.ts';
import { type Clock, systemClock } from '../core/stores.ts';
import { refreshTypicalWaits, typicalPorts } from '../core/typical/typical-waits.ts';

/** Kept free at the end of the function's time to finish the ports started and publish. */
const FINISH_MARGIN_MS = 20_000;
/** Time CBP's typical waits may take to start ports in one run (the rest wait for the next run). */
const TYPICAL_BUDGET_MS = 10_000;

/**
 * The forecast function for a given environment (the local runtime passes its own): the slot of
 * the scheduled time, unless a run already finished it. Its own function, so the every-minute
 * ingest never carries the forecast's reads and writes.
 */
export function createForecastHandler(
  env: Record<string, string | undefined>,
  options: { clock?: Clock } & TelemetryOptions = {},
) {
  const config = parseConfig(ForecastConfigSchema, env);
  const clock = options.clock ?? systemClock;
  const { forecasts, observations, rollups, latest, documents } = createStores(
    storeSettingsOf(config),
    clock,
  );
  const telemetry = createTelemetry('forecast', options);
  const graphs = createHttpGraphSource({
    template: config.CBP_GRAPH_URL,
    timeoutMs: config.GRAPH_TIMEOUT_MS,
  });
  const ports = typicalPorts(PORTS);
  return middy<ScheduledEvent | Record<string, never>, ForecastOutcome>().handler(async (_event, context) => {
    // CBP's typical waits first (daily, and at the first start), so the slot can start from them;
    // when none is due this is one read. A failure keeps the last good values and never stops the slot.
    await refreshTypicalWaits({
      graphs,
      documents,
      clock,
      ports,
      log: (line) => telemetry.log(line),
      budgetMs: TYPICAL_BUDGET_MS,
    }).catch((error: unknown) =>
      telemetry.log(`typical-waits failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    const left = context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
    const outcome = await runForecastCycle({
      forecasts,
      observations,
      rollups,
      latest,
      documents,
      clock,
      log: (line) => telemetry.log(line),
      budgetMs: Math.max(0, Math.min(config.FORECAST_BUDGET_MS, left - FINISH_MARGIN_MS)),
    });
    if (outcome.skipped) telemetry.log(`forecast slot=${outcome.slot}: already done`);
    return outcome;
  });
}

// A run that does its slot writes every port's forecast document: the S3 SDK module loads with the
// function (Lambda's init phase), not in that run.
await preloadS3();

let cached: ReturnType<typeof createForecastHandler> | undefined;

/** The Lambda entry point (EventBridge schedule), configured from `process.env` on the first call. */
export const handler = (event: ScheduledEvent, context: Context) => {
  cached ??= createForecastHandler(process.env);
  return cached(event, context);
};
