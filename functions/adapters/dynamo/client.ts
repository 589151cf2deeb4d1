import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withoutSdkLogging } from '../sdk-logging.ts';

/**
 * A DocumentClient. The endpoint comes from `AWS_ENDPOINT_URL_DYNAMODB` when set (the SDK reads it),
 * or from `endpoint` for the local runtime, which may run several stores in one process.
 */
export function createDocumentClient(
  options: { endpoint?: string | undefined; region?: string } = {},
): DynamoDBDocumentClient {
  const client = withoutSdkLogging(
    new DynamoDBClient({
      ...(options.endpoint
        ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
      region: options.region ?? 'us-east-1',
      maxAttempts: 3,
    }),
  );
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * Whether a write was refused by its condition: by class, or by name when the error comes from
 * another copy of the SDK (bundles, tests) and `instanceof` cannot see it.
 */
export function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/** Splits `items` into chunks of `size` (BatchWriteItem takes at most 25). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
