/**
 * The S3 stand-in alone, for a test file that needs no more of the runtime: started in a new
 * temporary folder before the file's tests, with a client on it, and stopped (its folder removed)
 * after them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createLazyS3, type LazyS3 } from '../../functions/adapters/s3/sdk.ts';
import { type LocalS3, startS3 } from '../../infra/local/s3.ts';

export function useLocalS3(name: string): { endpoint: () => string; client: () => LazyS3 } {
  let s3: LocalS3 | undefined;
  let dataDir: string | undefined;
  let client: LazyS3 | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `border-waits-${name}-`));
    s3 = await startS3(dataDir);
    client = createLazyS3({ endpoint: s3.endpoint });
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the S3 stand-in is started before the tests');
    return value;
  };
  return { endpoint: () => started(s3).endpoint, client: () => started(client) };
}
