/**
 * `npm run bench -- backtest [runs]`: the real-data backtest of the README's accuracy section,
 * `npm run backtest -- --input ../shared/data/real/cascade-gateway__peace-arch-southbound-cars__2013-2016__hourly.csv
 * --format cascade-gateway --port 300402`, run as a user runs it (its own process, reading the
 * file), `runs` times (default 1). Prints the wall time of each run and its CPU time (user and
 * system, the child's own), the median wall time against the 60 s goal, the load average, and the
 * champion's MAE row at 1, 2, 3, 6 and 24 h. Without ../shared (a clone of the repository
 * alone) it says so and measures nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BacktestResult } from '../../functions/core/forecast/backtest.ts';
import { median } from './_stats.ts';

const FILE = fileURLToPath(
  new URL(
    '../../../shared/data/real/cascade-gateway__peace-arch-southbound-cars__2013-2016__hourly.csv',
    import.meta.url,
  ),
);
const SCRIPT = fileURLToPath(new URL('../backtest.ts', import.meta.url));
const GOAL_S = 60;
/** The horizons the README's accuracy table quotes, minutes. */
const QUOTED = [60, 120, 180, 360, 1440];
const runs = Math.max(1, Number(process.argv[2] ?? 1));

if (!existsSync(FILE)) {
  console.log(`backtest bench: skipped, the real file is not at ${FILE} (a clone without ../shared).`);
  process.exit(0);
}

interface Run {
  wallSeconds: number;
  /** The child's user + system CPU, seconds (null where /proc is not there to say). */
  cpuSeconds: number | null;
  output: string;
}

/**
 * User + system CPU of the waited-for children of this process, seconds: fields 16 and 17 of
 * /proc/self/stat (cutime, cstime), in clock ticks of 1/100 s (Linux's USER_HZ). spawnSync
 * reports no resource use of its own.
 */
function childrenCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

function backtestOnce(): Run {
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [SCRIPT, '--input', FILE, '--format', 'cascade-gateway', '--port', '300402', '--json'],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuAfter = childrenCpuSeconds();
  if (result.status !== 0) {
    console.error(result.stderr);
    console.error(`backtest bench: npm run backtest exited with ${result.status}`);
    process.exit(1);
  }
  return {
    wallSeconds,
    cpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    output: result.stdout,
  };
}

const done: Run[] = [];
for (let i = 0; i < runs; i++) {
  const run = backtestOnce();
  done.push(run);
  console.log(
    `run ${i + 1}: ${run.wallSeconds.toFixed(1)} s wall, ${run.cpuSeconds === null ? 'CPU not known' : `${run.cpuSeconds.toFixed(1)} s CPU`}`,
  );
}
const last = JSON.parse((done.at(-1) as Run).output) as BacktestResult;
const cell = (value: number | null) => (value === null ? '-' : value.toFixed(1));
const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? '-' : `${(value * 100).toFixed(1)}%`;
console.log(
  `backtest bench: the four-year real file (${last.from} .. ${last.to}, ${last.slots} slots), ${runs} run(s): median ${median(done.map((r) => r.wallSeconds)).toFixed(1)} s wall (goal ${GOAL_S} s at most)${done.every((r) => r.cpuSeconds !== null) ? `, ${median(done.map((r) => r.cpuSeconds as number)).toFixed(1)} s CPU` : ''}; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`,
);
console.log('horizon  MAE:champion   model  persist  profile  coverage  cov:0-5   5-15  15-45    45+');
for (const row of last.overall.filter((r) => QUOTED.includes(r.horizonMinutes))) {
  console.log(
    `${`+${row.horizonMinutes / 60}h`.padStart(7)}  ${cell(row.champion.mae).padStart(12)} ${cell(row.model.mae).padStart(7)} ${cell(row.persistence.mae).padStart(8)} ${cell(row.profile.mae).padStart(8)} ${percent(row.champion.coverage).padStart(9)} ${(row.champion.coverageByLevel ?? []).map((l, i) => percent(l.coverage).padStart(i === 0 ? 8 : 6)).join(' ')}`,
  );
}
