import { describe, expect, it } from 'vitest';
import {
  HORIZONS_MINUTES,
  holidayOn,
  type IssuedPort,
  issuePort,
  type LaneProfile,
  type LaneReading,
  type Method,
  PROFILE_MIN_SAMPLES,
  profileFromAverages,
  quantilesOf,
  slotOf,
} from '../../../../functions/core/forecast/forecast.ts';
import { portForecastBody } from '../../../../functions/core/forecast/forecast-views.ts';
import {
  championOf,
  dueTargets,
  MIN_N,
  mergeRecords,
  type PortRecord,
  quantilesFrom,
  scoreTargets,
} from '../../../../functions/core/forecast/skill.ts';
import type { HourlyAverage } from '../../../../functions/core/model.ts';

const LANE = { direction: 'into-us', mode: 'passenger', lane: 'standard' } as const;
const KEY = 'into-us#passenger#standard';
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Port-local day of week and hour, read from Intl directly (independent of the core's time code). */
function wallClock(epochMs: number, timeZone: string): { dayOfWeek: number; hour: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(epochMs));
  return {
    dayOfWeek: WEEKDAYS.indexOf(parts.find((p) => p.type === 'weekday')?.value ?? ''),
    hour: Number(parts.find((p) => p.type === 'hour')?.value),
  };
}

/** Hourly averages whose median encodes the bucket: 100 * dayOfWeek + hour (+ offset). */
function encodedAverages(
  samples = 4,
  offset = 0,
  only?: (dow: number, hour: number) => boolean,
): HourlyAverage[] {
  const out: HourlyAverage[] = [];
  for (let dow = 0; dow < 7; dow++) {
    for (let hour = 0; hour < 24; hour++) {
      if (only && !only(dow, hour)) continue;
      const value = 100 * dow + hour + offset;
      out.push({
        portId: 'p',
        ...LANE,
        dayOfWeek: dow,
        hour,
        averageDelayMinutes: value,
        medianDelayMinutes: value,
        samples,
      });
    }
  }
  return out;
}

const noRecord = {
  quantiles: () => [-0.5, 0.6] as const,
  champion: (_lane: string, _h: number, available: readonly Method[]) =>
    available.includes('model') ? ('model' as const) : null,
};

function issue(
  issuedAtMs: number,
  profile: Map<string, LaneProfile>,
  readings: LaneReading[],
  zone = 'America/Los_Angeles',
  border: 'mx' | 'ca' = 'mx',
): IssuedPort {
  return issuePort({
    portId: 'p',
    timeZone: zone,
    border,
    issuedAtMs,
    profile,
    lanes: [{ lane: LANE, readings }],
    ...noRecord,
  });
}

describe('forecast targets across the 2026 DST changes', () => {
  // Both changes, in zones with DST, and Arizona and Saskatchewan without.
  const cases = [
    ['America/Los_Angeles', '2026-03-08T08:00:00Z'],
    ['America/Los_Angeles', '2026-11-01T07:00:00Z'],
    ['America/New_York', '2026-03-08T05:00:00Z'],
    ['America/New_York', '2026-11-01T04:00:00Z'],
    ['America/Chicago', '2026-11-01T05:30:00Z'],
    ['America/Phoenix', '2026-03-08T07:00:00Z'],
    ['America/Regina', '2026-11-01T06:00:00Z'],
  ] as const;

  it.each(cases)('%s, issued %s: every point reads the profile of its own local hour', (zone, issuedAt) => {
    const issuedMs = Date.parse(issuedAt);
    const profile = profileFromAverages(encodedAverages());
    // A reading equal to its own hour's profile: no anomaly, so the model is the profile.
    const local = wallClock(issuedMs, zone);
    const reading = 100 * local.dayOfWeek + local.hour;
    const result = issue(
      issuedMs,
      profile,
      [
        { atMs: issuedMs - 3_600_000, delayMinutes: reading },
        { atMs: issuedMs, delayMinutes: reading },
      ],
      zone,
    );
    const lane = result.lanes[0];
    expect(lane?.points).toHaveLength(HORIZONS_MINUTES.length);
    for (const point of lane?.points ?? []) {
      const target = wallClock(issuedMs + point.horizonMinutes * 60_000, zone);
      expect(point.profile?.[0], `+${point.horizonMinutes} min`).toBe(100 * target.dayOfWeek + target.hour);
    }
  });

  it('spring forward: +2 h from local midnight in Los Angeles is 03:00, the skipped 02:00 never appears', () => {
    const issuedMs = Date.parse('2026-03-08T08:00:00Z');
    const result = issue(issuedMs, profileFromAverages(encodedAverages()), [
      { atMs: issuedMs, delayMinutes: 0 },
    ]);
    const hours = result.lanes[0]?.points.map((p) => (p.profile?.[0] ?? 0) % 100);
    // +15..+60 min: 00:xx and 01:00; then 03:00 .. 23:00 local (the day is 23 hours long), and
    // the next day's 00:00 and 01:00 at +23 and +24 h.
    expect(hours).toEqual([0, 0, 0, 1, ...Array.from({ length: 21 }, (_, i) => 3 + i), 0, 1]);
  });

  it('fall back: the repeated 01:00 in Los Angeles is read as hour 1 twice', () => {
    const issuedMs = Date.parse('2026-11-01T07:00:00Z');
    const result = issue(issuedMs, profileFromAverages(encodedAverages()), [
      { atMs: issuedMs, delayMinutes: 0 },
    ]);
    const hours = result.lanes[0]?.points.map((p) => (p.profile?.[0] ?? 0) % 100);
    // 01:00 PDT at +1 h, 01:00 PST at +2 h, then 02:00 .. 23:00 (the day is 25 hours long).
    expect(hours).toEqual([0, 0, 0, 1, ...Array.from({ length: 23 }, (_, i) => 1 + i)]);
  });
});

