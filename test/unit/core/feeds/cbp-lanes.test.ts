import { describe, expect, it } from 'vitest';
import {
  classifyCbpBorder,
  classifyCbpLaneStatus,
  classifyCbpPortStatus,
  collapseSpaces,
  parseCbpDelay,
  parseCbpHeaderTime,
  parseLaneCount,
  parsePortDate,
  parseUpdateTime,
  resolveObservedAt,
} from '../../../../functions/core/feeds/cbp-lanes.ts';
import { toIsoSeconds } from '../../../../functions/core/time.ts';
import { at } from './cbp-fixtures.ts';

describe('CBP status vocabulary (quirk 5)', () => {
  it.each([
    ['no delay', 'open'],
    ['delay', 'open'],
    ['Lanes Closed', 'lanes-closed'],
    ['Lane Closed', 'lanes-closed'],
    ['Update Pending', 'update-pending'],
    ['N/A', 'not-applicable'],
    ['Sin demora', 'open'],
    ['demora', 'open'],
    ['Carriles cerrados', 'lanes-closed'],
    ['Actualización Pendiente', 'update-pending'],
    ['No aplica', 'not-applicable'],
    ['SIN DEMORA', 'open'],
    ['actualizacion pendiente', 'update-pending'],
    ['ACTUALIZACIÓN  PENDIENTE', 'update-pending'],
    ['  No Delay ', 'open'],
    ['n/a', 'not-applicable'],
  ])('reads lane status %j as %s, case- and accent-insensitively', (text, status) => {
    expect(classifyCbpLaneStatus(text)).toBe(status);
  });

  it.each(['Temporarily closed', 'Closed', 'open', 'delayed', '--', 'Not applicable'])(
    'knows no lane status %j',
    (text) => {
      expect(classifyCbpLaneStatus(text)).toBeNull();
    },
  );

  it.each([
    ['Open', 'open'],
    ['Closed', 'closed'],
    ['Abierto', 'open'],
    ['Cerrado', 'closed'],
    ['CERRADO', 'closed'],
    ['Temporarily Closed', null],
    [null, null],
  ])('reads port status %j as %j', (text, status) => {
    expect(classifyCbpPortStatus(text)).toBe(status);
  });

  it.each([
    ['Mexican Border', 'mx'],
    ['Canadian Border', 'ca'],
    ['Frontera mexicana', 'mx'],
    ['Frontera canadiense', 'ca'],
    ['FRONTERA MEXICANA', 'mx'],
    ['Northern Border', null],
  ])('reads border %j as %j', (text, border) => {
    expect(classifyCbpBorder(text)).toBe(border);
  });
});

describe('delay_minutes (quirk 4)', () => {
  it.each([
    ['0', 0],
    ['5', 5],
    ['140', 140],
    ['070', 70],
    ['10 min', 10],
    ['45 min', 45],
    ['1 hr', 60],
    ['2 hrs', 120],
    ['1 hrs 10 min', 70],
    ['1 hrs 35 min', 95],
    [' 1 HRS 35 MIN ', 95],
  ])('reads %j as %d minutes', (text, minutes) => {
    expect(parseCbpDelay(text)).toBe(minutes);
  });

  it.each([null, '', 'N/A', '--', 'no delay', 'ten', '-5', '1.5', '5 minutes later', '99999', 'hrs min'])(
    'reads %j as no delay value',
    (text) => {
      expect(parseCbpDelay(text)).toBeNull();
    },
  );

  it.each([
    ['2', 2],
    ['34', 34],
    ['0', 0],
    ['N/A', null],
    [null, null],
    ['two', null],
    ['1000', null],
  ])('reads lane count %j as %j', (text, count) => {
    expect(parseLaneCount(text)).toBe(count);
  });
});

