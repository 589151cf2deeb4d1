/**
 * Copies the built status site (site/dist) into the site bucket of the S3 stand-in, as the stack's
 * BucketDeployments do in AWS, with the same headers (infra/site-files.ts). Without a build the edge
 * answers site paths with 404.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { s3ClientConfig } from '../../functions/adapters/s3/sdk.ts';
import { BUCKETS } from '../manifest.ts';
import { siteObjectHeaders } from '../site-files.ts';

const missing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Files under `dir`; a folder that vanishes meanwhile (a rebuild in progress) is skipped. */
async function* files(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    if (missing(error)) return [];
    throw error;
  });
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

export const SITE_DIST = new URL('../../site/dist/', import.meta.url).pathname;

export async function uploadSite(s3Endpoint: string, dist = SITE_DIST): Promise<number> {
  if (!(await stat(dist).catch(() => null))) return 0;
  const s3 = new S3Client(s3ClientConfig({ endpoint: s3Endpoint }));
  let count = 0;
  try {
    for await (const path of files(dist)) {
      const key = relative(dist, path).split('\\').join('/');
      const body = await readFile(path).catch((error: unknown) => {
        if (missing(error)) return null;
        throw error;
      });
      if (body === null) continue;
      const { contentType, cacheControl } = siteObjectHeaders(key);
      await s3.send(
        new PutObjectCommand({
          Bucket: BUCKETS.site.name,
          Key: key,
          Body: body,
          ContentType: contentType,
          CacheControl: cacheControl,
        }),
      );
      count += 1;
    }
  } finally {
    s3.destroy();
  }
  return count;
}
