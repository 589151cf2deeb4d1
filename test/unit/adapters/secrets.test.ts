/**
 * Secrets read at run time: Secrets Manager (current and previous version, cached, a failed read
 * never cached) with its client's faults injected, and the local file stand-in on a real folder.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceNotFoundException, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileSecretSource, ensureFileSecret } from '../../../functions/adapters/secrets/files.ts';
import { createSecretsManagerSource } from '../../../functions/adapters/secrets/secrets-manager.ts';
import { createOriginCheck } from '../../../functions/http/origin-verify.ts';

/** A client answering from `stages`, failing while `down` is set; counts its calls. */
function client(stages: Record<string, string | undefined>) {
  const state = { calls: 0, down: false };
  const fake = {
    async send(command: { input: { VersionStage?: string } }) {
      state.calls += 1;
      if (state.down) throw new Error('connect ETIMEDOUT');
      const value = stages[command.input.VersionStage ?? 'AWSCURRENT'];
      if (value === undefined) {
        throw new ResourceNotFoundException({ message: 'no such version', $metadata: {} });
      }
      return { SecretString: value };
    },
  };
  return { state, client: fake as unknown as SecretsManagerClient };
}

describe('Secrets Manager source', () => {
  it('gives the current value, and the previous one while a rotation is under way', async () => {
    const never = createSecretsManagerSource(client({ AWSCURRENT: 'one' }));
    expect(await never.values('arn:x')).toEqual(['one']);
    const rotated = createSecretsManagerSource(client({ AWSCURRENT: 'two', AWSPREVIOUS: 'one' }));
    expect(await rotated.values('arn:x')).toEqual(['two', 'one']);
  });

  it('caches for its time to live, and never caches a failed read', async () => {
    let now = 0;
    const fake = client({ AWSCURRENT: 'one' });
    const source = createSecretsManagerSource({ client: fake.client, ttlMs: 1_000, now: () => now });
    fake.state.down = true;
    await expect(source.values('arn:x')).rejects.toThrow(/ETIMEDOUT/);
    fake.state.down = false;
    expect(await source.values('arn:x')).toEqual(['one']);
    const calls = fake.state.calls;
    now = 999;
    expect(await source.values('arn:x')).toEqual(['one']);
    expect(fake.state.calls).toBe(calls);
    now = 1_000;
    await source.values('arn:x');
    expect(fake.state.calls).toBeGreaterThan(calls);
  });

  it('an origin check over an unreachable store rejects (the authorizer answers 503), never admits', async () => {
    const fake = client({ AWSCURRENT: 'secret' });
    fake.state.down = true;
    const check = createOriginCheck(createSecretsManagerSource({ client: fake.client }), 'arn:x');
    await expect(check('secret')).rejects.toThrow();
    expect(await check(undefined)).toBe(false);
  });
});

describe('file source (the local stand-in)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'border-waits-secrets-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('creates a value once and keeps it', async () => {
    const first = await ensureFileSecret(dir, 'origin-verify');
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(await ensureFileSecret(dir, 'origin-verify')).toBe(first);
    expect(await createFileSecretSource(dir).values('origin-verify')).toEqual([first]);
  });

  it('reads a rotation from disk at once, and refuses ids that are paths', async () => {
    await writeFile(join(dir, 'rotating'), 'new-value');
    await writeFile(join(dir, 'rotating.previous'), 'old-value');
    const source = createFileSecretSource(dir);
    expect(await source.values('rotating')).toEqual(['new-value', 'old-value']);
    await expect(source.values('../etc/passwd')).rejects.toThrow(/bad secret id/);
    await expect(source.values('missing')).rejects.toThrow();
  });
});