describe('update_time (quirk 6)', () => {
  it.each([
    ['At 6:00 pm EDT', 18, 0, 'EDT'],
    ['At 9:13 pm EDT', 21, 13, 'EDT'],
    ['At 12:30 pm PDT', 12, 30, 'PDT'],
    ['At 12:30 am PDT', 0, 30, 'PDT'],
    ['At 0:31 am EDT', 0, 31, 'EDT'],
    ['At Noon PDT', 12, 0, 'PDT'],
    ['At Midnight CST', 0, 0, 'CST'],
    ['En 3:00 pm CDT', 15, 0, 'CDT'],
    ['En Mediodía CDT', 12, 0, 'CDT'],
    ['En Medianoche CDT', 0, 0, 'CDT'],
    ['en mediodia cdt', 12, 0, 'CDT'],
    ['At 6:00 pm PST', 18, 0, 'PST'],
  ])('reads %j as %d:%d %s', (text, hour, minute, abbreviation) => {
    expect(parseUpdateTime(text)).toEqual({ hour, minute, abbreviation });
  });

  it.each([
    null,
    '',
    'At 25:00 pm EDT',
    'At 13:00 pm EDT',
    'At 6:60 pm EDT',
    'At 0:30 pm EDT',
    'At 6:00 pm ADT',
    'At 6:00 pm',
    '6:00 pm EDT',
    'At 18:00 EDT',
    'At Teatime EDT',
  ])('refuses %j', (text) => {
    expect(parseUpdateTime(text)).toBeNull();
  });

  it.each([
    ['10/17/2022', { year: 2022, month: 10, day: 17 }],
    ['3/15/2014', { year: 2014, month: 3, day: 15 }],
    ['2/29/2024', { year: 2024, month: 2, day: 29 }],
    ['2/29/2023', null],
    ['13/1/2023', null],
    ['2023-11-10', null],
    [null, null],
  ])('reads port date %j as %j', (text, date) => {
    expect(parsePortDate(text)).toEqual(date);
  });

  it.each([
    ['2014-3-15', '15:25:59', '2014-03-15T19:25:59Z'],
    ['2014-4-28', '21:41:1', '2014-04-29T01:41:01Z'],
    ['2017-3-17', '0:31:39', '2017-03-17T04:31:39Z'],
    ['2022-10-17', '21:14:36', '2022-10-18T01:14:36Z'],
    ['2023-11-10', '1:55:5', '2023-11-10T06:55:05Z'],
  ])('reads the unpadded Eastern header %s %s as %s', (date, time, iso) => {
    const epochMs = parseCbpHeaderTime(date, time);
    expect(epochMs === null ? null : toIsoSeconds(epochMs)).toBe(iso);
  });

  it.each([
    ['2023-11-10', null],
    [null, '1:55:5'],
    ['2023-13-10', '1:55:5'],
    ['2023-11-10', '25:00:00'],
    ['11/10/2023', '1:55:5'],
  ])('has no header time for %j %j', (date, time) => {
    expect(parseCbpHeaderTime(date, time)).toBeNull();
  });

  it('collapses runs of spaces and makes blank text null', () => {
    expect(collapseSpaces('International Bridge   SSM')).toBe('International Bridge SSM');
    expect(collapseSpaces('ROMA TEXAS ')).toBe('ROMA TEXAS');
    expect(collapseSpaces('   ')).toBeNull();
  });
});

