/**
 * s3rver with its files under DATA_DIR/s3, one bucket per manifest entry.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import S3rver from 's3rver';
import { BUCKETS } from '../manifest.ts';

export interface LocalS3 {
  endpoint: string;
  close(): Promise<void>;
}

export async function startS3(dataDir: string): Promise<LocalS3> {
  const directory = join(dataDir, 's3');
  await mkdir(directory, { recursive: true });
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: Object.values(BUCKETS).map((bucket) => ({ name: bucket.name, configs: [] })),
  });
  const address = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    close: () => server.close(),
  };
}
