/**
 * Builds the status site (site/dist) when it is missing or older than its sources, so `npm start`
 * and `npm run demo` serve the site on a fresh clone. The sources are site/ (without its build
 * output) and functions/core/, which the pages import (catalogue, regions, vocabulary).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../', import.meta.url).pathname;
const SKIP = new Set(['dist', 'node_modules', '.astro']);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether `root`/site/dist is missing or older than a source file. */
export function siteIsStale(root = ROOT): boolean {
  const index = join(root, 'site/dist/index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return built < Math.max(newestMtime(join(root, 'site')), newestMtime(join(root, 'functions/core')));
}

/** Builds the site if stale; returns whether it built. Throws with Astro's output on failure. */
export function buildSiteIfStale(log: (line: string) => void = () => {}): boolean {
  if (!siteIsStale()) return false;
  log('building the site (site/dist is missing or older than its sources)...');
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/astro/bin/astro.mjs'), 'build', '--root', 'site'],
    { cwd: ROOT, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`astro build failed:\n${result.stdout}\n${result.stderr}`);
  return true;
}
