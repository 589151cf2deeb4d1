import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LimitStore } from '../../core/access/limits.ts';

/**
 * Fixed-window counters: `pk = <subject>#<windowStart>` (e.g. `KEY#key_abc#1763496600`,
 * `IP#203.0.113.9#1763496600`), `count`, `ttl`. One `UpdateItem ADD count :amount` with
 * `ReturnValues: UPDATED_NEW` per request: DynamoDB applies updates to an item one at a time, so
 * concurrent requests each get a distinct count and none can slip past the quota.
 */
export function createLimitStore(doc: DynamoDBDocumentClient, table: string): LimitStore {
  return {
    async hit(subject, windowStartSeconds, expiresAtSeconds, amount) {
      const out = await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `${subject}#${windowStartSeconds}` },
          UpdateExpression: 'ADD #count :amount SET #ttl = if_not_exists(#ttl, :ttl)',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':amount': amount, ':ttl': expiresAtSeconds },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.count ?? amount);
    },
  };
}
