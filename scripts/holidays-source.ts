/**
 * The public holidays of the US, Mexico and Canada as `date-holidays` computes them (type
 * `public`): what `npm run holidays` writes into functions/core/forecast/holidays-data.ts, and the oracle
 * its test compares the table with.
 */
import Holidays from 'date-holidays';

export const HOLIDAY_YEARS = { first: 2024, last: 2036 } as const;
export const HOLIDAY_COUNTRY_CODES = ['US', 'MX', 'CA'] as const;

/** Country -> year -> local date -> name (the first holiday of a date when two share it). */
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
