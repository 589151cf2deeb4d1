/**
 * The functions as NodejsFunction bundles them (the construct's options, which the bundle
 * benchmark mirrors): each bundle loads in a fresh Node process, and the mcp bundle carries the
 * SDK's validator the server is given, not the SDK's unused Ajv default.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { ESBUILD_OPTIONS, PROJECT_ROOT } from '../../infra/constructs/service-function.ts';
import { FUNCTIONS } from '../../infra/manifest.ts';

// Inside the project so the external `@aws-sdk/*` imports resolve from node_modules.
const outDir = mkdtempSync(join(PROJECT_ROOT, 'node_modules', '.test-bundles-'));
writeFileSync(join(outDir, 'package.json'), '{"type":"module"}');
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

async function bundle(name: string, entry: string): Promise<{ outfile: string; metafile: Metafile }> {
  const outfile = join(outDir, `${name}.mjs`);
  const result = await build({
    ...ESBUILD_OPTIONS,
    entryPoints: [resolve(PROJECT_ROOT, entry)],
    outfile,
    metafile: true,
  });
  return { outfile, metafile: result.metafile };
}

describe('function bundles', () => {
  it.each(Object.values(FUNCTIONS).map((fn) => [fn.name, fn.entry]))(
    '%s loads in a fresh node process',
    async (name, entry) => {
      const { outfile } = await bundle(name, entry);
      const run = spawnSync(process.execPath, ['-e', `await import(${JSON.stringify(outfile)})`], {
        env: { ...process.env, AWS_REGION: 'us-east-1', NODE_OPTIONS: '' },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    },
    60_000,
  );

  it('mcp takes the SDK shims from functions/mcp/sdk-shims.ts, without Ajv', async () => {
    const { metafile } = await bundle('mcp-inputs', FUNCTIONS.mcp.entry);
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain('functions/mcp/sdk-shims.ts');
    expect(inputs.filter((file) => /ajv|shimsNode/i.test(file))).toEqual([]);
  }, 60_000);
});
