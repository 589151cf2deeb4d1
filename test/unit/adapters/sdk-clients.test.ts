/**
 * The DynamoDB and S3 clients go without the SDK's logger middleware (see sdk-logging.ts), and
 * keep the rest of their stack: their requests are still retried and signed.
 */
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../functions/adapters/dynamo/client.ts';
import { createLazyS3 } from '../../../functions/adapters/s3/sdk.ts';
import { SDK_LOGGER_MIDDLEWARE } from '../../../functions/adapters/sdk-logging.ts';

const names = (stack: { identify(): string[] }) => stack.identify().map((entry) => entry.split(' ')[0]);

describe('SDK clients', () => {
  it.each([
    ['DynamoDB', async () => createDocumentClient({ endpoint: 'http://127.0.0.1:1' }).middlewareStack],
    [
      'S3',
      async () => {
        const s3 = createLazyS3({ endpoint: 'http://127.0.0.1:1' });
        const { client } = await s3.use();
        s3.destroy();
        return client.middlewareStack;
      },
    ],
  ])('%s: no logger middleware, retries and signing kept', async (_name, stackOf) => {
    const stack = names(await stackOf());
    expect(stack).not.toContain(SDK_LOGGER_MIDDLEWARE);
    expect(stack).toContain('retryMiddleware');
    expect(stack).toContain('httpSigningMiddleware');
  });
});
