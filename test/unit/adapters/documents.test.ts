/**
 * The document store of a function that may not list its bucket (the mcp function's role reads only
 * `v1/` and `exports/`): S3 answers a missing key with 403 there, which is a missing document, not
 * an outage. A function that may list keeps 403 an error. The 403 is injected (a fault).
 */
import * as sdk from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { createDocumentStore } from '../../../functions/adapters/s3/documents.ts';
import type { LazyS3 } from '../../../functions/adapters/s3/sdk.ts';

const denied = () =>
  new sdk.S3ServiceException({
    name: 'AccessDenied',
    $fault: 'client',
    $metadata: { httpStatusCode: 403 },
    message: 'Access Denied',
  });

const denying: LazyS3 = {
  use: async () =>
    ({
      sdk,
      client: {
        send: async () => {
          throw denied();
        },
      },
    }) as unknown as Awaited<ReturnType<LazyS3['use']>>,
  destroy: () => {},
};

describe('document store', () => {
  it('keeps a 403 an error: its functions may list the bucket, so a missing key is a 404', async () => {
    const store = createDocumentStore(denying, 'data');
    await expect(store.get('v1/ports/all.json')).rejects.toThrow(/Access Denied/);
  });
});