describe('a lane with too little history', () => {
  const issuedMs = Date.parse('2026-05-06T17:00:00Z');

  it('publishes no model forecast and says why, though it has a reading', () => {
    const thin = profileFromAverages(encodedAverages(PROFILE_MIN_SAMPLES - 1));
    const result = issue(issuedMs, thin, [{ atMs: issuedMs - 60_000, delayMinutes: 30 }]);
    const lane = result.lanes[0];
    expect(lane?.reading?.delayMinutes).toBe(30);
    expect(lane?.points.every((p) => p.model === null && p.champion === null)).toBe(true);
    expect(lane?.reasons).toEqual([
      { code: 'not-enough-history', text: expect.stringMatching(/^not enough history/) },
    ]);
    const body = portForecastBody('p', result, {});
    expect(body.lanes[0]?.points).toEqual([]);
    expect(body.lanes[0]?.method).toBeNull();
    expect(body.lanes[0]?.reason).toMatch(/not enough history/);
    expect(body.lanes[0]?.reasonCodes).toEqual(['not-enough-history']);
  });

  it('publishes only the points whose hours have history, and says how many lack it', () => {
    const local = wallClock(issuedMs, 'America/Los_Angeles');
    // History only for the next two local hours.
    const partial = profileFromAverages(
      encodedAverages(4, 0, (dow, hour) => dow === local.dayOfWeek && hour <= local.hour + 1),
    );
    const result = issue(issuedMs, partial, [{ atMs: issuedMs, delayMinutes: 30 }]);
    const body = portForecastBody('p', result, {});
    const published = body.lanes[0]?.points.map((p) => p.horizonMinutes);
    expect(published).toEqual([15, 30, 45, 60]);
    expect(body.lanes[0]?.reason).toMatch(/not enough history for 23 of 27 points/);
    expect(body.lanes[0]?.reasonCodes?.[0]).toBe('partial-history');
  });

  it('gives a lane with no reading in 3 hours nothing, with the reason', () => {
    const result = issue(issuedMs, profileFromAverages(encodedAverages()), [
      { atMs: issuedMs - 4 * 3_600_000, delayMinutes: 30 },
    ]);
    expect(result.lanes[0]?.points).toEqual([]);
    expect(result.lanes[0]?.reasons).toEqual([
      { code: 'no-recent-reading', text: expect.stringMatching(/^no reading with a wait/) },
    ]);
  });

  it('says a lane whose latest reading has no wait has nothing to forecast from', () => {
    const result = issue(issuedMs, profileFromAverages(encodedAverages()), [
      { atMs: issuedMs - 30 * 60_000, delayMinutes: 30 },
      { atMs: issuedMs - 60_000, delayMinutes: null },
    ]);
    expect(result.lanes[0]?.points).toEqual([]);
    const body = portForecastBody('p', result, {});
    expect(body.lanes[0]?.reasonCodes).toEqual(['no-wait-now']);
    expect(body.lanes[0]?.reason).toMatch(/^the lane reports no wait now/);
  });
});

describe('public holidays', () => {
  it.each([
    ['2026-12-25', 'mx', /Christmas Day \(US\)/],
    ['2026-09-16', 'mx', /Independencia \(MX\)/],
    ['2026-07-01', 'ca', /Canada Day \(CA\)/],
    ['2026-11-26', 'ca', /Thanksgiving Day \(US\)/],
  ] as const)('%s is a holiday at a %s-border port', (date, border, name) => {
    expect(holidayOn(date, border)).toMatch(name);
  });

  it.each([
    ['2026-09-16', 'ca'],
    ['2026-07-01', 'mx'],
    ['2026-12-23', 'mx'],
  ] as const)('%s is not a holiday at a %s-border port', (date, border) => {
    expect(holidayOn(date, border)).toBeNull();
  });

  it('reads a holiday that runs like a Sunday as a Sunday, and names it on its points', () => {
    // Friday 2026-12-25, 10:00 Pacific; the readings so far today match Sunday's profile.
    const zone = 'America/Los_Angeles';
    const issuedMs = Date.parse('2026-12-25T18:00:00Z');
    const profile = profileFromAverages(encodedAverages());
    const readings = [3, 2, 1, 0].map((back) => {
      const atMs = issuedMs - back * 15 * 60_000;
      return { atMs, delayMinutes: wallClock(atMs, zone).hour }; // Sunday's value: 100 * 0 + hour
    });
    const result = issue(issuedMs, profile, readings, zone);
    const far = result.lanes[0]?.points.find((p) => p.horizonMinutes === 360);
    const target = wallClock(issuedMs + 360 * 60_000, zone);
    expect(target.dayOfWeek).toBe(5);
    expect(far?.holiday).toMatch(/Christmas/);
    expect(far?.profile?.[0]).toBe(500 + target.hour); // the baseline stays Friday's
    expect(far?.model?.[0]).toBeCloseTo(target.hour, 0); // the model reads Sunday's
  });

  it('an ordinary Friday is not read as a Sunday', () => {
    const zone = 'America/Los_Angeles';
    const issuedMs = Date.parse('2026-12-18T18:00:00Z');
    const profile = profileFromAverages(encodedAverages());
    const local = wallClock(issuedMs, zone);
    const result = issue(
      issuedMs,
      profile,
      [{ atMs: issuedMs, delayMinutes: 100 * local.dayOfWeek + local.hour }],
      zone,
    );
    const far = result.lanes[0]?.points.find((p) => p.horizonMinutes === 360);
    expect(far?.holiday).toBeUndefined();
    expect(far?.model?.[0]).toBeCloseTo(500 + wallClock(issuedMs + 360 * 60_000, zone).hour, 0);
  });
});

