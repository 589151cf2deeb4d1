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
  getObject(bucket: string, key: string, options?: unknown): Promise<unknown>;
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}

/**
 * S3 replaces an object atomically: a reader sees the old body or the new one, with its own
 * length and ETag. s3rver truncates the file and streams into it, so a read during a write (the
 * site polling while the ingest publishes) could get half a JSON document; and it reads an
 * object's length and ETag from other files than its body, so a read between a write's files got
 * the new body cut to the old length. Objects are written beside their path and renamed into place
 * (the temporary name lacks s3rver's suffix, so listings never show it), and each key's writes and
 * reads take turns: a read takes the length, the ETag and an open file of the body together, then
 * streams the body it opened while a later write renames another into place.
 */
function replaceObjectsAtomically(store: FilesystemStore): void {
  const write = async (object: StoredObject) => {
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
  const read = store.getObject.bind(store);
  const inTurn = turns();
  store.putObject = (object) => inTurn(`${object.bucket}/${object.key}`, () => write(object));
  store.getObject = (bucket, key, options) => inTurn(`${bucket}/${key}`, () => read(bucket, key, options));
}

/** Runs each key's work one at a time, in the order asked (work on other keys runs alongside). */
function turns(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return async (key, work) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
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
  replaceObjectsAtomically((server as unknown as { store: FilesystemStore }).store);
  const address = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    close: () => server.close(),
  };
}
