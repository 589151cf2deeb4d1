/**
 * `npm run bench -- parse`: parse throughput per feed format, over the real captures of
 * `../shared/fixtures/feeds/`: the largest CBP XML capture, the CBP `bwtnew` JSON array, and the
 * English CBSA CSV lines quoted by maplestats-mcp. Prints the median of 30 timed runs (after
 * warm-up) as documents/s and readings/s.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseCbpJson, parseCbpXml, parseCbsaCsv } from '../../functions/core/feeds/index.ts';
import type { ParsedFeed } from '../../functions/core/model.ts';
import { median, timeRuns } from './_stats.ts';

const RUNS = 30;
const feedsDir = fileURLToPath(new URL('../../../shared/fixtures/feeds/', import.meta.url));
if (!existsSync(feedsDir)) {
  console.error(
    `parse bench: the real captures are not at ${feedsDir} (a clone without ../shared); nothing to measure.`,
  );
  process.exit(1);
}

const read = (file: string): Uint8Array => readFileSync(`${feedsDir}${file}`);

const largestXml = readdirSync(feedsDir)
  .filter((file) => file.startsWith('cbp-bwt-xml__') && file.endsWith('.xml'))
  .sort((a, b) => statSync(`${feedsDir}${b}`).size - statSync(`${feedsDir}${a}`).size)[0];
const bwtnew = 'cbp-api-bwtnew__WSDOT-GIS-border-crossings__2022-06-29T1725Z.json';
const maplestats = 'cbsa-bwt-eng-fra-csv-lines__maplestats-mcp-test-fixture__2026-10-03__partial.txt';

/** The English CSV of the maplestats excerpt: its `bwt-eng.csv` block, comment lines dropped, BOM restored. */
function maplestatsEnglishCsv(): string {
  const text = new TextDecoder().decode(read(maplestats));
  const english = text.split('# ---- bwt-fra.csv')[0] ?? '';
  const lines = english.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return `\uFEFF${lines.join('\n')}\n`;
}

interface Case {
  format: string;
  source: string;
  bytes: Uint8Array;
  parse: (bytes: Uint8Array) => ParsedFeed;
}

const cases: Case[] = [];
if (largestXml) {
  const fetchedAt = Date.parse('2030-01-01T00:00:00Z');
  cases.push({
    format: 'cbp-xml',
    source: largestXml,
    bytes: read(largestXml),
    parse: (b) => parseCbpXml(b, { fetchedAt }),
  });
}
cases.push({
  format: 'cbp-json',
  source: bwtnew,
  bytes: read(bwtnew),
  parse: (bytes) => parseCbpJson(bytes, { fetchedAt: Date.parse('2022-06-29T17:25:15Z') }),
});
cases.push({
  format: 'cbsa-csv',
  source: `${maplestats} (English lines)`,
  bytes: new TextEncoder().encode(maplestatsEnglishCsv()),
  parse: (bytes) => parseCbsaCsv(bytes, { fetchedAt: Date.parse('2026-10-03T18:00:00Z') }),
});

console.log(`parse bench: median of ${RUNS} runs per format (Node ${process.version})`);
for (const item of cases) {
  const result = item.parse(item.bytes);
  const readings = result.readings.length;
  const ms = median(await timeRuns(() => item.parse(item.bytes), RUNS, 3));
  const documentsPerSecond = 1000 / ms;
  console.log(
    `${item.format.padEnd(9)} ${(item.bytes.length / 1024).toFixed(1).padStart(6)} KB, ${String(result.ports.length).padStart(3)} ports, ` +
      `${String(readings).padStart(3)} readings: ${ms.toFixed(3)} ms/doc, ` +
      `${documentsPerSecond.toFixed(0)} documents/s, ${(documentsPerSecond * readings).toFixed(0)} readings/s  [${item.source}]`,
  );
}
