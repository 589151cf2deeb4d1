/**
 * The 14-day raw window: observations older than 336 hours are never returned, through the API or
 * the store, before and after the local sweeper deletes them; the hourly averages built from them
 * stay published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStores } from '../../functions/adapters/stores.ts';
import { parseConfig, StoreConfigSchema, storeSettingsOf } from '../../functions/config.ts';
import type { HourlyAverage } from '../../functions/core/model.ts';
import { RETENTION_HOURS } from '../../infra/manifest.ts';
import { startStack, type TestStack } from './stack.ts';

const HOUR = 3_600_000;
const FIRST = Date.parse('2026-11-02T15:07:00Z');
const LATER = FIRST + (RETENTION_HOURS + 2) * HOUR;
const PORT = '250401';

interface ObservationsBody {
  count: number;
  from: string;
  observations: { observedAt: string }[];
}

describe('observations expire after 336 hours; averages stay', () => {
  let stack: TestStack;
  let firstObserved: string[];
  let averagesBefore: HourlyAverage[];

  beforeAll(async () => {
    stack = await startStack({ atMs: FIRST });
    await stack.service.ingestNow();
    const first = await stack.json<ObservationsBody>(`/api/v1/wait-observations?port_id=${PORT}&hours=2`);
    firstObserved = first.body.observations.map((o) => o.observedAt);
    averagesBefore = (await stack.json<HourlyAverage[]>(`/api/v1/port-hourly-averages?port_id=${PORT}`)).body;
    stack.clock.set(LATER);
    await stack.service.ingestNow();
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('the first ingest stored observations and published averages for them', () => {
    expect(firstObserved.length).toBeGreaterThan(0);
    expect(averagesBefore.length).toBeGreaterThan(0);
  });

  it('the API never returns an observation older than 336 hours', async () => {
    const { status, body } = await stack.json<ObservationsBody>(
      `/api/v1/wait-observations?port_id=${PORT}&hours=336`,
    );
    expect(status).toBe(200);
    expect(body.count).toBeGreaterThan(0);
    const horizon = LATER - RETENTION_HOURS * HOUR;
    for (const observation of body.observations) {
      expect(Date.parse(observation.observedAt)).toBeGreaterThanOrEqual(horizon);
    }
    const returned = new Set(body.observations.map((o) => o.observedAt));
    expect(firstObserved.filter((at) => returned.has(at))).toEqual([]);
  });

  it('the store filters expired items before the sweep, and the sweep deletes them', async () => {
    const stores = createStores(
      storeSettingsOf(
        parseConfig(StoreConfigSchema, {
          AWS_ENDPOINT_URL_DYNAMODB: stack.service.endpoints.dynamodb,
          AWS_ENDPOINT_URL_S3: stack.service.endpoints.s3,
        }),
      ),
      { now: () => LATER },
    );
    try {
      // The whole history, asked for explicitly: the expired items are still in the table.
      const everything = await stores.observations.query(PORT, 0, LATER);
      expect(everything.length).toBeGreaterThan(0);
      expect(everything.filter((o) => firstObserved.includes(o.observedAt))).toEqual([]);
      expect(await stack.service.sweep()).toBeGreaterThan(0);
      expect(await stack.service.sweep()).toBe(0);
    } finally {
      stores.dynamo.destroy();
      stores.s3.destroy();
    }
  });

  it('the averages built from the expired observations are still published', async () => {
    const { status, body } = await stack.json<HourlyAverage[]>(
      `/api/v1/port-hourly-averages?port_id=${PORT}`,
    );
    expect(status).toBe(200);
    for (const bucket of averagesBefore) {
      const now = body.find(
        (b) =>
          b.direction === bucket.direction &&
          b.mode === bucket.mode &&
          b.lane === bucket.lane &&
          b.dayOfWeek === bucket.dayOfWeek &&
          b.hour === bucket.hour,
      );
      expect(now?.samples ?? 0).toBeGreaterThanOrEqual(bucket.samples);
    }
  });
});
