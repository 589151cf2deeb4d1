/**
 * Independent clients against the local runtime's /mcp: the MCP Inspector CLI (legacy, modern and auto
 * eras) and the official conformance suite for every server scenario that applies to a product
 * server, with the checked-in baseline of expected failures (test/conformance/baseline.yml).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browseAuthorization } from '../../infra/local/dev-idp-login.ts';
import { tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');
const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const INSPECTOR = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);
const CONFORMANCE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const BASELINE = join(root, 'test/conformance/baseline.yml');

let stack: TestStack;
let home: string;

function run(script: string, args: string[], timeoutMs = 60_000) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [script, ...args],
      {
        timeout: timeoutMs,
        cwd: home,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          HOME: home,
          MCP_CATALOG_PATH: join(home, 'catalog.json'),
          MCP_CLIENT_CONFIG_PATH: join(home, 'clients.json'),
          NO_COLOR: '1',
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'border-waits-clients-'));
  stack = await startStack({ atMs: AT });
  await stack.service.ingestNow();
});
afterAll(async () => {
  await stack?.stop();
  await rm(home, { recursive: true, force: true });
});

describe.each(['legacy', 'modern', 'auto'])('the Inspector CLI (%s era)', (era) => {
  const inspect = (...args: string[]) =>
    run(INSPECTOR, ['--cli', stack.service.mcpUrl, '--protocol-era', era, '--format', 'json', ...args]);

  it('lists the tools', async () => {
    const { code, stdout, stderr } = await inspect('--method', 'tools/list');
    expect(code, stderr).toBe(0);
    const names = (JSON.parse(stdout) as { result: { tools: { name: string }[] } }).result.tools.map(
      (t) => t.name,
    );
    expect(names).toContain('get_current_waits');
    expect(names).toHaveLength(9);
  });

  it('calls an anonymous tool', async () => {
    const { code, stdout, stderr } = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'get_current_waits',
      '--tool-arg',
      'port_id=san-ysidro',
    );
    expect(code, stderr).toBe(0);
    const result = (
      JSON.parse(stdout) as { result: { structuredContent: { portId: string; lanes: unknown[] } } }
    ).result;
    expect(result.structuredContent.portId).toBe('250401');
    expect(result.structuredContent.lanes.length).toBeGreaterThan(0);
  });

  it('gets auth_required (exit 3) for a Pro tool without a token', async () => {
    const { code } = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'list_alerts',
      '--stored-auth-only',
    );
    expect(code).toBe(3);
  });

  it('calls a Pro tool with a Bearer token from the development IdP', async () => {
    const token = await tokenFor(stack, 'pro');
    const { code, stdout, stderr } = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'list_alerts',
      '--header',
      `Authorization: Bearer ${token}`,
      '--stored-auth-only',
    );
    expect(code, stderr).toBe(0);
    expect(
      (JSON.parse(stdout) as { result: { structuredContent: { count: number } } }).result.structuredContent
        .count,
    ).toBe(0);
  });
});

describe('npm run token', () => {
  it('prints a Business token from the development IdP of the running service, and /mcp accepts it', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (done) => {
        execFile(
          process.execPath,
          [join(root, 'scripts/token.ts'), '--user', 'business'],
          { cwd: root, timeout: 30_000, env: { ...process.env, DATA_DIR: stack.service.dataDir } },
          (error, out, err) => done({ code: error ? 1 : 0, stdout: out, stderr: err }),
        );
      },
    );
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('scope "alerts history"');
    const token = stdout.trim();
    const { code: inspected, stdout: result } = await run(INSPECTOR, [
      '--cli',
      stack.service.mcpUrl,
      '--format',
      'json',
      '--method',
      'tools/call',
      '--tool-name',
      'get_wait_history',
      '--tool-args-json',
      '{"port_id":"250401","hours":3}',
      '--header',
      `Authorization: Bearer ${token}`,
      '--stored-auth-only',
    ]);
    expect(inspected).toBe(0);
    expect(
      (JSON.parse(result) as { result: { structuredContent: { portId: string } } }).result.structuredContent
        .portId,
    ).toBe('250401');
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

describe('the conformance suite against the development IdP', () => {
  it('passes the authorization-server scenarios (metadata, authorization code + PKCE with resource)', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        CONFORMANCE,
        'authorization',
        '--url',
        stack.service.issuer,
        '--client-id',
        'dev-test-client',
        '--resource',
        stack.service.mcpUrl,
        '-p',
        String(port),
        '-o',
        join(home, 'conformance-idp'),
      ],
      { cwd: home, env: { ...process.env, HOME: home, NO_COLOR: '1' } },
    );
    let output = '';
    const exited = new Promise<number>((done) => child.on('exit', (code) => done(code ?? 1)));
    const authUrl = await new Promise<string>((found, fail) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        // The suite prints the URL a person would open, then starts its callback server.
        const url = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(output)?.[1];
        if (url && output.includes('Callback server started')) found(url);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', () => fail(new Error(`conformance exited early:\n${output}`)));
    });
    // The "browser": sign in as pro at the dev IdP's login page, then land on the suite's callback.
    const callback = await browseAuthorization(new URL(authUrl), 'pro', `http://127.0.0.1:${port}/callback`);
    const landed = await fetch(callback);
    await landed.body?.cancel();
    expect(await exited, output).toBe(0);
    expect(output).toMatch(/Total: 2 passed, 0 failed/);
  }, 120_000);
});

const SCENARIOS: [string, string][] = [
  ['2025-06-18', 'server-initialize'],
  ['2025-06-18', 'ping'],
  ['2025-06-18', 'tools-list'],
  ['2025-06-18', 'server-session-lifecycle'],
  ['2025-11-25', 'server-initialize'],
  ['2025-11-25', 'ping'],
  ['2025-11-25', 'tools-list'],
  ['2025-11-25', 'server-session-lifecycle'],
  ['2025-11-25', 'dns-rebinding-protection'],
  ['2026-07-28', 'server-stateless'],
  ['2026-07-28', 'tools-list'],
  ['2026-07-28', 'http-header-validation'],
  ['2026-07-28', 'http-custom-header-server-validation'],
  ['2026-07-28', 'server-sse-multiple-streams'],
  ['2026-07-28', 'sep-2164-resource-not-found'],
  ['2026-07-28', 'caching'],
  ['2026-07-28', 'dns-rebinding-protection'],
];

describe('the conformance suite', () => {
  it.each(SCENARIOS)(
    '%s %s passes, baseline aside',
    async (version, scenario) => {
      const { code, stdout, stderr } = await run(
        CONFORMANCE,
        [
          'server',
          '--url',
          stack.service.mcpUrl,
          '--spec-version',
          version,
          '--scenario',
          scenario,
          '--expected-failures',
          BASELINE,
          '-o',
          join(home, 'conformance', version),
        ],
        90_000,
      );
      expect(code, `${stdout.slice(-3000)}\n${stderr.slice(-2000)}`).toBe(0);
      expect(stdout).toMatch(/Passed: \d+\/\d+/);
    },
    120_000,
  );
});
