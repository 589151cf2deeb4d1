/**
 * `npm run bench -- import [runs]`: `npm run import` of the four-year real Cascade Gateway file
 * (Peace Arch southbound cars, 2013-2016, 35,064 rows) into a fresh store, as a user runs it (the
 * command opens the stores under a new DATA_DIR itself), then the same file again (idempotent: it
 * writes nothing). Prints the wall time of each run, the median of the first imports (the goal is
 * 60 s at most) and the load average.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './_stats.ts';

const FILE = fileURLToPath(
  new URL(
    '../../../shared/data/real/cascade-gateway__peace-arch-southbound-cars__2013-2016__hourly.csv',
    import.meta.url,
  ),
);
const SCRIPT = fileURLToPath(new URL('../import.ts', import.meta.url));
const GOAL_S = 60;
const runs = Math.max(1, Number(process.argv[2] ?? 1));

if (!existsSync(FILE)) {
  console.error(
    `import bench: the real file is not at ${FILE} (a clone without ../shared); nothing to measure.`,
  );
  process.exit(1);
}

function importOnce(dataDir: string): { seconds: number; line: string } {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [
      SCRIPT,
      '--input',
      FILE,
      '--format',
      'cascade-gateway',
      '--port',
      '300402',
      '--direction',
      'into-us',
      '--mode',
      'passenger',
      '--lane',
      'standard',
    ],
    { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8' },
  );
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`import failed (exit ${result.status}): ${result.stderr}`);
  return { seconds, line: result.stdout.trim() };
}

console.log(
  `import bench: ${FILE.split('/').at(-1)}, ${runs} fresh store(s), load average ${loadavg()[0]?.toFixed(2)}`,
);
const firsts: number[] = [];
for (let run = 1; run <= runs; run++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'border-waits-import-bench-'));
  try {
    const first = importOnce(dataDir);
    firsts.push(first.seconds);
    console.log(`  run ${run}, first import:  ${first.seconds.toFixed(1)} s wall  | ${first.line}`);
    const second = importOnce(dataDir);
    console.log(`  run ${run}, second import: ${second.seconds.toFixed(1)} s wall  | ${second.line}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
const m = median(firsts);
console.log(
  `first import of the four-year file: median ${m.toFixed(1)} s wall over ${runs} run(s) (goal: at most ${GOAL_S} s) ${m <= GOAL_S ? 'OK' : 'OVER'}; load average now ${loadavg()[0]?.toFixed(2)}`,
);
