import { describe, expect, it } from 'vitest';
import { PORTS } from '../../../../functions/core/catalogue/catalogue.ts';
import type { HourlyAverage } from '../../../../functions/core/model.ts';
import {
  bestTimes,
  compareCrossings,
  distanceKm,
  searchCrossings,
} from '../../../../functions/core/trips/crossings.ts';
import type { Current, LaneWait, PublishedPort } from '../../../../functions/core/views/views.ts';

const ports: PublishedPort[] = PORTS.map((p) => ({ ...p, catalogued: true }));
const NOW = Date.parse('2026-11-18T18:00:00Z');

describe('searchCrossings', () => {
  it('matches the twin city, accents and case folded', () => {
    expect(searchCrossings(ports, { query: 'TIJUANA', limit: 50 }).map((m) => m.id)).toContain('250401');
  });
  it('filters by state and border', () => {
    const found = searchCrossings(ports, { state: 'wa', border: 'ca', limit: 100 });
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((m) => m.state === 'WA' && m.border === 'ca')).toBe(true);
  });
  it('near a point: nearest first, never ports without a location', () => {
    const found = searchCrossings(ports, { near: { lat: 32.54, lon: -117.03, radiusKm: 50 }, limit: 10 });
    expect(found.map((m) => m.id)).toContain('250401');
    const distances = found.map((m) => m.distanceKm ?? 0);
    expect(distances).toEqual([...distances].sort((x, y) => x - y));
    expect(found.every((m) => m.location !== null && (m.distanceKm ?? 99) <= 50)).toBe(true);
  });
  it('distance is great-circle kilometres', () => {
    expect(Math.round(distanceKm({ lat: 0, lon: 0 }, { lat: 0, lon: 1 }))).toBe(111);
  });
});

const lane = (over: Partial<LaneWait>): LaneWait => ({
  direction: 'into-us',
  mode: 'passenger',
  lane: 'standard',
  status: 'open',
  delayMinutes: 30,
  lanesOpen: 4,
  maxLanes: 8,
  observedAt: new Date(NOW - 5 * 60_000).toISOString(),
  fetchedAt: new Date(NOW).toISOString(),
  freshness: 'fresh',
  source: 'cbp',
  ...over,
});
const current = (lanes: LaneWait[]): Current => ({ status: 'open', updatedAt: '', notice: null, lanes });

describe('compareCrossings', () => {
  const [a, b, c, d] = ports.filter((p) => p.border === 'mx') as [
    PublishedPort,
    PublishedPort,
    PublishedPort,
    PublishedPort,
  ];
  it('ranks by the best allowed lane, leaves out stale and closed with reasons', () => {
    const { ranked, excluded } = compareCrossings(
      [
        {
          port: a,
          current: current([lane({ delayMinutes: 40 }), lane({ lane: 'sentri', delayMinutes: 5 })]),
        },
        { port: b, current: current([lane({ delayMinutes: 20 })]) },
        {
          port: c,
          current: current([
            lane({ delayMinutes: 1, observedAt: new Date(NOW - 100 * 60_000).toISOString() }),
          ]),
        },
        { port: d, current: { ...current([lane({})]), status: 'closed' } },
      ],
      { direction: 'into-us', mode: 'passenger', lanes: ['standard'], includeStale: false },
      NOW,
    );
    expect(ranked.map((r) => [r.portId, r.delayMinutes])).toEqual([
      [b.id, 20],
      [a.id, 40],
    ]);
    expect(excluded.map((e) => e.reason)).toEqual(['no usable reading (stale)', 'port closed']);
  });
  it('counts a trusted-traveller lane when the traveller may use it, and stale readings when asked', () => {
    const { ranked } = compareCrossings(
      [
        {
          port: a,
          current: current([lane({ delayMinutes: 40 }), lane({ lane: 'sentri', delayMinutes: 5 })]),
        },
        {
          port: c,
          current: current([
            lane({ delayMinutes: 1, observedAt: new Date(NOW - 100 * 60_000).toISOString() }),
          ]),
        },
      ],
      { direction: 'into-us', mode: 'passenger', lanes: ['standard', 'sentri'], includeStale: true },
      NOW,
    );
    expect(ranked.map((r) => [r.portId, r.lane, r.freshness])).toEqual([
      [c.id, 'standard', 'stale'],
      [a.id, 'sentri', 'fresh'],
    ]);
  });
});

describe('bestTimes', () => {
  const avg = (dayOfWeek: number, hour: number, averageDelayMinutes: number, samples = 5): HourlyAverage => ({
    portId: '250401',
    direction: 'into-us',
    mode: 'passenger',
    lane: 'standard',
    dayOfWeek,
    hour,
    averageDelayMinutes,
    medianDelayMinutes: averageDelayMinutes,
    samples,
  });
  it('lowest first, thin buckets left out, one day when asked', () => {
    const averages = [avg(1, 8, 50), avg(1, 4, 10), avg(1, 3, 2, 1), avg(2, 5, 5)];
    expect(
      bestTimes(averages, {
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        minSamples: 2,
        limit: 2,
      }).best.map((a) => a.averageDelayMinutes),
    ).toEqual([5, 10]);
    const monday = bestTimes(averages, {
      direction: 'into-us',
      mode: 'passenger',
      lane: 'standard',
      dayOfWeek: 1,
      minSamples: 2,
      limit: 5,
    });
    expect(monday.best.map((a) => a.hour)).toEqual([4, 8]);
    expect(monday.worst?.hour).toBe(8);
  });
});
