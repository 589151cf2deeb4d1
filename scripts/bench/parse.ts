/**
 * `npm run bench -- parse`: parse throughput on the real captures (the largest CBP XML, the CBP
 * bwtnew JSON, the CBSA CSV lines), median of 30 runs, documents/s and readings/s.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseCbpJson, parseCbpXml, parseCbsaCsv } from '../../functions/core/feeds/index.ts';
import type { ParsedFeed } from '../../functions/core/model.ts';
import { median, timeRuns } from './_stats.ts';

const dir = new URL('../../../shared/fixtures/feeds/', import.meta.url);
if (!existsSync(dir)) {
  console.error(
    `no captures at ${dir.pathname}: this benchmark needs ../shared/fixtures/feeds beside the project`,
  );
  process.exit(2);
}
const read = (name: string) => new Uint8Array(readFileSync(new URL(name, dir)));
const cbsaLines = readFileSync(
  new URL('cbsa-bwt-eng-fra-csv-lines__maplestats-mcp-test-fixture__2026-10-03__partial.txt', dir),
  'utf8',
)
  .split('\n')
  .filter((line) => !line.startsWith('#'));
const english = cbsaLines
  .slice(
    0,
    cbsaLines.findIndex((line, i) => i > 0 && line.startsWith('Bureau')),
  )
  .join('\n');

const cases: [string, () => ParsedFeed][] = [
  [
    'cbp xml 2022-10-17 (144 KB)',
    (
      (b) => () =>
        parseCbpXml(b, { fetchedAt: Date.parse('2022-10-18T01:15:00Z') })
    )(read('cbp-bwt-xml__AaronV4ldez-BackOfficePhp__2022-10-17.xml')),
  ],
  [
    'cbp json bwtnew (206 KB)',
    (
      (b) => () =>
        parseCbpJson(b, { fetchedAt: Date.parse('2022-06-29T17:25:15Z') })
    )(read('cbp-api-bwtnew__WSDOT-GIS-border-crossings__2022-06-29T1725Z.json')),
  ],
  ['cbsa csv (en lines)', () => parseCbsaCsv(english, { fetchedAt: Date.parse('2026-10-03T18:00:00Z') })],
];

for (const [name, parse] of cases) {
  const readings = parse().readings.length;
  const ms = median(await timeRuns(parse, 30, 3));
  console.log(
    `${name}: median ${ms.toFixed(2)} ms, ${(1000 / ms).toFixed(0)} documents/s, ${((readings * 1000) / ms).toFixed(0)} readings/s (${readings} readings)`,
  );
}
