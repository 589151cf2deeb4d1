/**
 * The recency-weighted rollups: decayed settled totals, their weighted medians and the centres the
 * forecast's profile reads (the service's rollups and the backtest share these functions).
 */
import { describe, expect, it } from 'vitest';
import {
  decayWeight,
  foldDecayed,
  type Histogram,
  medianOf,
  RECENT_HALF_LIFE_WEEKS,
  recentCentresOf,
  weightedMedianOf,
} from '../../../../functions/core/history/rollups.ts';

const DAY = 86_400_000;
const dateAfter = (start: string, days: number) =>
  new Date(Date.parse(`${start}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/** One Saturday's part of a lane: `count` readings of `minutes`. */
const part = (date: string, minutes: number, count = 4) => ({
  date,
  s: minutes * count,
  n: count,
  h: { [String(minutes)]: count },
});

describe('decayWeight', () => {
  it('halves a date every half-life and leaves a date that is not older at 1', () => {
    expect(decayWeight('2026-01-03', dateAfter('2026-01-03', 7 * RECENT_HALF_LIFE_WEEKS))).toBeCloseTo(
      0.5,
      12,
    );
    expect(decayWeight('2026-01-03', dateAfter('2026-01-03', 14 * RECENT_HALF_LIFE_WEEKS))).toBeCloseTo(
      0.25,
      12,
    );
    expect(decayWeight('2026-01-03', '2026-01-03')).toBe(1);
    expect(decayWeight('2026-02-03', '2026-01-03')).toBe(1);
    expect(decayWeight('2026-01-03', '')).toBe(1);
  });
});

describe('weightedMedianOf', () => {
  it('is the exact median of whole counts, odd and even totals alike', () => {
    const histograms: Histogram[] = [
      { '5': 1 },
      { '5': 1, '9': 1 },
      { '1': 2, '3': 1, '10': 4 },
      { '1': 3, '3': 3 },
      { '0': 5, '2': 1, '7': 1, '40': 3 },
      { '12': 2, '4': 2, '8': 1 },
    ];
    for (const histogram of histograms) expect(weightedMedianOf(histogram)).toBe(medianOf(histogram));
  });

  it('follows the weights: a heavy recent value outweighs many light old ones', () => {
    expect(weightedMedianOf({ '10': 6 * 0.1, '30': 1 })).toBe(30);
    expect(weightedMedianOf({ '10': 6 * 0.2, '30': 1 })).toBe(10);
    expect(weightedMedianOf({})).toBeNull();
  });
});

describe('foldDecayed', () => {
  it('ages the total to the newest date folded and weighs each part by its own age', () => {
    const start = '2026-01-03';
    const later = dateAfter(start, 7 * RECENT_HALF_LIFE_WEEKS);
    const total = foldDecayed(undefined, [part(start, 10), part(later, 30)]);
    expect(total).toEqual({ s: 0.5 * 40 + 120, n: 0.5 * 4 + 4, h: { '10': 2, '30': 4 }, at: later });
  });

  it('gives the same total folded date by date as folded at once (a replay settles at other moments)', () => {
    const parts = Array.from({ length: 30 }, (_, week) =>
      part(dateAfter('2025-06-07', 7 * week), 5 + (week % 7) * 3, 1 + (week % 4)),
    );
    let oneByOne: ReturnType<typeof foldDecayed>;
    for (const p of parts) oneByOne = foldDecayed(oneByOne, [p]);
    const atOnce = foldDecayed(undefined, parts);
    expect(oneByOne?.at).toBe(atOnce?.at);
    expect(oneByOne?.n).toBeCloseTo(atOnce?.n ?? 0, 2);
    expect(oneByOne?.s).toBeCloseTo(atOnce?.s ?? 0, 2);
    for (const [value, weight] of Object.entries(atOnce?.h ?? {})) {
      expect(oneByOne?.h[value]).toBeCloseTo(weight, 2);
    }
  });

  it('lets a long-gone regime vanish from the histogram instead of keeping it for ever', () => {
    const old = foldDecayed(undefined, [part('2020-01-04', 50)]);
    const now = foldDecayed(old, [part('2026-01-03', 10)]);
    expect(now?.h).toEqual({ '10': 4 });
    expect(now?.n).toBe(4);
  });
});

describe('recentCentresOf', () => {
  it('moves toward a new regime that the all-history centres still hide', () => {
    // A year at 10 minutes, then twelve weeks at 30: the all-history median stays 10.
    const parts = [
      ...Array.from({ length: 52 }, (_, week) => part(dateAfter('2025-01-04', 7 * week), 10)),
      ...Array.from({ length: 12 }, (_, week) => part(dateAfter('2026-01-03', 7 * week), 30)),
    ];
    const all = medianOf({ '10': 52 * 4, '30': 12 * 4 });
    expect(all).toBe(10);
    const settled = parts.slice(0, -2);
    const young = parts.slice(-2);
    const recent = recentCentresOf(foldDecayed(undefined, settled), young);
    expect(recent?.median).toBe(30);
    expect(recent?.mean).toBeGreaterThan(20);
    expect(recent?.mean).toBeLessThan(30);
  });

  it('is the plain mean and median when nothing is settled, and null without samples', () => {
    expect(recentCentresOf(undefined, [part('2026-01-03', 4, 1), part('2026-01-10', 9, 2)])).toEqual({
      mean: Math.round((22 / 3) * 100) / 100,
      median: 9,
    });
    expect(recentCentresOf(undefined, [])).toBeNull();
  });
});
