/**
 * s3rver with its files under DATA_DIR/s3, one bucket per manifest entry.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import S3rver from 's3rver';
import { BUCKETS } from '../manifest.ts';

export interface LocalS3 {
  endpoint: string;
  close(): Promise<void>;
}

interface StoredObject {
  bucket: string;
  key: string;
  metadata: Record<string, string>;
  content: Buffer | Readable;
}

interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}

/**
 * S3 replaces an object atomically: a reader sees the old body or the new one. s3rver truncates
 * the file and streams into it, so a read during a write (the site polling while the ingest
 * publishes) could get half a JSON document. Objects are written beside their path and renamed
 * into place instead (the temporary name lacks s3rver's suffix, so listings never show it).
 */
function writeObjectsAtomically(store: FilesystemStore): void {
  store.putObject = async (object) => {
    const path = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(path), { recursive: true });
    let content: Buffer;
    if (Buffer.isBuffer(object.content)) content = object.content;
    else {
      const chunks: Buffer[] = [];
      for await (const chunk of object.content) chunks.push(Buffer.from(chunk as Uint8Array));
      content = Buffer.concat(chunks);
    }
    const temporary = `${path}.${randomUUID()}.partial`;
    await writeFile(temporary, content);
    await rename(temporary, path);
    const md5 = createHash('md5').update(content).digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, md5);
    return { size: content.length, md5 };
  };
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
  writeObjectsAtomically((server as unknown as { store: FilesystemStore }).store);
  const address = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    close: () => server.close(),
  };
}
