import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fixedOffsetToUtc,
  type LocalDateTime,
  offsetMinutesAt,
  previousDay,
  toIsoSeconds,
  utcToZoned,
  wallTimeInstants,
  ZONE_ABBREVIATION_OFFSETS,
  ZONE_FOR_ABBREVIATION,
  zonedToUtc,
  zonedToUtcNotAfter,
} from '../../../functions/core/time.ts';

const local = (text: string): LocalDateTime => {
  const [date = '', time = ''] = text.split(' ');
  const [year, month, day] = date.split('-').map(Number);
  const [hour, minute] = time.split(':').map(Number);
  return { year: year ?? 0, month: month ?? 0, day: day ?? 0, hour: hour ?? 0, minute: minute ?? 0 };
};

describe('wallTimeInstants and zonedToUtcNotAfter (the autumn overlap)', () => {
  it.each<[string, string, string[]]>([
    ['America/New_York', '2026-11-01 01:30', ['2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z']],
    ['America/Los_Angeles', '2026-11-01 01:00', ['2026-11-01T08:00:00Z', '2026-11-01T09:00:00Z']],
    ['America/New_York', '2026-11-01 02:30', ['2026-11-01T07:30:00Z']],
    ['America/New_York', '2026-03-08 02:30', []],
    ['America/Phoenix', '2026-11-01 01:30', ['2026-11-01T08:30:00Z']],
    ['America/Regina', '2026-11-01 01:30', ['2026-11-01T07:30:00Z']],
  ])('%s %s names %j', (zone, text, isos) => {
    expect(wallTimeInstants(local(text), zone).map(toIsoSeconds)).toEqual(isos);
  });

  it.each<[string, string, string]>([
    ['2026-11-01 01:30', '2026-11-01T06:40:00Z', '2026-11-01T06:30:00Z'],
    ['2026-11-01 01:30', '2026-11-01T05:40:00Z', '2026-11-01T05:30:00Z'],
    ['2026-11-01 01:30', '2026-11-01T05:00:00Z', '2026-11-01T05:30:00Z'],
    ['2026-11-01 03:00', '2026-11-01T08:05:00Z', '2026-11-01T08:00:00Z'],
  ])('New York %s read before %s is %s', (text, notAfter, iso) => {
    const instant = zonedToUtcNotAfter(local(text), 'America/New_York', Date.parse(notAfter));
    expect(toIsoSeconds(instant)).toBe(iso);
  });
});

describe('utcToZoned', () => {
  /** The wall clock as Intl reads it for the instant itself (no cached offset). */
  const intlWall = (epochMs: number, timeZone: string) => {
    const parts: Record<string, number> = {};
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    for (const part of format.formatToParts(new Date(epochMs))) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    return parts;
  };
  const zones = [
    'America/New_York',
    'America/Chicago',
    'America/Denver',
    'America/Phoenix',
    'America/Los_Angeles',
    'America/Regina',
    'America/St_Johns',
    'America/Tijuana',
    'America/Matamoros',
  ];

  it('reads every instant as Intl does, across offset changes, at any second', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(1975, 0, 1), max: Date.UTC(2035, 0, 1) }),
        (timeZone, epochMs) => {
          expect(utcToZoned(epochMs, timeZone)).toEqual(intlWall(epochMs, timeZone));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each<[string, string]>([
    ['America/New_York', '2026-03-08T07:00:00Z'],
    ['America/New_York', '2026-11-01T06:00:00Z'],
    ['America/Los_Angeles', '2026-11-01T09:00:00Z'],
    // Newfoundland changed at 00:01 local until 2011: 03:31 UTC.
    ['America/St_Johns', '2010-03-14T03:31:00Z'],
    ['America/St_Johns', '2010-11-07T02:31:00Z'],
  ])('%s: each second around the change at %s', (timeZone, iso) => {
    const change = Date.parse(iso);
    for (let t = change - 120_000; t <= change + 120_000; t += 1_000) {
      expect(utcToZoned(t, timeZone), new Date(t).toISOString()).toEqual(intlWall(t, timeZone));
    }
  });
});

