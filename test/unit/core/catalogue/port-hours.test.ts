/**
 * Port hours as CBP publishes them: every form in the real captures reads as hours (table-driven
 * over `../shared/fixtures/feeds/`, skipped with a message without it), the forms written out, and
 * the forecast holding no point for a time the port is closed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAt, openHoursOf } from '../../../../functions/core/catalogue/port-hours.ts';
import {
  issuePort,
  type LaneReading,
  profileFromAverages,
} from '../../../../functions/core/forecast/forecast.ts';
import { portForecastBody } from '../../../../functions/core/forecast/forecast-views.ts';
import type { HourlyAverage } from '../../../../functions/core/model.ts';
import { utcToZoned, zonedToUtc } from '../../../../functions/core/time.ts';
import { sharedFeedsDir, sharedFeedsMissing, sharedFeedsPresent } from '../feeds/cbp-fixtures.ts';

/** Every distinct `hours` text of the CBP captures (XML elements and JSON fields). */
function capturedHours(): string[] {
  const found = new Set<string>();
  for (const file of readdirSync(sharedFeedsDir)) {
    if (!file.startsWith('cbp-')) continue;
    const text = readFileSync(join(sharedFeedsDir, file), 'utf8');
    for (const m of text.matchAll(/<hours>([^<]*)<\/hours>/g)) found.add(m[1] as string);
    for (const m of text.matchAll(/"hours"\s*:\s*("(?:[^"\\]|\\.)*")/g))
      found.add(JSON.parse(m[1] as string));
  }
  return [...found].filter((hours) => hours.trim() !== '').sort();
}

describe.skipIf(!sharedFeedsPresent)(
  `the hours of the real CBP captures (${sharedFeedsPresent ? sharedFeedsDir : sharedFeedsMissing})`,
  () => {
    const all = sharedFeedsPresent ? capturedHours() : [];
    it('hold several forms', () => {
      expect(all.length).toBeGreaterThan(5);
    });
    it.each(all)('"%s" reads as hours', (text) => {
      expect(openHoursOf(text)).not.toBeNull();
    });
  },
);

describe('openHoursOf', () => {
  it.each([
    ['24 hrs/day', 'always'],
    ['6 am-10 pm', { from: 360, to: 1320 }],
    ['6 am-Midnight', { from: 360, to: 1440 }],
    ['10 am-6 pm', { from: 600, to: 1080 }],
    ['3 am-Midnight', { from: 180, to: 1440 }],
    ['7:30 am-5:30 pm', { from: 450, to: 1050 }],
    ['6am - 10pm', { from: 360, to: 1320 }],
    ['10 pm-6 am', { from: 1320, to: 360 }],
    ['Noon-8 pm', { from: 720, to: 1200 }],
    ['12 am-Midnight', 'always'],
    ['Closed', null],
    ['13 pm-2 am', null],
    ['', null],
    [null, null],
  ])('reads %j as %j', (text, expected) => {
    expect(openHoursOf(text)).toEqual(expected);
  });

  it.each([
    [{ from: 360, to: 1320 }, 359, false],
    [{ from: 360, to: 1320 }, 360, true],
    [{ from: 360, to: 1320 }, 1319, true],
    [{ from: 360, to: 1320 }, 1320, false],
    [{ from: 1320, to: 360 }, 1380, true],
    [{ from: 1320, to: 360 }, 100, true],
    [{ from: 1320, to: 360 }, 720, false],
    ['always', 0, true],
    [null, 0, true],
  ] as const)('openAt(%j, %i) is %s', (hours, minute, open) => {
    expect(openAt(hours, minute)).toBe(open);
  });
});

describe('a forecast at a port with hours', () => {
  const ZONE = 'America/Phoenix';
  const LANE = { direction: 'into-us', mode: 'pedestrian', lane: 'standard' } as const;
  const averages: HourlyAverage[] = Array.from({ length: 168 }, (_, i) => ({
    portId: 'p',
    ...LANE,
    dayOfWeek: Math.floor(i / 24),
    hour: i % 24,
    averageDelayMinutes: 10,
    medianDelayMinutes: 10,
    samples: 8,
  }));
  const local = (day: number, hour: number) =>
    zonedToUtc({ year: 2026, month: 5, day, hour, minute: 0 }, ZONE);
  const issue = (issuedAtMs: number, readings: LaneReading[], hours: string | null) =>
    issuePort({
      portId: 'p',
      timeZone: ZONE,
      border: 'mx',
      hours,
      issuedAtMs,
      profile: profileFromAverages(averages),
      lanes: [{ lane: LANE, readings }],
      quantiles: () => [0, 0, 0],
      champion: (_lane, _h, available) => (available.includes('model') ? 'model' : null),
    });
  /** Port-local hours of the published points. */
  const hoursOf = (issued: ReturnType<typeof issue>) =>
    (portForecastBody('p', issued, {}).lanes[0]?.points ?? []).map((p) => {
      const at = utcToZoned(Date.parse(p.at), ZONE);
      return at.hour * 60 + at.minute;
    });

  it('publishes no point for a time the port is closed, and says why', () => {
    // Wednesday 14:00, open 10 am-6 pm, a reading 10 minutes ago.
    const issuedAtMs = local(6, 14);
    const issued = issue(issuedAtMs, [{ atMs: issuedAtMs - 600_000, delayMinutes: 12 }], '10 am-6 pm');
    const minutes = hoursOf(issued);
    expect(minutes.length).toBeGreaterThan(10);
    expect(minutes.every((m) => m >= 600 && m < 1080)).toBe(true);
    // Tomorrow's opening hour is there.
    expect(minutes).toContain(600);
    const body = portForecastBody('p', issued, {}).lanes[0];
    expect(body?.reasonCodes).toContain('port-hours');
    expect(body?.reason).toMatch(
      /no forecast for the \d+ of 27 points when the port is closed \(its hours: 10 am-6 pm\)/,
    );
    // Without hours, every point.
    expect(hoursOf(issue(issuedAtMs, [{ atMs: issuedAtMs - 600_000, delayMinutes: 12 }], null))).toHaveLength(
      27,
    );
  });

  it('forecasts tomorrow morning from the profile while the port is closed tonight', () => {
    // Wednesday 22:00, open 6 am-10 pm: the lane's last reading says closed.
    const issuedAtMs = local(6, 22);
    const readings: LaneReading[] = [
      { atMs: issuedAtMs - 2 * 3_600_000, delayMinutes: 25 },
      { atMs: issuedAtMs - 300_000, delayMinutes: null },
    ];
    const issued = issue(issuedAtMs, readings, '6 am-10 pm');
    const lane = portForecastBody('p', issued, {}).lanes[0];
    expect(lane?.reading).toBeNull();
    const minutes = hoursOf(issued);
    expect(minutes).toContain(6 * 60);
    expect(minutes.every((m) => m >= 360 && m < 1320)).toBe(true);
    // The profile's wait, with no reading to move it; no persistence without a reading.
    expect(lane?.points.every((p) => p.delayMinutes === 10 && p.method === 'model')).toBe(true);
    expect(issued.lanes[0]?.points.every((p) => p.persistence === null)).toBe(true);
    expect(lane?.reason).toMatch(/the port is closed now \(its hours: 6 am-10 pm\)/);
    // Without hours it has nothing to forecast from.
    expect(hoursOf(issue(issuedAtMs, readings, null))).toEqual([]);
  });

  it('trusts the lane over hours its readings contradict', () => {
    // A wait read at 23:00, when the hours say closed: the hours are out of date.
    const issuedAtMs = local(6, 23);
    const issued = issue(issuedAtMs, [{ atMs: issuedAtMs - 300_000, delayMinutes: 15 }], '6 am-10 pm');
    expect(hoursOf(issued)).toHaveLength(27);
    expect(portForecastBody('p', issued, {}).lanes[0]?.reasonCodes ?? []).not.toContain('port-hours');
  });
});
