/**
 * The local S3 stand-in replaces an object as S3 does: while one key is rewritten again and again
 * with bodies of different lengths, every read of it gets one whole body, with that body's length
 * and ETag (the edge serves what it reads, and the site and the tests parse it as JSON).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDocumentStore } from '../../functions/adapters/s3/documents.ts';
import { BUCKETS } from '../../infra/manifest.ts';
import { useLocalS3 } from './s3-support.ts';

const s3 = useLocalS3('local-s3');

/** A JSON document of about `bytes` bytes, different for each `n`. */
const documentOf = (n: number, bytes: number) => JSON.stringify({ n, pad: 'x'.repeat(bytes) });

describe('the local S3 stand-in', () => {
  it('gives every read of an object being rewritten one whole body, with its own length and ETag', async () => {
    const bucket = BUCKETS.data.name;
    const key = 'v1/port-forecast/race.json';
    const documents = createDocumentStore(s3.client(), bucket);
    const written = new Map<string, string>();
    const put = async (n: number) => {
      // Short and long bodies in turn: a read that mixed two writes would get a body cut to the other's length.
      const body = documentOf(n, n % 2 === 0 ? 200 : 60_000);
      const md5 = createHash('md5').update(body).digest('hex');
      written.set(body, `"${md5}"`);
      await documents.put(key, body, {
        contentHash: md5,
        contentType: 'application/json',
        cacheControl: 'no-cache',
      });
    };
    await put(0);
    let writing = true;
    const writer = (async () => {
      for (let n = 1; n <= 150; n++) await put(n);
      writing = false;
    })();
    const reads: { status: number; body: string; length: string | null; etag: string | null }[] = [];
    const reader = async () => {
      while (writing) {
        try {
          const response = await fetch(`${s3.endpoint()}/${bucket}/${key}`);
          reads.push({
            status: response.status,
            body: await response.text(),
            length: response.headers.get('content-length'),
            etag: response.headers.get('etag'),
          });
        } catch (error: unknown) {
          // A body that ends before its length (or runs past it) breaks the connection.
          reads.push({ status: 0, body: String((error as Error).cause ?? error), length: null, etag: null });
        }
      }
    };
    await Promise.all([writer, reader(), reader(), reader()]);

    const bad = reads.filter(
      (read) =>
        read.status !== 200 ||
        !written.has(read.body) ||
        read.length !== String(Buffer.byteLength(read.body)) ||
        read.etag !== written.get(read.body),
    );
    expect(
      bad.map(
        (read) =>
          `${read.status} ${read.body.slice(0, 60)} (${read.body.length} characters), length ${read.length}, etag ${read.etag}`,
      ),
    ).toEqual([]);
    // The reads met the writes: several reads per write.
    expect(reads.length).toBeGreaterThan(150);
  });
});
