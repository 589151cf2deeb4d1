/**
 * The forecast step on the embedded stores: fourteen hours of 15-minute ingest cycles across
 * midnight UTC and the spring DST change, with three weeks of history behind it. Replaying every document adds nothing to the
 * track record; a crash at any step of the forecast step followed by a rerun leaves exactly the
 * track record and documents of a clean run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { slotOf } from '../../functions/core/forecast/forecast.ts';
import type { PortForecastBody } from '../../functions/core/forecast/forecast-views.ts';
import type { SkillDay } from '../../functions/core/forecast/skill.ts';
import { BAD_PORT, FORECAST_KEYS, type ForecastFault, startForecastWorld } from './forecast-world.ts';

const PORTS = ['250401', '090101', 'cbsa-north-portal'];
// From before midnight UTC (so yesterday's record takes scores, then settles into the window at
// 01:45) to past the spring DST change of every zone.
const START = Date.parse('2026-03-07T23:06:00Z');
const POLLS = Array.from({ length: 4 * 14 }, (_, i) => START + i * 15 * 60_000);

interface Snapshot {
  records: Record<string, SkillDay[]>;
  forecasts: Record<string, unknown>;
  skill: unknown;
}

async function snapshot(world: Awaited<ReturnType<typeof startForecastWorld>>): Promise<Snapshot> {
  const forecasts: Record<string, unknown> = {};
  for (const id of PORTS) forecasts[id] = await world.published(FORECAST_KEYS.forecast(id));
  return { records: await world.records(), forecasts, skill: await world.published(FORECAST_KEYS.skill) };
}

const scored = (records: Record<string, SkillDay[]>) =>
  Object.values(records)
    .flat()
    .flatMap((day) => Object.values(day.lanes))
    .flatMap((horizons) => Object.values(horizons))
    .reduce((n, series) => n + (series.model?.n ?? 0), 0);

/**
 * After a run in which one port's items did not read back: the run failed naming that port, and
 * every other port published the slot's forecasts.
 */
async function failedAlone(
  world: Awaited<ReturnType<typeof startForecastWorld>>,
  poll: number,
  error: unknown,
) {
  expect(error).toBeInstanceOf(AggregateError);
  expect(String((error as Error).message)).toMatch(
    new RegExp(
      `: 1 of \\d+ ports failed .*: ${BAD_PORT}: injected: an? (record|issue) that does not read back`,
    ),
  );
  const slot = new Date(slotOf(poll)).toISOString();
  for (const id of PORTS) {
    const body = (await world.published(FORECAST_KEYS.forecast(id))) as PortForecastBody;
    if (id === BAD_PORT) expect(body.issuedAt, id).not.toBe(slot);
    else expect(body.issuedAt, id).toBe(slot);
  }
}

describe('a store that fails every port', () => {
  it("fails the run with every port's error, its message naming five ports and counting the rest", async () => {
    const ids = [...PORTS, '070801', '070401', '010401', '020901'];
    const world = await startForecastWorld(ids, START);
    try {
      const error = await world.ingestAt(START, 'store-down');
      expect(error).toBeInstanceOf(AggregateError);
      const message = String((error as Error).message);
      const failed = Number(/: (\d+) of \d+ ports failed/.exec(message)?.[1]);
      expect(failed).toBeGreaterThan(5);
      expect((error as AggregateError).errors).toHaveLength(failed);
      expect(message.match(/: injected: the store is down/g)).toHaveLength(5);
      expect(message).toMatch(new RegExp(`; and ${failed - 5} more$`));
    } finally {
      await world.stop();
    }
  }, 300_000);
});

describe('forecast track record: replay and crash safety', () => {
  let clean: Snapshot;

  beforeAll(async () => {
    const world = await startForecastWorld(PORTS, START);
    try {
      for (const poll of POLLS) await world.ingestAt(poll);
      clean = await snapshot(world);
    } finally {
      await world.stop();
    }
  }, 600_000);

  it('a clean run scores forecasts and publishes them for every lane with a reading', () => {
    expect(scored(clean.records)).toBeGreaterThan(100);
    const body = clean.forecasts['250401'] as PortForecastBody;
    expect(body.lanes.length).toBeGreaterThan(0);
    const withPoints = body.lanes.filter((lane) => lane.points.length > 0);
    expect(withPoints.length).toBeGreaterThan(0);
    for (const lane of withPoints) {
      expect(lane.issuedAt).toBe(body.issuedAt);
      for (const point of lane.points) {
        expect(point.low).toBeLessThanOrEqual(point.delayMinutes);
        expect(point.high).toBeGreaterThanOrEqual(point.delayMinutes);
      }
      expect(lane.skill.find((s) => s.horizonMinutes === 15)?.model.n).toBeGreaterThan(0);
    }
  });

  it('the published track record is every stored record summed, across midnight UTC and yesterday settling', () => {
    for (const id of PORTS) {
      const days = clean.records[id] ?? [];
      // Both dates took scores: yesterday's record was live, then summed in the settled window.
      expect(days.map((day) => day.date)).toEqual(['2026-03-07', '2026-03-08']);
      const body = clean.forecasts[id] as PortForecastBody;
      for (const lane of body.lanes) {
        const key = `${lane.direction}#${lane.mode}#${lane.lane}`;
        for (const skill of lane.skill) {
          const stored = days.reduce(
            (n, day) => n + (day.lanes[key]?.[String(skill.horizonMinutes)]?.model?.n ?? 0),
            0,
          );
          expect(skill.model.n, `${id} ${key} +${skill.horizonMinutes} min`).toBe(stored);
        }
      }
    }
  });

  it('replaying every document twice more adds nothing to the track record or the documents', async () => {
    const world = await startForecastWorld(PORTS, START);
    try {
      for (let pass = 1; pass <= 3; pass++) {
        for (const poll of POLLS) await world.ingestAt(poll);
        expect(await snapshot(world), `after pass ${pass}`).toEqual(clean);
      }
    } finally {
      await world.stop();
    }
  }, 900_000);

  it.each<[ForecastFault, string]>([
    ['half-record', 'one port folded into its record, the rest not'],
    ['lost-record', 'another run folded the same scores first, so every record write was refused'],
    ['after-issue', 'an issue stored, the step dead before publishing'],
    ['publish', 'two forecast documents written, then publishing failed'],
    ['bad-record', `the records of port ${BAD_PORT} did not read back`],
    ['bad-issue', `the issues of port ${BAD_PORT} did not read back, failing the batched read`],
  ])(
    'a crash (%s: %s) at every 4th poll, then a rerun, gives the record of a clean run',
    async (fault) => {
      const world = await startForecastWorld(PORTS, START);
      try {
        for (const [index, poll] of POLLS.entries()) {
          if (index % 4 === 1) {
            const error = await world.ingestAt(poll, fault);
            if (fault === 'bad-record' || fault === 'bad-issue') await failedAlone(world, poll, error);
          }
          await world.ingestAt(poll);
        }
        expect(world.faults()).toBeGreaterThan(0);
        expect(await snapshot(world)).toEqual(clean);
      } finally {
        await world.stop();
      }
    },
    900_000,
  );
});
