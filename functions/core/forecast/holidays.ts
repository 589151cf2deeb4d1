/**
 * Public holidays of the US, Mexico and Canada (`date-holidays`, type `public`), read from the
 * compact table `npm run holidays` generates (holidays-data.ts), so the functions do not carry the
 * library and its time zone data. Covers HOLIDAY_YEARS; other years have none.
 */
import { HOLIDAY_DAYS, HOLIDAY_NAMES } from './holidays-data.ts';

export { HOLIDAY_YEARS } from './holidays-data.ts';

const decoded = new Map<string, ReadonlyMap<string, string>>();

/** A country's public holidays of one year: local date (YYYY-MM-DD) -> name. */
export function publicHolidaysOf(country: string, year: number): ReadonlyMap<string, string> {
  const key = `${country}|${year}`;
  let days = decoded.get(key);
  if (!days) {
    const names = HOLIDAY_NAMES[country] ?? [];
    const map = new Map<string, string>();
    for (const entry of (HOLIDAY_DAYS[country]?.[year] ?? '').split(' ')) {
      const name = names[Number.parseInt(entry.slice(4), 36)];
      if (entry.length >= 5 && name !== undefined) {
        map.set(`${year}-${entry.slice(0, 2)}-${entry.slice(2, 4)}`, name);
      }
    }
    days = map;
    decoded.set(key, days);
  }
  return days;
}

/** The public holiday of `country` on a local date (YYYY-MM-DD), if any. */
export function publicHolidayOn(country: string, localDate: string): string | undefined {
  return publicHolidaysOf(country, Number(localDate.slice(0, 4))).get(localDate);
}
