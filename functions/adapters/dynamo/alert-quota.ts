import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { COUNTER_PREFIXES } from '../../contract.ts';
import type { AlertQuota } from '../../core/alerts/alert-quota.ts';
import { isConditionFailure } from './client.ts';

/**
 * Alert counters in the counters table (`rate-limits`): `pk = ALERTS#<owner>`, `count`, no TTL.
 * A slot is one `UpdateItem ADD count :one` conditioned on `count < :max`: DynamoDB applies
 * updates to an item one at a time, so 50 concurrent creates at 24 of 25 take exactly one slot.
 */
export function createAlertQuota(doc: DynamoDBDocumentClient, table: string): AlertQuota {
  const key = (owner: string) => ({ pk: `${COUNTER_PREFIXES.mcp.alerts}${owner}` });
  return {
    async reserve(owner, max, existing) {
      const take = async () => {
        try {
          await doc.send(
            new UpdateCommand({
              TableName: table,
              Key: key(owner),
              UpdateExpression: 'ADD #count :one',
              ConditionExpression: 'attribute_exists(pk) AND #count < :max',
              ExpressionAttributeNames: { '#count': 'count' },
              ExpressionAttributeValues: { ':one': 1, ':max': max },
            }),
          );
          return true;
        } catch (error: unknown) {
          if (isConditionFailure(error)) return false;
          throw error;
        }
      };
      if (await take()) return true;
      const found = await doc.send(
        new GetCommand({ TableName: table, Key: key(owner), ConsistentRead: true }),
      );
      if (found.Item) return false;
      try {
        // No counter yet: seed it from the alerts already stored. Concurrent seeders write the
        // count of the same alerts, and only the first write lands.
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...key(owner), count: await existing() },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error: unknown) {
        if (!isConditionFailure(error)) throw error;
      }
      return take();
    },
    async release(owner) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: key(owner),
            UpdateExpression: 'ADD #count :minus',
            ConditionExpression: '#count > :zero',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
          }),
        );
      } catch (error: unknown) {
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}
