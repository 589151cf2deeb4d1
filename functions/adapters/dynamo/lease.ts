import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { INGEST_LEASE_MS } from '../../contract.ts';
import { asAnotherWriter, type LeaseStore } from '../../core/ingest/lease.ts';
import { isConditionFailure } from './client.ts';

/**
 * Leases as items of a small table keyed by `pk` (the feed-health table: `lease#<name>` never
 * collides with a source name). A conditional put takes a free or expired lease and returns the
 * item it replaced (its `writer` is the last process that held it); giving it back expires it in
 * place, only if one still holds it, so the item keeps its last writer.
 */
export function createLeaseStore(doc: DynamoDBDocumentClient, table: string): LeaseStore {
  const key = (name: string) => ({ pk: `lease#${name}` });
  return {
    async acquire(name, holder, writer, nowMs, expiresAtMs) {
      try {
        const result = await doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              ...key(name),
              holder,
              writer,
              expiresAtMs,
              expiresAt: new Date(expiresAtMs).toISOString(),
            },
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs < :now',
            ExpressionAttributeValues: { ':now': nowMs },
            ReturnValues: 'ALL_OLD',
          }),
        );
        const previous = result.Attributes?.writer;
        return { acquired: true, previousWriter: typeof previous === 'string' ? previous : null };
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
          new UpdateCommand({
            TableName: table,
            Key: key(name),
            UpdateExpression: 'SET expiresAtMs = :zero, expiresAt = :released',
            ConditionExpression: 'holder = :holder',
            ExpressionAttributeValues: { ':holder': holder, ':zero': 0, ':released': 'released' },
          }),
        );
      } catch (error: unknown) {
        // Expired and taken over meanwhile: the lease is no longer ours to give back.
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}

/**
 * Pieces of work of one writer other than the ingest (`kind`: `import`, `migrate`; one process),
 * each under the ingest's lease in `table` for at most `ttlMs`, waiting for a cycle in progress
 * up to the ingest's lease term.
 */
export function asAnotherWriterOf(
  doc: DynamoDBDocumentClient,
  table: string,
  kind: string,
  ttlMs: number,
): <T>(work: () => Promise<T>) => Promise<T> {
  return asAnotherWriter(createLeaseStore(doc, table), {
    writer: `${kind}/${randomUUID()}`,
    ttlMs,
    waitMs: INGEST_LEASE_MS + 5_000,
  });
}
