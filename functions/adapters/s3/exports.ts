import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ExportStore } from '../../core/stores.ts';

/**
 * Exports in the data bucket, handed out as presigned GET URLs (a lifecycle rule expires them).
 * The presigner is imported on the first large export, not when the mcp function loads.
 */
export function createExportStore(s3: S3Client, bucket: string): ExportStore {
  return {
    async publish(key, body, contentType, ttlSeconds) {
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          CacheControl: 'private, no-store',
        }),
      );
      const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
      return getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: ttlSeconds });
    },
  };
}
