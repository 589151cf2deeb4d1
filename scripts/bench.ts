/**
 * `npm run bench -- <name> [...]`: runs `scripts/bench/<name>.ts`, each a script that prints
 * its figures (medians, ratios). `npm run bench` alone lists them.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const available = readdirSync(new URL('./bench/', import.meta.url))
  .filter((file) => file.endsWith('.ts') && !file.startsWith('_'))
  .map((file) => file.slice(0, -3))
  .sort();
const [name, ...rest] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.error(
    name ? `unknown benchmark "${name}".` : 'name a benchmark.',
    `Available: ${available.join(', ') || '(none yet)'}. Example: npm run bench -- parse`,
  );
  process.exit(name ? 2 : 0);
}
const result = spawnSync(
  process.execPath,
  [new URL(`./bench/${name}.ts`, import.meta.url).pathname, ...rest],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
