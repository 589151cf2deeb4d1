import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LeaseStore } from '../../core/ingest/lease.ts';
import { isConditionFailure } from './client.ts';

/**
 * Leases as items of a small table keyed by `pk` (the feed-health table: `lease#<name>` never
 * collides with a source name). A conditional put takes a free or expired lease; a conditional
 * delete gives back only one's own.
 */
export function createLeaseStore(doc: DynamoDBDocumentClient, table: string): LeaseStore {
  const key = (name: string) => ({ pk: `lease#${name}` });
  return {
    async acquire(name, holder, nowMs, expiresAtMs) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...key(name), holder, expiresAtMs, expiresAt: new Date(expiresAtMs).toISOString() },
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs < :now',
            ExpressionAttributeValues: { ':now': nowMs },
          }),
        );
        return { acquired: true };
      } catch (error: unknown) {
        if (!isConditionFailure(error)) throw error;
        const held = await doc.send(
          new GetCommand({ TableName: table, Key: key(name), ConsistentRead: true }),
        );
        return {
          acquired: false,
          holder: String(held.Item?.holder ?? 'unknown'),
          expiresAt: String(held.Item?.expiresAt ?? 'unknown'),
        };
      }
    },
    async release(name, holder) {
      try {
        await doc.send(
          new DeleteCommand({
            TableName: table,
            Key: key(name),
            ConditionExpression: 'holder = :holder',
            ExpressionAttributeValues: { ':holder': holder },
          }),
        );
      } catch (error: unknown) {
        // Expired and taken over meanwhile: the lease is no longer ours to give back.
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}
