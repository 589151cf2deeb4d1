/**
 * `npm run bench -- bundles`: bundles each manifest function as NodejsFunction does (platform node,
 * ESM, node24, minified, @aws-sdk/* external: the Lambda runtime provides the SDK) and reports the
 * minified size and the cold init time: median over 7 fresh `node` processes importing the bundle.
 * The SDK is resolved from this project's node_modules, standing in for the runtime's copy.
 * A second column times the same import with the functions' NODE_OPTIONS in AWS
 * (`--enable-source-maps`, FUNCTION_NODE_OPTIONS): Node then reads the bundle's source map at load.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import {
  ESBUILD_OPTIONS,
  FUNCTION_NODE_OPTIONS,
  PROJECT_ROOT,
} from '../../infra/constructs/service-function.ts';
import { FUNCTIONS } from '../../infra/manifest.ts';
import { median } from './_stats.ts';

const RUNS = 7;
// Inside the project so bare `@aws-sdk/*` imports resolve from node_modules.
const outDir = mkdtempSync(join(PROJECT_ROOT, 'node_modules', '.bench-bundles-'));
const entries = [
  ...Object.values(FUNCTIONS),
  { name: 'authorizer', entry: 'functions/handlers/authorizer.ts' },
  { name: 'origin-authorizer', entry: 'functions/handlers/origin-authorizer.ts' },
];

try {
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}');
  console.log(`function     minified   cold init (median of ${RUNS})   with source maps (as deployed)`);
  for (const fn of entries) {
    const outfile = join(outDir, `${fn.name}.mjs`);
    await build({
      ...ESBUILD_OPTIONS,
      entryPoints: [resolve(PROJECT_ROOT, fn.entry)],
      outfile,
      sourcemap: true,
    });
    const size = statSync(outfile).size;
    const coldInit = (nodeOptions: string) => {
      const start = performance.now();
      const run = spawnSync(process.execPath, ['-e', `await import(${JSON.stringify(outfile)})`], {
        env: { ...process.env, AWS_REGION: 'us-east-1', NODE_OPTIONS: nodeOptions },
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`${fn.name}: import failed\n${run.stderr}`);
      return performance.now() - start;
    };
    const times: number[] = [];
    const deployed: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      times.push(coldInit(''));
      deployed.push(coldInit(FUNCTION_NODE_OPTIONS));
    }
    const kb = `${(size / 1024).toFixed(1)} KB`;
    console.log(
      `${fn.name.padEnd(12)} ${kb.padStart(9)}   ${`${median(times).toFixed(0)} ms`.padEnd(24)}   ${median(deployed).toFixed(0)} ms`,
    );
  }
  const baseline: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    baseline.push(performance.now() - start);
  }
  console.log(`(empty node process: ${median(baseline).toFixed(0)} ms; init above includes it)`);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
