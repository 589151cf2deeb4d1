/**
 * API Gateway REQUEST authorizer (apiKeySourceType AUTHORIZER). A request without `x-api-key` is
 * public and is metered under the shared public usage key; a key is looked up by its sha256 hex
 * hash (keys are stored only as hashes) and, if live, metered under its own usage key (the hash,
 * registered as an API Gateway API key when the key is issued). Unknown or revoked: 401.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';

const client = new DynamoDBClient({});
const table = process.env.TABLE_KEYS ?? 'api-keys';
const publicUsageKey = process.env.PUBLIC_USAGE_KEY ?? 'public-usage-key-not-configured';

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function allow(event: APIGatewayRequestAuthorizerEvent, principal: string, usageKey: string) {
  // Caching is off (TTL 0), so the policy may cover the whole stage.
  const stageArn = event.methodArn.split('/').slice(0, 2).join('/');
  return {
    principalId: principal,
    usageIdentifierKey: usageKey,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${stageArn}/*` }],
    },
  } satisfies APIGatewayAuthorizerResult;
}

export async function handler(event: APIGatewayRequestAuthorizerEvent) {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-api-key');
  const key = header?.[1];
  if (!key) return allow(event, 'public', publicUsageKey);
  const hash = hashKey(key);
  const out = await client.send(
    new GetItemCommand({ TableName: table, Key: { pk: { S: `KEY#${hash}` }, sk: { S: 'KEY' } } }),
  );
  // Throwing 'Unauthorized' is API Gateway's contract for a 401 (gateway response UNAUTHORIZED).
  if (!out.Item || out.Item.revokedAt) throw new Error('Unauthorized');
  return allow(event, `key:${hash.slice(0, 12)}`, hash);
}
