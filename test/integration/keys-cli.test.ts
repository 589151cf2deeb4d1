/**
 * `npm run keys` against a DATA_DIR, once with no server (the command opens dynalite itself) and
 * once attached to a running `npm start` on the same folder. Run as `node scripts/keys.ts` on the
 * test's own Node 24.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasControlCharacters } from '../../functions/core/access/key-requests.ts';
import { runScript, type ScriptRun } from './cli.ts';
import { withContract } from './contract.ts';
import { keyStoreOf } from './keys.ts';
import { startStack, type TestStack } from './stack.ts';

const SCRIPT = new URL('../../scripts/keys.ts', import.meta.url).pathname;
const AT = Date.parse('2026-11-18T20:10:15Z');

function keys(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return keysWith({ DATA_DIR: dataDir }, ...args);
}

function keysWith(env: Record<string, string>, ...args: string[]): Promise<ScriptRun> {
  return runScript(SCRIPT, args, env);
}

describe('npm run keys with no server running', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-keys-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('creates a key, shows it once, lists and revokes it', async () => {
    const created = await keys(dataDir, 'create', '--account', 'Example Freight', '--json');
    expect(created.code).toBe(0);
    const issued = JSON.parse(created.stdout) as { key: string; id: string; account: string };
    expect(issued.key).toMatch(/^bw_live_[0-9A-Za-z]{38}$/);
    expect(issued).toMatchObject({ id: expect.stringMatching(/^key_/), account: 'Example Freight' });

    const second = await keys(dataDir, 'create', '--account', 'Example Freight');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/shown only this once/);

    const listed = await keys(dataDir, 'list', '--json');
    const records = JSON.parse(listed.stdout) as { id: string; account: string; revokedAt: string | null }[];
    expect(records.filter((r) => r.account === 'Example Freight')).toHaveLength(2);
    expect(listed.stdout).not.toContain(issued.key);
    expect((await keys(dataDir, 'list')).stdout).toContain(issued.id);

    expect((await keys(dataDir, 'revoke', issued.id)).code).toBe(0);
    const after = JSON.parse((await keys(dataDir, 'list', '--json')).stdout) as typeof records;
    expect(after.find((r) => r.id === issued.id)?.revokedAt).toEqual(expect.any(String));
  });

  it.each([
    [['create'], /--account NAME/],
    [['create', '--account'], /--account needs a value/],
    [['revoke'], /exactly one key id/],
    [['frobnicate'], /unknown command/],
  ])('refuses %j with a usage error and a non-zero exit', async (args, message) => {
    const result = await keys(dataDir, ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('usage: npm run keys');
  });

  it('fails clearly for an unknown id', async () => {
    const revoke = await keys(dataDir, 'revoke', 'key_nope');
    expect(revoke.code).toBe(1);
    expect(revoke.stderr).toContain('no key with id "key_nope"');
    const approve = await keys(dataDir, 'approve', 'req_nope');
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain('no key request with id "req_nope"');
  });
});

describe('npm run keys next to a running server', () => {
  let stack: TestStack;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-keys-live-'));
    stack = await withContract(await startStack({ atMs: AT, dataDir }));
    await stack.service.ingestNow();
  });
  afterAll(async () => {
    await stack?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('issues a key the server accepts at once, and revokes it', async () => {
    const created = await keys(dataDir, 'create', '--account', 'Live Freight', '--json');
    expect(created.code).toBe(0);
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    expect((await stack.get('/api/v1/ports', { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await keys(dataDir, 'revoke', id)).code).toBe(0);
    expect((await stack.get('/api/v1/ports', { headers: { 'x-api-key': key } })).status).toBe(401);
  });

  it('--aws goes where the AWS SDK configuration says (here a DynamoDB endpoint), by table name', async () => {
    const aws = {
      AWS_ENDPOINT_URL_DYNAMODB: stack.service.endpoints.dynamodb,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      DATA_DIR: join(dataDir, 'not-used'),
    };
    const missing = await keysWith(aws, 'list', '--aws');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('TABLE_KEYS');
    const created = await keysWith(
      { ...aws, TABLE_KEYS: 'api-keys' },
      'create',
      '--account',
      'Cloud Freight',
      '--aws',
      '--json',
    );
    expect(created.code).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    // The same table the running server reads: the key works at once.
    expect((await stack.get('/api/v1/ports', { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('shows requests from the form and approves one with a working key', async () => {
    const response = await stack.get('/keys/requests', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Ana Test',
        email: 'ana@example.com',
        organisation: 'Example Freight',
        use: 'Planning truck departures at Laredo.',
        website: '',
      }),
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };

    const listed = await keys(dataDir, 'requests');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('ana@example.com');

    const approved = await keys(dataDir, 'approve', id, '--json');
    expect(approved.code).toBe(0);
    const issued = JSON.parse(approved.stdout) as { key: string; account: string; requestId: string };
    expect(issued).toMatchObject({ account: 'Example Freight', requestId: id });
    expect((await stack.get('/api/v1/port-current', { headers: { 'x-api-key': issued.key } })).status).toBe(
      200,
    );

    const requests = JSON.parse((await keys(dataDir, 'requests', '--json')).stdout) as {
      id: string;
      status: string;
    }[];
    expect(requests.find((r) => r.id === id)?.status).toBe('approved');
    expect((await keys(dataDir, 'approve', id)).code).toBe(1);
  });

  it('prints stored control characters escaped, never raw to the terminal', async () => {
    // Stored by another writer (or before the form refused them): the command must not pass them on.
    const hostile = {
      id: 'req_hostile0001',
      name: 'Eve\u001b]0;pwned\u0007',
      email: 'eve@example.com',
      organisation: 'Evil\u202eCorp\u009b',
      use: 'Clears the screen\u001b[2J here',
      createdAt: new Date(AT).toISOString(),
      status: 'pending' as const,
      keyId: null,
    };
    const { doc, store } = keyStoreOf(stack);
    try {
      await store.putRequest(hostile);
    } finally {
      doc.destroy();
    }
    // Any raw control character but the line breaks that end lines.
    const raw = { test: (text: string) => hasControlCharacters(text.replaceAll('\n', ''), false) };
    const listed = await keys(dataDir, 'requests');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('req_hostile0001');
    expect(raw.test(listed.stdout)).toBe(false);
    expect(listed.stdout).toContain('Eve\\u001b]0;pwned\\u0007');
    expect(listed.stdout).toContain('Evil\\u202eCorp\\u009b');
    const json = await keys(dataDir, 'requests', '--json');
    expect(raw.test(json.stdout)).toBe(false);
    // Escaped, yet the same values once parsed.
    const parsed = JSON.parse(json.stdout) as { id: string; name: string; organisation: string }[];
    expect(parsed.find((r) => r.id === hostile.id)).toMatchObject({
      name: hostile.name,
      organisation: hostile.organisation,
    });
    const approved = await keys(dataDir, 'approve', hostile.id);
    expect(approved.code).toBe(0);
    expect(raw.test(approved.stdout)).toBe(false);
  });
});
