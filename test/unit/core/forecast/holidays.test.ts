/**
 * The forecast's public holidays come from a generated table, so the functions do not carry
 * `date-holidays` (about 900 KB with its zone and astronomy data). The library is the oracle.
 */
import { describe, expect, it } from 'vitest';
import { holidayOn } from '../../../../functions/core/forecast/forecast.ts';
import { HOLIDAY_YEARS, publicHolidaysOf } from '../../../../functions/core/forecast/holidays.ts';
import {
  publicHolidaysFromLibrary,
  HOLIDAY_YEARS as SOURCE_YEARS,
} from '../../../../scripts/holidays-source.ts';

describe('public holidays', () => {
  it('the table is what date-holidays gives for every country and year it covers', () => {
    expect(HOLIDAY_YEARS).toEqual(SOURCE_YEARS);
    const library = publicHolidaysFromLibrary();
    for (const [country, years] of Object.entries(library)) {
      for (const [year, days] of Object.entries(years)) {
        expect([country, year, Object.fromEntries(publicHolidaysOf(country, Number(year)))]).toEqual([
          country,
          year,
          days,
        ]);
      }
    }
    expect(Object.keys(library)).toEqual(['US', 'MX', 'CA']);
  });

  it('covers at least the next five years (npm run holidays extends it)', () => {
    expect(HOLIDAY_YEARS.last).toBeGreaterThanOrEqual(new Date().getUTCFullYear() + 5);
  });

  it.each([
    ['2026-07-04', 'mx', 'Independence Day (US)'],
    ['2026-09-16', 'mx', 'Día de la Independencia (MX)'],
    ['2026-07-01', 'ca', 'Canada Day (CA)'],
    ['2026-12-25', 'ca', 'Christmas Day (US), Christmas Day (CA)'],
    ['2026-07-01', 'mx', null],
    ['2026-03-11', 'ca', null],
    // Outside the table's years there is no holiday (the table says which years it covers).
    ['2037-07-04', 'mx', null],
  ] as const)('%s on the %s border: %j', (date, border, expected) => {
    expect(holidayOn(date, border)).toBe(expected);
  });
});
