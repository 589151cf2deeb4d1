/**
 * `npm test`: typecheck, lint, the site build, the whole vitest suite, then a short soak (counted as
 * one test), ending with the plain `N passed, N failed` line that CI reads (vitest's own summary is
 * not recognised).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';

const extra = process.argv.slice(2);
const run = (cmd: string, args: string[]): number =>
  spawnSync(cmd, args, { stdio: 'inherit', env: process.env }).status ?? 1;

let failedSteps = 0;
for (const [name, cmd, args] of [
  ['typecheck', 'npx', ['tsc', '-p', 'tsconfig.json']],
  ['lint', 'npx', ['biome', 'check', '.']],
  // Built once before the suite, so no test rebuilds site/dist while another uploads it.
  ['site build', 'npm', ['run', '-s', 'build:site']],
] as const) {
  const code = run(cmd, [...args]);
  console.log(`${name}: ${code === 0 ? 'ok' : 'FAILED'}`);
  if (code !== 0) failedSteps += 1;
}

mkdirSync('.vitest', { recursive: true });
const vitestCode = run('npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  '--outputFile.json=.vitest/results.json',
  ...extra,
]);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const results = JSON.parse(readFileSync('.vitest/results.json', 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests?: number;
    testResults: { name: string; status: string; assertionResults: { status: string }[] }[];
  };
  passed = results.numPassedTests;
  failed = results.numFailedTests;
  skipped = results.numPendingTests + (results.numTodoTests ?? 0);
  // A file that failed outside its tests (a hook, an import) fails no test itself, and the tests it
  // never ran count as skipped: each such file is one failure.
  for (const file of results.testResults) {
    if (file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed')) {
      console.error(`failed outside its tests: ${file.name}`);
      failed += 1;
    }
  }
} catch {
  console.error('vitest wrote no results file: counting the run as failed');
  failed += 1;
}
// vitest failing with every test passed (an unhandled error between tests) is a failure too.
if (vitestCode !== 0 && failed === 0) {
  console.error(`vitest exited with ${vitestCode} though no test failed: counting the run as failed`);
  failed += 1;
}
// Typecheck and lint are checks too: a failed step counts as a failure.
failed += failedSteps;

// The soak (npm run soak) runs with the whole suite, after it, as one more test: SOAK_MINUTES of
// traffic and feed faults against the local service (default 2). A run of chosen test files skips it.
let soakCode = 0;
if (extra.length === 0) {
  const minutes = process.env.SOAK_MINUTES ?? '2';
  console.log(`\nsoak: ${minutes} minutes of traffic and feed faults (npm run soak -- --minutes ${minutes})`);
  soakCode = run('node', ['--expose-gc', 'scripts/soak.ts', '--minutes', minutes]);
  console.log(`soak: ${soakCode === 0 ? 'ok' : 'FAILED'}`);
  if (soakCode === 0) passed += 1;
  else failed += 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || vitestCode !== 0 || soakCode !== 0 || passed === 0 ? 1 : 0);
