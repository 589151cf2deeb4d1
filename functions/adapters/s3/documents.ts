import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { PublishedDocument } from '../../core/model.ts';
import type { DocumentStore } from '../../core/stores.ts';

const HASH_METADATA = 'content-hash';

/**
 * An S3 client. `endpoint` is a local stand-in's (config.ts reads it from `AWS_ENDPOINT_URL_S3`);
 * a local endpoint needs path-style addressing, and s3rver needs checksums only when required (it
 * stores aws-chunked stream bodies with their framing otherwise).
 */
export function createS3Client(options: { endpoint?: string | undefined; region?: string } = {}): S3Client {
  const local = Boolean(options.endpoint);
  return new S3Client({
    region: options.region ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(local
      ? {
          forcePathStyle: true,
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
  });
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
  );
}

/**
 * Published documents in a bucket. A put whose content hash equals the stored one is skipped, so
 * unchanged documents keep their ETag and Last-Modified (and CDN caches stay warm).
 */
export function createDocumentStore(s3: S3Client, bucket: string): DocumentStore {
  const knownHashes = new Map<string, string | null>();

  async function storedHash(key: string): Promise<string | null> {
    if (knownHashes.has(key)) return knownHashes.get(key) ?? null;
    try {
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      const hash = head.Metadata?.[HASH_METADATA] ?? '';
      knownHashes.set(key, hash);
      return hash;
    } catch (error: unknown) {
      if (!isMissing(error)) throw error;
      knownHashes.set(key, null);
      return null;
    }
  }

  return {
    async put(key, body, meta) {
      if ((await storedHash(key)) === meta.contentHash) return false;
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: meta.contentType,
          CacheControl: meta.cacheControl,
          Metadata: { [HASH_METADATA]: meta.contentHash },
        }),
      );
      knownHashes.set(key, meta.contentHash);
      return true;
    },
    async get(key): Promise<PublishedDocument | undefined> {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return {
          body: (await object.Body?.transformToString('utf-8')) ?? '',
          etag: object.ETag ?? '',
          lastModified: (object.LastModified ?? new Date(0)).toUTCString(),
          contentType: object.ContentType ?? 'application/json',
          cacheControl: object.CacheControl ?? 'no-cache',
        };
      } catch (error: unknown) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async exists(key) {
      return (await storedHash(key)) !== null;
    },
  };
}
