/**
 * The local stand-in for Secrets Manager: one file per secret under a directory (`<id>` holds the
 * current value, `<id>.previous` the one before a rotation). Read on every call, so a value
 * changed on disk applies at once. `ensureFileSecret` creates a random value the first time.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecretSource } from '../../core/secrets.ts';

const fileOf = (dir: string, id: string) => {
  // Ids are names chosen by the runtime, never paths.
  if (!/^[A-Za-z0-9._-]+$/.test(id) || id.startsWith('.')) throw new Error(`bad secret id ${id}`);
  return join(dir, id);
};

export function createFileSecretSource(dir: string): SecretSource {
  return {
    async values(id) {
      const file = fileOf(dir, id);
      const current = (await readFile(file, 'utf8')).trim();
      if (!current) throw new Error(`secret ${id} is empty`);
      const previous = (await readFile(`${file}.previous`, 'utf8').catch(() => '')).trim();
      return previous && previous !== current ? [current, previous] : [current];
    },
  };
}

/** The secret's current value, created (32 random bytes, base64url, mode 0600) when missing. */
export async function ensureFileSecret(dir: string, id: string): Promise<string> {
  const file = fileOf(dir, id);
  const existing = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (existing.length >= 32) return existing;
  await mkdir(dir, { recursive: true });
  const value = randomBytes(32).toString('base64url');
  await writeFile(file, value, { mode: 0o600 });
  return value;
}