describe('track record and champion', () => {
  const startMs = Date.parse('2026-05-04T12:00:00Z');
  const profile = profileFromAverages(encodedAverages(4, 10));

  /** Issues every slot for `slots` slots from a lane whose reading is constant, then scores each target. */
  function simulate(slots: number, value: number) {
    const pending: IssuedPort[] = [];
    const readings: LaneReading[] = [];
    let record: PortRecord = {};
    for (let i = 0; i < slots; i++) {
      const slot = startMs + i * 15 * 60_000;
      readings.push({ atMs: slot, delayMinutes: value });
      const contributions = scoreTargets([slot - 15 * 60_000], pending, new Map([[KEY, readings]]));
      record = mergeRecords([record, ...contributions.values()]);
      const frozen = record;
      pending.push(
        issuePort({
          portId: 'p',
          timeZone: 'America/Los_Angeles',
          border: 'mx',
          issuedAtMs: slot,
          profile,
          lanes: [{ lane: LANE, readings }],
          quantiles: (lane, h, method) => quantilesFrom(frozen, lane, h, method),
          champion: (lane, h, available) => championOf(frozen, lane, h, available),
        }),
      );
    }
    return { pending, record };
  }

  it('publishes the model until the record holds the minimum n, then the lowest MAE (persistence for a flat lane)', () => {
    const { pending, record } = simulate(MIN_N + 40, 7);
    const n = record[KEY]?.['15']?.model?.n ?? 0;
    expect(n).toBeGreaterThanOrEqual(MIN_N);
    expect(record[KEY]?.['15']?.persistence?.abs).toBe(0);
    expect(pending[0]?.lanes[0]?.points[0]?.champion).toBe('model');
    expect(pending.at(-1)?.lanes[0]?.points[0]?.champion).toBe('persistence');
    // The published series equals what was served: model first, then persistence.
    const published = record[KEY]?.['15']?.champion;
    expect(published?.n).toBe(n);
  });

  it('intervals come from the record once it holds enough scores (a flat lane gets a tight one)', () => {
    const { pending } = simulate(MIN_N + 40, 7);
    const last = pending.at(-1)?.lanes[0]?.points[0];
    expect(last?.persistence).toEqual([7, 7, 7]);
    const first = pending[0]?.lanes[0]?.points[0];
    expect((first?.persistence?.[2] ?? 0) - (first?.persistence?.[1] ?? 0)).toBeGreaterThan(5);
  });

  it('skips targets a record already holds (a replay folds nothing twice)', () => {
    const slot = Date.parse('2026-05-04T12:00:00Z');
    const all = dueTargets(slot, new Map());
    expect(all.at(-1)).toBe(slot - 15 * 60_000);
    const through = new Date(all.at(-1) ?? 0).toISOString();
    expect(dueTargets(slot, new Map([['2026-05-04', through]]))).toEqual([]);
    expect(dueTargets(slot + 15 * 60_000, new Map([['2026-05-04', through]]))).toEqual([slot]);
  });

  it('quantiles need enough scores', () => {
    expect(quantilesOf({ '0': 10 })).toBeNull();
    const [low, median, high] = quantilesOf({ '-2': 10, '0': 79, '3': 11 }) ?? [];
    expect(median).toBe(0);
    expect(low).toBeCloseTo(-0.1, 9);
    expect(high).toBeCloseTo(0.15, 9);
  });

  it('a slot is issued 5 minutes after it starts', () => {
    expect(new Date(slotOf(Date.parse('2026-05-04T12:04:59Z'))).toISOString()).toBe(
      '2026-05-04T11:45:00.000Z',
    );
    expect(new Date(slotOf(Date.parse('2026-05-04T12:05:00Z'))).toISOString()).toBe(
      '2026-05-04T12:00:00.000Z',
    );
  });
});
