import type { PublishedDocument } from '../../core/model.ts';
import type { DocumentStore } from '../../core/stores.ts';
import type { LazyS3, S3Sdk } from './sdk.ts';

const HASH_METADATA = 'content-hash';

function isMissing(sdk: S3Sdk, error: unknown): boolean {
  if (!(error instanceof sdk.S3ServiceException)) return false;
  const status = error.$metadata.httpStatusCode;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || status === 404;
}

/**
 * Published documents in a bucket. A put whose content hash equals the stored one is skipped, so
 * unchanged documents keep their ETag and Last-Modified (and CDN caches stay warm). Its functions
 * may list the bucket, so S3 answers a missing key with 404 (a 403 stays an error).
 */
export function createDocumentStore(s3: LazyS3, bucket: string): DocumentStore {
  const knownHashes = new Map<string, string | null>();

  async function storedHash(key: string): Promise<string | null> {
    if (knownHashes.has(key)) return knownHashes.get(key) ?? null;
    const { sdk, client } = await s3.use();
    try {
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
      const hash = head.Metadata?.[HASH_METADATA] ?? '';
      knownHashes.set(key, hash);
      return hash;
    } catch (error: unknown) {
      if (!isMissing(sdk, error)) throw error;
      knownHashes.set(key, null);
      return null;
    }
  }

  return {
    async put(key, body, meta) {
      if ((await storedHash(key)) === meta.contentHash) return false;
      const { sdk, client } = await s3.use();
      await client.send(
        new sdk.PutObjectCommand({
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
      const { sdk, client } = await s3.use();
      try {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
        return {
          body: (await object.Body?.transformToString('utf-8')) ?? '',
          etag: object.ETag ?? '',
          lastModified: (object.LastModified ?? new Date(0)).toUTCString(),
          contentType: object.ContentType ?? 'application/json',
          cacheControl: object.CacheControl ?? 'no-cache',
        };
      } catch (error: unknown) {
        if (isMissing(sdk, error)) return undefined;
        throw error;
      }
    },
    async exists(key) {
      return (await storedHash(key)) !== null;
    },
  };
}
