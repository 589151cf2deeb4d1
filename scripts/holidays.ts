/**
 * `npm run holidays`: writes functions/core/forecast/holidays-data.ts, the public holidays of the US,
 * Mexico and Canada for the years the forecasts cover, from `date-holidays`. The forecast reads
 * the table instead of the library: the library carries moment-timezone's zone data and an
 * astronomy package (about 900 KB minified), which would be most of the ingest function's bundle.
 * Compact: per country a list of names, per year `MMDD` + the name's index (base 36) for each day.
 * A unit test decodes the table and checks it against the library, so it cannot drift.
 */
import { writeFileSync } from 'node:fs';
import { HOLIDAY_YEARS, publicHolidaysFromLibrary } from './holidays-source.ts';

const names: Record<string, string[]> = {};
const days: Record<string, Record<number, string>> = {};
for (const [country, years] of Object.entries(publicHolidaysFromLibrary())) {
  const list: string[] = [];
  const byYear: Record<number, string> = {};
  for (const [year, dates] of Object.entries(years)) {
    byYear[Number(year)] = Object.entries(dates)
      .map(([date, name]) => {
        if (!list.includes(name)) list.push(name);
        const index = list.indexOf(name);
        if (index >= 36) throw new Error(`${country}: more than 36 holiday names`);
        return `${date.slice(5, 7)}${date.slice(8, 10)}${index.toString(36)}`;
      })
      .join(' ');
  }
  names[country] = list;
  days[country] = byYear;
}
const lines = [
  '/**',
  ' * Public holidays (`date-holidays`, type `public`) by country and year, written by',
  ` * \`npm run holidays\` for ${HOLIDAY_YEARS.first}-${HOLIDAY_YEARS.last}: do not edit by hand. Per year, each day is`,
  ' * `MMDD` followed by the index (base 36) of its name in HOLIDAY_NAMES.',
  ' */',
  `export const HOLIDAY_YEARS = { first: ${HOLIDAY_YEARS.first}, last: ${HOLIDAY_YEARS.last} } as const;`,
  '',
  `export const HOLIDAY_NAMES: Readonly<Record<string, readonly string[]>> = ${JSON.stringify(names)};`,
  '',
  `export const HOLIDAY_DAYS: Readonly<Record<string, Readonly<Record<number, string>>>> = ${JSON.stringify(days)};`,
  '',
];
writeFileSync(new URL('../functions/core/forecast/holidays-data.ts', import.meta.url), lines.join('\n'));
console.log('wrote functions/core/forecast/holidays-data.ts');
