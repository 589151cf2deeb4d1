/** Merging CBP's graphs into the stored typical waits never erases and never invents. */
import { describe, expect, it } from 'vitest';
import type { ParsedGraph } from '../../../../functions/core/feeds/cbp-graph.ts';
import {
  mergeTypical,
  nextWeekDates,
  type TypicalEntry,
} from '../../../../functions/core/typical/typical-waits.ts';

const stored: TypicalEntry[] = [
  {
    direction: 'into-us',
    mode: 'passenger',
    lane: 'standard',
    dayOfWeek: 3,
    hour: 8,
    averageMinutes: 40,
    minMinutes: 10,
    maxMinutes: 90,
  },
  {
    direction: 'into-us',
    mode: 'passenger',
    lane: 'standard',
    dayOfWeek: 3,
    hour: 9,
    averageMinutes: 35,
    minMinutes: 10,
    maxMinutes: 80,
  },
];

describe('mergeTypical', () => {
  it('replaces only the lane, weekday and hour a graph gives, and keeps the rest', () => {
    // 2026-11-25 is a Wednesday (3); the graph has hour 8 only (hour 9 was empty in it).
    const graph: ParsedGraph = {
      portNumber: '250401',
      date: '2026-11-25',
      typical: [
        {
          mode: 'passenger',
          lane: 'standard',
          hour: 8,
          averageMinutes: 55,
          minMinutes: 20,
          maxMinutes: null,
        },
      ],
    };
    expect(mergeTypical(stored, [graph])).toEqual([
      { ...stored[0], averageMinutes: 55, minMinutes: 20, maxMinutes: null },
      stored[1],
    ]);
  });

  it('keeps everything when no graph came', () => {
    expect(mergeTypical(stored, [])).toEqual(stored);
  });
});

describe('nextWeekDates', () => {
  it('gives 7 port-local dates from today, one per weekday', () => {
    // 2026-11-27 03:00 UTC is still the 26th in Los Angeles.
    const dates = nextWeekDates(Date.parse('2026-11-27T03:00:00Z'), 'America/Los_Angeles');
    expect(dates).toEqual([
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
      '2026-12-01',
      '2026-12-02',
    ]);
    expect(new Set(dates.map((d) => new Date(`${d}T00:00:00Z`).getUTCDay())).size).toBe(7);
  });
});