describe('zonedToUtc', () => {
  it.each([
    // New York, spring forward on 2023-03-12 at 02:00 EST -> 03:00 EDT.
    ['America/New_York', '2023-03-12 01:30', '2023-03-12T06:30:00Z', 'the last half hour of EST'],
    ['America/New_York', '2023-03-12 02:30', '2023-03-12T07:30:00Z', 'a skipped time, moved past the gap'],
    ['America/New_York', '2023-03-12 03:30', '2023-03-12T07:30:00Z', 'the first hour of EDT'],
    // New York, fall back on 2023-11-05 at 02:00 EDT -> 01:00 EST.
    ['America/New_York', '2023-11-05 00:30', '2023-11-05T04:30:00Z', 'the hour before the overlap'],
    ['America/New_York', '2023-11-05 01:30', '2023-11-05T05:30:00Z', 'the repeated hour, earlier instant'],
    ['America/New_York', '2023-11-05 02:30', '2023-11-05T07:30:00Z', 'the first hour after the overlap'],
    ['America/New_York', '2023-11-10 01:55', '2023-11-10T06:55:00Z', 'winter time'],
    // Regina (Saskatchewan): UTC-6 all year, no DST.
    ['America/Regina', '2023-01-15 12:00', '2023-01-15T18:00:00Z', 'Regina in winter'],
    ['America/Regina', '2023-07-15 12:00', '2023-07-15T18:00:00Z', 'Regina in summer'],
    ['America/Regina', '2023-03-12 02:30', '2023-03-12T08:30:00Z', 'Regina during the US spring gap'],
    ['America/Regina', '2023-11-05 01:30', '2023-11-05T07:30:00Z', 'Regina during the US overlap'],
    // Phoenix (Arizona): UTC-7 all year; where CBP's Douglas and Naco say PST.
    ['America/Phoenix', '2022-10-17 18:00', '2022-10-18T01:00:00Z', 'Phoenix in October'],
    ['America/Phoenix', '2023-01-15 18:00', '2023-01-16T01:00:00Z', 'Phoenix in winter'],
    ['America/Phoenix', '2023-03-12 02:30', '2023-03-12T09:30:00Z', 'Phoenix during the US spring gap'],
    // The other zones the feeds name.
    ['America/Denver', '2022-10-17 19:00', '2022-10-18T01:00:00Z', 'El Paso in MDT'],
    ['America/Los_Angeles', '2022-10-17 18:00', '2022-10-18T01:00:00Z', 'San Ysidro in PDT'],
    ['America/Chicago', '2023-11-10 00:00', '2023-11-10T06:00:00Z', 'midnight CST'],
    ['America/St_Johns', '2023-07-01 12:00', '2023-07-01T14:30:00Z', 'a half-hour zone'],
  ])('resolves %s %s to %s (%s)', (timeZone, wall, expected) => {
    expect(toIsoSeconds(zonedToUtc(local(wall), timeZone))).toBe(expected);
  });

  it('round-trips every wall time outside the spring gap', () => {
    const zones = [
      'America/New_York',
      'America/Chicago',
      'America/Denver',
      'America/Phoenix',
      'America/Regina',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(2010, 0, 1), max: Date.UTC(2030, 0, 1) }),
        (timeZone, epochMs) => {
          const instant = Math.floor(epochMs / 60_000) * 60_000;
          const wall = utcToZoned(instant, timeZone);
          const back = zonedToUtc(wall, timeZone);
          // The same wall time, and the same instant unless it is the later of an autumn pair.
          expect(utcToZoned(back, timeZone)).toEqual(wall);
          expect(back <= instant).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('offsetMinutesAt and the abbreviation table', () => {
  it.each([
    ['EDT', 'America/New_York', '2023-07-01T12:00:00Z'],
    ['EST', 'America/New_York', '2023-01-01T12:00:00Z'],
    ['CDT', 'America/Chicago', '2023-07-01T12:00:00Z'],
    ['CST', 'America/Chicago', '2023-01-01T12:00:00Z'],
    ['MDT', 'America/Denver', '2023-07-01T12:00:00Z'],
    ['MST', 'America/Phoenix', '2023-07-01T12:00:00Z'],
    ['PDT', 'America/Los_Angeles', '2023-07-01T12:00:00Z'],
    ['PST', 'America/Los_Angeles', '2023-01-01T12:00:00Z'],
    ['ADT', 'America/Halifax', '2023-07-01T12:00:00Z'],
    ['NST', 'America/St_Johns', '2023-01-01T12:00:00Z'],
  ])('gives %s the offset %s has at %s', (abbreviation, timeZone, iso) => {
    expect(offsetMinutesAt(Date.parse(iso), timeZone)).toBe(ZONE_ABBREVIATION_OFFSETS[abbreviation]);
  });

  it('keeps Phoenix and Regina on one offset all year', () => {
    for (const month of [0, 3, 6, 9]) {
      expect(offsetMinutesAt(Date.UTC(2023, month, 15), 'America/Phoenix')).toBe(-420);
      expect(offsetMinutesAt(Date.UTC(2023, month, 15), 'America/Regina')).toBe(-360);
    }
  });

  it('names a zone for every abbreviation family the feeds print', () => {
    for (const abbreviation of Object.keys(ZONE_ABBREVIATION_OFFSETS).filter((a) => a.endsWith('T'))) {
      if (abbreviation.startsWith('H')) continue;
      expect(ZONE_FOR_ABBREVIATION[abbreviation.charAt(0)]).toBeDefined();
    }
  });
});

describe('previousDay, fixedOffsetToUtc and toIsoSeconds', () => {
  it.each([
    ['2023-11-10 07:00', '2023-11-09 07:00'],
    ['2024-03-01 12:00', '2024-02-29 12:00'],
    ['2023-03-01 12:00', '2023-02-28 12:00'],
    ['2023-01-01 00:00', '2022-12-31 00:00'],
  ])('moves %s back to %s, keeping the clock', (from, to) => {
    expect(previousDay(local(from))).toEqual(local(to));
  });

  it('reads a wall time at a fixed offset', () => {
    expect(toIsoSeconds(fixedOffsetToUtc(local('2022-07-07 09:52'), -180))).toBe('2022-07-07T12:52:00Z');
  });

  it('drops milliseconds', () => {
    expect(toIsoSeconds(Date.parse('2022-10-18T01:00:00.987Z'))).toBe('2022-10-18T01:00:00Z');
  });
});
