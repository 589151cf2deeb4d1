import { describe, expect, it } from 'vitest';
import {
  type Centre,
  defaultWeights,
  type IssuedPort,
  issuePort,
  type LaneProfile,
  type LaneReading,
  levelBand,
  PRIOR_WEIGHT_SAMPLES,
  profileFromAverages,
  profileFromTypical,
} from '../../../../functions/core/forecast/forecast.ts';
import { portForecastBody } from '../../../../functions/core/forecast/forecast-views.ts';
import {
  centreOf,
  learnerOf,
  MIN_N,
  type PortRecord,
  quantilerOf,
} from '../../../../functions/core/forecast/skill.ts';
import type { HourlyAverage } from '../../../../functions/core/model.ts';
import { utcToZoned, zonedToUtc } from '../../../../functions/core/time.ts';

const LANE = { direction: 'into-us', mode: 'passenger', lane: 'standard' } as const;
const KEY = 'into-us#passenger#standard';

/** Every hour-of-week at `value` minutes with `samples` samples. */
function flatAverages(value: number, samples: number): HourlyAverage[] {
  const out: HourlyAverage[] = [];
  for (let dayOfWeek = 0; dayOfWeek < 7; dayOfWeek++) {
    for (let hour = 0; hour < 24; hour++) {
      out.push({
        portId: 'p',
        ...LANE,
        dayOfWeek,
        hour,
        averageDelayMinutes: value,
        medianDelayMinutes: value,
        samples,
      });
    }
  }
  return out;
}

function issue(
  issuedAtMs: number,
  profile: Map<string, LaneProfile>,
  readings: LaneReading[],
  extra: Partial<Parameters<typeof issuePort>[0]> = {},
  zone = 'America/Los_Angeles',
): IssuedPort {
  return issuePort({
    portId: 'p',
    timeZone: zone,
    border: 'ca',
    issuedAtMs,
    profile,
    lanes: [{ lane: LANE, readings }],
    quantiles: () => [0, 0, 0],
    champion: (_lane, _h, available) => (available.includes('model') ? 'model' : null),
    ...extra,
  });
}

const typical = (minutes: number) =>
  profileFromTypical(
    Array.from({ length: 168 }, (_, i) => ({
      ...LANE,
      dayOfWeek: Math.floor(i / 24),
      hour: i % 24,
      averageMinutes: minutes,
    })),
  );

