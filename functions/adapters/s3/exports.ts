import type { ExportStore } from '../../core/stores.ts';
import type { LazyS3 } from './sdk.ts';

/**
 * Exports in the data bucket, handed out as presigned GET URLs (a lifecycle rule expires them).
 * The presigner is imported on the first large export, not when the mcp function loads.
 */
export function createExportStore(s3: LazyS3, bucket: string): ExportStore {
  return {
    async publish(key, body, contentType, ttlSeconds) {
      const { sdk, client } = await s3.use();
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          CacheControl: 'private, no-store',
        }),
      );
      const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
      return getSignedUrl(client, new sdk.GetObjectCommand({ Bucket: bucket, Key: key }), {
        expiresIn: ttlSeconds,
      });
    },
  };
}
