import type { PublishedDocument } from '../../core/model.ts';
import type { DocumentStore } from '../../core/stores.ts';
import type { LazyS3, S3Sdk } from './sdk.ts';

const HASH_METADATA = 'content-hash';

function isMissing(sdk: S3Sdk, error: unknown, unlisted: boolean): boolean {
  if (!(error instanceof sdk.S3ServiceException)) return false;
  const status = error.$metadata.httpStatusCode;
  if (error.name === 'NoSuchKey' || error.name === 'NotFound' || status === 404) return true;
  // Without s3:ListBucket, S3 answers a missing key with 403 rather than 404.
  return unlisted && (error.name === 'AccessDenied' || status === 403);
}

/**
 * Published documents in a bucket. A put whose content hash equals the stored one is skipped, so
 * unchanged documents keep their ETag and Last-Modified (and CDN caches stay warm). `unlisted`: the
 * function may not list the bucket (the mcp function), so a 403 on a read means a missing key.
 */
export function createDocumentStore(
  s3: LazyS3,
  bucket: string,
  options: { unlisted?: boolean } = {},
): DocumentStore {
  const unlisted = options.unlisted ?? false;
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
      if (!isMissing(sdk, error, unlisted)) throw error;
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
        if (isMissing(sdk, error, unlisted)) return undefined;
        throw error;
      }
    },
    async exists(key) {
      return (await storedHash(key)) !== null;
    },
  };
}
