/**
 * The functions as NodejsFunction bundles them (the construct's options, which the bundle
 * benchmark mirrors): each bundle loads in a fresh Node process, and the mcp bundle carries the
 * SDK's validator the server is given, not the SDK's unused Ajv default. What a cold start loads:
 * SDK modules only some requests need wait for their first use; configuration schemas of other
 * functions are left out.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * The @aws-sdk packages a fresh node process has loaded once the bundle's module has run, and then
 * `after` (code with the module as `fn`), when given.
 */
function sdkLoaded(outfile: string, after = '', env: Record<string, string> = {}): string[] {
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const fn = await import(${JSON.stringify(outfile)});
       ${after}
       const { createRequire } = await import('node:module');
       console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`,
    ],
    { env: { ...process.env, AWS_REGION: 'us-east-1', NODE_OPTIONS: '', ...env }, encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  // The last line: `after` may have logged before it.
  const files = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as string[];
  return [...new Set(files.map((file) => /node_modules\/(@aws-sdk\/[^/]+)/.exec(file)?.[1]))].filter(
    (name): name is string => name !== undefined,
  );
}
const sdkLoadedAtInit = (outfile: string) => sdkLoaded(outfile);

const AUTHORIZERS: [string, string][] = [
  ['authorizer', 'functions/handlers/authorizer.ts'],
  ['origin-authorizer', 'functions/handlers/origin-authorizer.ts'],
];

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

  it('mcp loads the S3, secrets and presigner SDK modules on first use (documents, alerts, large exports), not at init', async () => {
    const { outfile } = await bundle('mcp-init', FUNCTIONS.mcp.entry);
    const loaded = sdkLoadedAtInit(outfile);
    expect(loaded).toContain('@aws-sdk/client-dynamodb');
    expect(loaded).not.toContain('@aws-sdk/client-s3');
    expect(loaded).not.toContain('@aws-sdk/client-secrets-manager');
    expect(loaded).not.toContain('@aws-sdk/s3-request-presigner');
  }, 60_000);

  it.each([FUNCTIONS.forecast, FUNCTIONS.api].map((fn) => [fn.name, fn.entry]))(
    '%s, which reads or writes documents on (almost) every run, loads the S3 SDK module at init',
    async (name, entry) => {
      const { outfile } = await bundle(`${name}-s3-init`, entry);
      expect(sdkLoadedAtInit(outfile)).toContain('@aws-sdk/client-s3');
    },
    60_000,
  );

  it.each(AUTHORIZERS)(
    '%s, which reads a secret on every run, loads the secrets SDK module at init',
    async (name, entry) => {
      const { outfile } = await bundle(`${name}-init`, entry);
      expect(sdkLoadedAtInit(outfile)).toContain('@aws-sdk/client-secrets-manager');
    },
    60_000,
  );

  it('ingest loads DynamoDB at init, and S3 and secrets when its first cycle starts, before their first use', async () => {
    const { outfile } = await bundle('ingest-init', FUNCTIONS.ingest.entry);
    const atInit = sdkLoadedAtInit(outfile);
    expect(atInit).toContain('@aws-sdk/client-dynamodb');
    expect(atInit).not.toContain('@aws-sdk/client-s3');
    expect(atInit).not.toContain('@aws-sdk/client-secrets-manager');
    // A first cycle against a DynamoDB that refuses connections fails at its lease, before any
    // publish or alert: the two modules were loaded all the same.
    const afterFirstCall = sdkLoaded(
      outfile,
      `await fn.handler({}, { awsRequestId: 'bundle-test', getRemainingTimeInMillis: () => 60_000 }).catch(() => {});`,
      { AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' },
    );
    expect(afterFirstCall).toContain('@aws-sdk/client-s3');
    expect(afterFirstCall).toContain('@aws-sdk/client-secrets-manager');
  }, 60_000);

  it.each(AUTHORIZERS)(
    '%s carries only its own configuration schema',
    async (name, entry) => {
      const { outfile } = await bundle(`${name}-config`, entry);
      const code = readFileSync(outfile, 'utf8');
      for (const key of [
        'MCP_RESOURCE_URL',
        'CBP_FEED_URL',
        'ALERT_WEBHOOK_ATTEMPTS',
        'KEY_REQUESTS_PER_HOUR',
      ])
        expect(code, key).not.toContain(key);
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
