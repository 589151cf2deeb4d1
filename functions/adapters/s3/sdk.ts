/**
 * The S3 SDK module and client, loaded on first use. The mcp function answers the MCP handshake
 * (`initialize`, `tools/list`) without reading a document, so a cold start there does not load
 * the S3 client (about 20 ms). The api and forecast functions read or write documents on (almost)
 * every run and load it at init (`preloadS3`), where deferring it would only move the cost; the
 * ingest starts loading it when its first cycle starts, while it downloads the feeds.
 */
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';

import { withoutSdkLogging } from '../sdk-logging.ts';

export type S3Sdk = typeof import('@aws-sdk/client-s3');

const sdk = (): Promise<S3Sdk> => import('@aws-sdk/client-s3');

/** Loads the SDK module now, ahead of its first use. */
export async function preloadS3(): Promise<void> {
  await sdk();
}

export interface S3Options {
  /** A local stand-in's endpoint (config.ts reads it from `AWS_ENDPOINT_URL_S3`); unset in AWS. */
  endpoint?: string | undefined;
  region?: string;
}

/**
 * A client's settings. A local endpoint needs path-style addressing, and s3rver needs checksums
 * only when required (it stores aws-chunked stream bodies with their framing otherwise).
 */
export function s3ClientConfig(options: S3Options = {}): S3ClientConfig {
  const local = Boolean(options.endpoint);
  return {
    region: options.region ?? 'us-east-1',
    // The middleware stack resolved once per command class rather than once per request (nothing
    // adds middleware to a client after its first request): a cycle puts a hundred documents.
    cacheMiddleware: true,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(local
      ? {
          forcePathStyle: true,
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
  };
}

/** An S3 client made on first use, with the SDK module its commands come from. */
export interface LazyS3 {
  use(): Promise<{ sdk: S3Sdk; client: S3Client }>;
  destroy(): void;
}

export function createLazyS3(options: S3Options = {}): LazyS3 {
  let made: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;
  let client: S3Client | undefined;
  return {
    use: () =>
      (made ??= sdk().then((module) => {
        client = withoutSdkLogging(new module.S3Client(s3ClientConfig(options)));
        return { sdk: module, client };
      })),
    destroy: () => client?.destroy(),
  };
}
