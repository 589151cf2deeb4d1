import { describe, expect, it } from 'vitest';
import { horizonText, laneForecasts, skillRows } from '../../../site/src/components/forecast.ts';
import { distanceKm } from '../../../site/src/components/prefs.ts';

const score = (mae: number, n: number) => ({ mae, bias: 0.5, coverage: 0.8, n });
const point = { at: '2026-11-18T21:00:00Z', delayMinutes: 20, low: 10, high: 35 };

describe('laneForecasts', () => {
  it.each([
    [
      'a list of horizons',
      [{ horizonMinutes: 60, model: score(5, 10), persistence: score(8, 10), profile: score(9, 10) }],
    ],
    [
      'an object keyed by horizon',
      { 60: { model: score(5, 10), persistence: score(8, 10), profile: score(9, 10) } },
    ],
    [
      'an object keyed by method, horizons listed',
      {
        model: [{ horizonMinutes: 60, ...score(5, 10) }],
        persistence: [{ horizonMinutes: 60, ...score(8, 10) }],
        profile: [{ horizonMinutes: 60, ...score(9, 10) }],
      },
    ],
    [
      'an object keyed by method, then horizon',
      { model: { 60: score(5, 10) }, persistence: { 60: score(8, 10) }, profile: { 60: score(9, 10) } },
    ],
  ])('reads the skill given as %s', (_, skill) => {
    const [lane] = laneForecasts({
      lanes: [
        {
          direction: 'into-us',
          mode: 'passenger',
          lane: 'standard',
          issuedAt: 'x',
          method: 'model',
          points: [point],
          skill,
        },
      ],
    });
    expect(lane?.skill).toEqual([
      { horizonMinutes: 60, model: score(5, 10), persistence: score(8, 10), profile: score(9, 10) },
    ]);
    expect(lane?.points).toEqual([point]);
  });

  it('keeps a lane without points with its reason, and drops points without a number', () => {
    const [lane] = laneForecasts({
      forecasts: [
        {
          direction: 'into-canada',
          mode: 'passenger',
          lane: 'standard',
          method: null,
          reason: 'too little history',
          points: [{ at: 'x', delayMinutes: null }],
        },
      ],
    });
    expect(lane).toMatchObject({ method: null, reason: 'too little history', points: [], skill: [] });
  });

  it('reads nothing from a document of another shape', () => {
    expect(laneForecasts(null)).toEqual([]);
    expect(laneForecasts({ lanes: 'no' })).toEqual([]);
  });
});

describe('skillRows', () => {
  it.each([
    [
      'a horizons list',
      {
        horizons: [
          { horizonMinutes: 120, medianMae: 7, p90Mae: 15, n: 40 },
          { horizonMinutes: 15, medianMae: 3, p90Mae: 6, n: 50 },
        ],
      },
    ],
    [
      'a root list with nested mae',
      [
        { horizon: 120, mae: { median: 7, p90: 15 }, n: 40 },
        { horizon: 15, mae: { median: 3, p90: 6 }, n: 50 },
      ],
    ],
    [
      'horizons keyed by minutes',
      { horizons: { 120: { median: 7, p90: 15, n: 40 }, 15: { median: 3, p90: 6, n: 50 } } },
    ],
  ])('reads median and p90 MAE and n per horizon from %s, shortest first', (_, doc) => {
    expect(skillRows(doc)).toEqual([
      { horizonMinutes: 15, median: 3, p90: 6, n: 50 },
      { horizonMinutes: 120, median: 7, p90: 15, n: 40 },
    ]);
  });
});

describe('the published documents', () => {
  it('reads a port forecast lane with the published figures beside the three methods', () => {
    const figures = (mae: number) => ({ mae, bias: 0.1, coverage: 0.8, n: 40 });
    const [lane] = laneForecasts({
      portId: '250401',
      issuedAt: '2026-11-18T20:10:00.000Z',
      lanes: [
        {
          direction: 'into-us',
          mode: 'passenger',
          lane: 'standard',
          issuedAt: '2026-11-18T20:10:00.000Z',
          method: 'mixed',
          reason: 'the champion differs by horizon (see each point)',
          points: [{ ...point, horizonMinutes: 15, method: 'model' }],
          skill: [
            {
              horizonMinutes: 60,
              champion: 'model',
              model: figures(5),
              persistence: figures(8),
              profile: figures(9),
              published: figures(5),
            },
          ],
        },
      ],
    });
    expect(lane?.method).toBe('mixed');
    expect(lane?.skill[0]?.published).toEqual(figures(5));
    expect(lane?.points).toEqual([point]);
  });

  it('reads the skill summary from its per-series figures, the champion first', () => {
    const series = (medianMae: number, n: number) => ({ lanes: 3, n, medianMae, p90Mae: medianMae * 2 });
    const doc = {
      source: 'live',
      horizons: [
        {
          horizonMinutes: 15,
          lanesScored: 3,
          n: 90,
          model: series(4, 90),
          persistence: series(5, 90),
          profile: series(6, 90),
          champion: series(3.5, 80),
        },
      ],
    };
    expect(skillRows(doc)).toEqual([{ horizonMinutes: 15, median: 3.5, p90: 7, n: 80 }]);
  });
});

describe('site helpers', () => {
  it('names horizons in minutes under an hour, in hours above', () => {
    expect([15, 60, 90, 360].map(horizonText)).toEqual(['15 min', '1 h', '1.5 h', '6 h']);
  });

  it('measures great-circle distances (San Ysidro to the Peace Bridge is about 3,500 km)', () => {
    const km = distanceKm({ lat: 32.54333, lon: -117.02972 }, { lat: 42.9064, lon: -78.9047 });
    expect(km).toBeGreaterThan(3400);
    expect(km).toBeLessThan(3600);
    expect(distanceKm({ lat: 45, lon: -75 }, { lat: 45, lon: -75 })).toBe(0);
  });
});
