/** The holiday table as `date-holidays` computes it (the generator and the test's oracle). */
export const HOLIDAY_YEARS = { first: 2020, last: 2045 } as const;
export const HOLIDAY_COUNTRY_CODES = ['US', 'MX', 'CA'] as const;

import Holidays from 'date-holidays';

export function publicHolidaysFromLibrary(): Record<string, Record<number, Record<string, string>>> {
  const table: Record<string, Record<number, Record<string, string>>> = {};
  for (const country of HOLIDAY_COUNTRY_CODES) {
    const years: Record<number, Record<string, string>> = {};
    for (let year = HOLIDAY_YEARS.first; year <= HOLIDAY_YEARS.last; year += 1) {
      const days: Record<string, string> = {};
      for (const holiday of new Holidays(country, { types: ['public'] }).getHolidays(year)) {
        const date = holiday.date.slice(0, 10);
        if (!(date in days)) days[date] = holiday.name;
      }
      years[year] = days;
    }
    table[country] = years;
  }
  return table;
}