describe('resolveObservedAt (quirk 7)', () => {
  const generated = at('2022-10-18T01:14:36Z');
  const context = (
    portDate: string,
    timeZone: string | undefined,
    referenceMs = generated,
    fetchedAt = referenceMs,
  ) => ({
    portDate,
    timeZone,
    referenceMs,
    fetchedAt,
  });

  it.each<[string, string, string | undefined, string, string]>([
    ['At 6:00 pm PDT', '10/17/2022', 'America/Los_Angeles', '2022-10-18T01:00:00Z', 'San Ysidro'],
    ['At 7:00 pm MDT', '10/17/2022', 'America/Denver', '2022-10-18T01:00:00Z', 'El Paso'],
    [
      'At 6:00 pm PST',
      '10/17/2022',
      'America/Phoenix',
      '2022-10-18T01:00:00Z',
      'Douglas, PST in Arizona time',
    ],
    ['At 6:00 pm MST', '10/17/2022', 'America/Phoenix', '2022-10-18T01:00:00Z', 'Nogales'],
    [
      'At 9:18 pm EDT',
      '10/17/2022',
      'America/New_York',
      '2022-10-18T01:18:00Z',
      'Peace Bridge, ahead of the header',
    ],
    [
      'At 9:30 pm EDT',
      '10/17/2022',
      'America/New_York',
      '2022-10-17T01:30:00Z',
      'over 10 minutes after generation: previous day',
    ],
    [
      'At 8:00 pm CDT',
      '10/17/2022',
      undefined,
      '2022-10-18T01:00:00Z',
      'uncatalogued: zone from the C family',
    ],
    ['At Noon PDT', '10/17/2022', 'America/Los_Angeles', '2022-10-17T19:00:00Z', 'Noon'],
    [
      'At Midnight PDT',
      '10/17/2022',
      'America/Los_Angeles',
      '2022-10-17T07:00:00Z',
      'Midnight opens the day',
    ],
  ])('resolves %j on %s in %s to %s (%s)', (updateTime, portDate, timeZone, iso) => {
    const result = resolveObservedAt(updateTime, context(portDate, timeZone));
    expect(result.ok ? toIsoSeconds(result.epochMs) : result).toBe(iso);
  });

  it.each<[string, string, string, string]>([
    ['At 1:30 am EDT', 'America/New_York', '2026-11-01T05:30:00Z', 'first 1:30 (daylight)'],
    ['At 1:30 am EST', 'America/New_York', '2026-11-01T06:30:00Z', 'second 1:30 (standard)'],
    ['At 1:05 am CST', 'America/Chicago', '2026-11-01T07:05:00Z', 'Chicago, second pass'],
    ['At 1:55 am MDT', 'America/Denver', '2026-11-01T07:55:00Z', 'Denver, first pass'],
    ['At 1:00 am PST', 'America/Los_Angeles', '2026-11-01T09:00:00Z', 'Los Angeles, second pass'],
    ['At 1:30 am PST', 'America/Phoenix', '2026-11-01T08:30:00Z', 'Arizona PST label names no overlap'],
    ['At 1:30 am EST', 'America/Detroit', '2026-11-01T06:30:00Z', 'Detroit, second pass'],
  ])('in the repeated autumn hour, %j in %s is %s (%s)', (updateTime, timeZone, iso) => {
    const generatedAt = at('2026-11-01T10:00:00Z');
    const result = resolveObservedAt(updateTime, context('11/1/2026', timeZone, generatedAt));
    expect(result.ok ? toIsoSeconds(result.epochMs) : result).toBe(iso);
  });

  it.each<[string, string, string]>([
    ['At 1:59 am EST', 'America/New_York', '2026-03-08T06:59:00Z'],
    ['At 3:00 am EDT', 'America/New_York', '2026-03-08T07:00:00Z'],
    ['At 3:00 am CDT', 'America/Chicago', '2026-03-08T08:00:00Z'],
  ])('around the spring gap, %j in %s is %s', (updateTime, timeZone, iso) => {
    const result = resolveObservedAt(updateTime, context('3/8/2026', timeZone, at('2026-03-08T12:00:00Z')));
    expect(result.ok ? toIsoSeconds(result.epochMs) : result).toBe(iso);
  });

  it('rolls Derby Line "At 7:00 am EST" under 01:55 ET back to the previous day', () => {
    const result = resolveObservedAt(
      'At 7:00 am EST',
      context('11/10/2023', 'America/New_York', at('2023-11-10T06:55:05Z')),
    );
    expect(result.ok && toIsoSeconds(result.epochMs)).toBe('2023-11-09T12:00:00Z');
  });

  it('refuses a time still after the fetch once rolled back (future-time)', () => {
    // The header claims 01:14 UTC, the fetch happened at 00:30: 01:05 UTC is after both tolerances.
    const result = resolveObservedAt(
      'At 9:05 pm EDT',
      context('10/17/2022', 'America/New_York', generated, at('2022-10-18T00:30:00Z')),
    );
    expect(result).toMatchObject({ ok: false, code: 'future-time' });
  });

  it('refuses an abbreviation more than an hour off the port zone (zone-mismatch)', () => {
    const result = resolveObservedAt('At 9:00 pm EDT', context('10/17/2022', 'America/Los_Angeles'));
    expect(result).toMatchObject({ ok: false, code: 'zone-mismatch' });
  });

  it.each([
    [null, '10/17/2022', /no update_time/],
    ['At 25:00 pm EDT', '10/17/2022', /"At 25:00 pm EDT"/],
    ['At 6:00 pm EDT', '2022-10-17', /port date "2022-10-17"/],
    ['At 6:00 pm EDT', null, /port date empty/],
  ])('refuses update_time %j on date %j as bad-time, naming the value', (updateTime, portDate, reason) => {
    const result = resolveObservedAt(updateTime, { ...context('', 'America/New_York'), portDate });
    expect(result).toMatchObject({ ok: false, code: 'bad-time', reason: expect.stringMatching(reason) });
  });
});
