/**
 * `npm run edge:slugs`: writes the catalogue's slug table (slug -> lower-case id) into the
 * CloudFront function, between its `BEGIN SLUG_IDS` and `END SLUG_IDS` lines, and formats the file.
 * Run it after a change to the catalogue; test/infra/edge.test.ts fails until the two agree.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { slugDocumentNames } from '../functions/core/views/view-paths.ts';
import { VIEWER_REQUEST_FILE } from '../infra/edge/load.ts';

const source = readFileSync(VIEWER_REQUEST_FILE, 'utf8');
const block = /(\/\/ BEGIN SLUG_IDS\n)[\s\S]*?(\/\/ END SLUG_IDS)/;
if (!block.test(source)) {
  console.error(`${VIEWER_REQUEST_FILE}: no "// BEGIN SLUG_IDS" ... "// END SLUG_IDS" block to write into`);
  process.exit(1);
}
const table = slugDocumentNames();
writeFileSync(
  VIEWER_REQUEST_FILE,
  source.replace(
    block,
    (_all, begin: string, end: string) => `${begin}var SLUG_IDS = ${JSON.stringify(table)};\n${end}`,
  ),
);
const format = spawnSync('npx', ['biome', 'format', '--write', VIEWER_REQUEST_FILE], { stdio: 'inherit' });
if (format.status !== 0) process.exit(format.status ?? 1);
console.log(`${Object.keys(table).length} slugs written to ${VIEWER_REQUEST_FILE}`);
