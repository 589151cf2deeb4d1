/**
 * `npm run edge:slugs`: writes the tables the CloudFront function cannot import into it, and
 * formats the file: the catalogue's slug table (slug -> lower-case id), between its
 * `BEGIN SLUG_IDS` and `END SLUG_IDS` lines, and the manifest's CORS rows (`CORS_ROUTES`), between
 * `BEGIN CORS_ROUTES` and `END CORS_ROUTES`. Run it after a change to either; test/infra/edge.test.ts
 * fails until they agree.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { slugDocumentNames } from '../functions/core/views/view-paths.ts';
import { corsRows, VIEWER_REQUEST_FILE } from '../infra/edge/load.ts';

let source = readFileSync(VIEWER_REQUEST_FILE, 'utf8');
const table = slugDocumentNames();
for (const [name, value] of [
  ['SLUG_IDS', table],
  ['CORS_ROUTES', corsRows()],
] as const) {
  const block = new RegExp(`(// BEGIN ${name}\\n)[\\s\\S]*?(// END ${name})`);
  if (!block.test(source)) {
    console.error(`${VIEWER_REQUEST_FILE}: no "// BEGIN ${name}" ... "// END ${name}" block to write into`);
    process.exit(1);
  }
  source = source.replace(
    block,
    // One line each: the function must stay under CloudFront's 10 KB, comments included.
    (_all, begin: string, end: string) =>
      `${begin}// biome-ignore format: one line\nvar ${name} = ${JSON.stringify(value)};\n${end}`,
  );
}
writeFileSync(VIEWER_REQUEST_FILE, source);
const format = spawnSync('npx', ['biome', 'format', '--write', VIEWER_REQUEST_FILE], { stdio: 'inherit' });
if (format.status !== 0) process.exit(format.status ?? 1);
console.log(`${Object.keys(table).length} slugs written to ${VIEWER_REQUEST_FILE}`);