describe('a prior profile (CBP typical waits) where the lane has little history', () => {
  const issuedMs = Date.parse('2026-05-06T17:00:00Z');
  // The reading equals the profile, so the anomaly is 0 and a point is its base.
  const steady = (value: number): LaneReading[] => [{ atMs: issuedMs - 3_600_000, delayMinutes: value }];

  it('starts from the prior alone where the own hour is too thin, and says so', () => {
    const thin = profileFromAverages(flatAverages(10, 1));
    const result = issue(issuedMs, thin, steady(20), { prior: typical(20) });
    const lane = result.lanes[0];
    const point = lane?.points.find((p) => p.horizonMinutes === 120);
    expect(point?.model?.[0]).toBe(20);
    expect(point?.prior).toBe('typical');
    expect(lane?.reasons).toEqual([
      { code: 'cbp-typical', text: expect.stringMatching(/starts from CBP's typical wait/) },
    ]);
    // Published: the lane's base, and each point's prior.
    const published = portForecastBody('p', result, {}).lanes[0];
    expect(published?.base).toBe('cbp-typical');
    expect(published?.points.length).toBeGreaterThan(0);
    expect(published?.points.every((p) => p.method === 'model' && p.prior === 'typical')).toBe(true);
  });

  it('blends toward the own profile as its samples accrue', () => {
    for (const samples of [2, 4, 12, 40]) {
      const own = profileFromAverages(flatAverages(10, samples));
      const expected = (samples * 10 + PRIOR_WEIGHT_SAMPLES * 30) / (samples + PRIOR_WEIGHT_SAMPLES);
      const result = issue(issuedMs, own, steady(expected), { prior: typical(30) });
      const point = result.lanes[0]?.points.find((p) => p.horizonMinutes === 180);
      expect(point?.model?.[0], `${samples} samples`).toBeCloseTo(expected, 1);
      expect(point?.prior).toBe('blend');
      expect(portForecastBody('p', result, {}).lanes[0]?.points.map((p) => p.prior)).toContain('blend');
    }
  });

  it('publishes nothing without history or prior, and the own profile alone without a prior', () => {
    const thin = profileFromAverages(flatAverages(10, 1));
    expect(issue(issuedMs, thin, steady(20)).lanes[0]?.points.every((p) => p.model === null)).toBe(true);
    const own = profileFromAverages(flatAverages(10, 8));
    const point = issue(issuedMs, own, steady(10)).lanes[0]?.points.find((p) => p.horizonMinutes === 240);
    expect(point?.model?.[0]).toBe(10);
    expect(point?.prior).toBeUndefined();
  });
});

describe('a day ahead', () => {
  /** Port-local hours 06:00-10:00 of the next day, from a forecast issued at 18:00 port-local. */
  function nextMorning(zone: string, date: string): { hour: number; horizon: number }[] {
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    const issuedMs = zonedToUtc({ year, month, day, hour: 18, minute: 0 }, zone);
    const own = profileFromAverages(flatAverages(10, 8));
    const result = issue(issuedMs, own, [{ atMs: issuedMs - 60_000, delayMinutes: 10 }], {}, zone);
    return (result.lanes[0]?.points ?? [])
      .filter((p) => p.model !== null)
      .map((p) => {
        const local = utcToZoned(issuedMs + p.horizonMinutes * 60_000, zone);
        return { local, horizon: p.horizonMinutes };
      })
      .filter(({ local }) => local.day !== day && local.hour >= 6 && local.hour <= 10 && local.minute === 0)
      .map(({ local, horizon }) => ({ hour: local.hour, horizon }));
  }

  it.each([
    ['America/Los_Angeles', '2026-05-06', 720],
    ['America/Los_Angeles', '2026-03-07', 660], // the night clocks spring forward: 11 hours to 06:00
    ['America/Los_Angeles', '2026-10-31', 780], // the night clocks fall back: 13 hours to 06:00
    ['America/New_York', '2026-03-07', 660],
    ['America/Phoenix', '2026-03-07', 720],
  ] as const)('%s, issued 18:00 on %s, covers 06:00-10:00 the next day hour by hour', (zone, date, first) => {
    const morning = nextMorning(zone, date);
    expect(morning.map((m) => m.hour)).toEqual([6, 7, 8, 9, 10]);
    expect(morning.map((m) => m.horizon)).toEqual([first, first + 60, first + 120, first + 180, first + 240]);
  });
});

describe('learning from the record', () => {
  /** A record whose model pairs at +2 h say y = slope * x0 (x1 = x2 = 0), `pairs` of them. */
  function recordOf(slope: number, pairs: number, lane = KEY): PortRecord {
    const x = 50; // tenths of a minute
    const y = slope * x;
    return {
      [lane]: {
        '120': {
          model: {
            abs: 0,
            err: 0,
            cov: 0,
            n: pairs,
            hist: {},
            reg: [x * x * pairs, 0, 0, 100 * pairs, 0, 100 * pairs, x * y * pairs, 0, 0, pairs],
          },
        },
      },
    };
  }

  it('fits the anomaly weight from the lane’s pairs once it has many', () => {
    const weights = learnerOf(recordOf(0.8, 5000))(KEY, 120).weights;
    expect(weights[0]).toBeCloseTo(0.8, 1);
    expect(weights[1]).toBeCloseTo(0, 2);
  });

  it('shrinks a lane with few pairs toward its port’s lanes pooled', () => {
    const port: PortRecord = { ...recordOf(0.8, 5000, 'other#lane#a'), ...recordOf(0.2, 5) };
    const few = learnerOf(port)(KEY, 120).weights[0];
    expect(few).toBeGreaterThan(0.6);
    // With nothing learned at all: the default fading anomaly.
    expect(learnerOf({})(KEY, 120).weights).toEqual(defaultWeights(120));
  });

  it('keeps intervals by level band: a long wait gets its own (wider) band', () => {
    const narrow: Record<string, number> = { '-1': 10, '0': 70, '1': 20 };
    const wide: Record<string, number> = { '-8': 10, '0': 70, '8': 20 };
    const record: PortRecord = {
      [KEY]: {
        '60': { model: { abs: 0, err: 0, cov: 0, n: 200, hist: {}, bands: [narrow, narrow, wide, wide] } },
      },
    };
    const quantiles = quantilerOf(record);
    expect(quantiles(KEY, 60, 'model', levelBand(3))).toEqual([-0.05, 0, 0.05]);
    expect(quantiles(KEY, 60, 'model', levelBand(50))).toEqual([-0.4, 0, 0.4]);
  });
});

describe('recency-weighted profile centres', () => {
  const issuedMs = Date.parse('2026-05-06T17:00:00Z');
  /** All history at 10 minutes; the recency-weighted mean 18 and median 16 (or none kept). */
  const averages = (recent: boolean) =>
    flatAverages(10, 40).map((a) => (recent ? { ...a, recent: { mean: 18, median: 16 } } : a));
  const centred = (centre: Centre) => () => ({ weights: [0, 0, 0] as [number, number, number], centre });
  const baseAt = (profile: Map<string, LaneProfile>, centre: Centre) =>
    issue(issuedMs, profile, [{ atMs: issuedMs - 3_600_000, delayMinutes: 12 }], {
      learned: centred(centre),
    }).lanes[0]?.points.find((p) => p.horizonMinutes === 240)?.basis;

  it('starts from the centre the lane chose, and keeps all four centres for the record to score', () => {
    const profile = profileFromAverages(averages(true));
    expect(baseAt(profile, 'median')?.base).toBe(10);
    expect(baseAt(profile, 'recent-median')?.base).toBe(16);
    expect(baseAt(profile, 'recent-mean')?.base).toBe(18);
    expect(baseAt(profile, 'median')?.centres).toEqual([10, 10, 18, 16]);
  });

  it('reads the all-history centres as the recent ones where the rollups kept none', () => {
    const profile = profileFromAverages(averages(false));
    expect(baseAt(profile, 'recent-median')?.base).toBe(10);
    expect(baseAt(profile, 'recent-mean')?.centres).toEqual([10, 10, 10, 10]);
  });

  it('chooses the centre with the lowest past error once it has enough targets', () => {
    const n = MIN_N;
    // [|a - mean|, |a - median|, n, |a - recent mean|, |a - recent median|, n recent]
    expect(centreOf([300, 200, n, 250, 150, n])).toBe('recent-median');
    expect(centreOf([300, 200, n, 100, 150, n])).toBe('recent-mean');
    expect(centreOf([100, 200, n, 150, 150, n])).toBe('mean');
    // A tie keeps the simpler centre; recent ones with too few targets, or none scored, do not count.
    expect(centreOf([200, 200, n, 200, 200, n])).toBe('median');
    expect(centreOf([300, 200, n, 10, 10, n - 1])).toBe('median');
    expect(centreOf([300, 200, n])).toBe('median');
    expect(centreOf([300, 200, n - 1, 10, 10, n])).toBeNull();
    // Per target: the recent sums may cover fewer targets (records kept before them).
    expect(centreOf([2 * 200, 2 * 190, 2 * n, 185, 180, n])).toBe('recent-median');
  });

  it('learns the recent centre from scored targets: the learner serves it at every horizon', () => {
    const ctr = [400, 300, MIN_N, 200, 100, MIN_N];
    const record: PortRecord = {
      [KEY]: { '60': { model: { abs: 0, err: 0, cov: 0, n: MIN_N, hist: {}, ctr } } },
    };
    expect(learnerOf(record)(KEY, 60).centre).toBe('recent-median');
    expect(learnerOf(record)(KEY, 1440).centre).toBe('recent-median');
    // Another lane of the port without its own record takes the port's choice.
    expect(learnerOf(record)('into-us#passenger#ready', 60).centre).toBe('recent-median');
  });
});
