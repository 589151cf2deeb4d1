import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConcurrentUpdateError } from '../../core/errors.ts';
import type { FeedHealth, Source } from '../../core/model.ts';
import type { HealthStore } from '../../core/stores.ts';
import { isConditionFailure } from './client.ts';

/**
 * Feed health: one item per source, pk = source. Each write carries the version it was read at
 * and bumps it; a write over a version someone else wrote meanwhile is refused, so two overlapping
 * cycles can never silently drop each other's pending events and publishes.
 */
export function createHealthStore(doc: DynamoDBDocumentClient, table: string): HealthStore {
  return {
    async get(source: Source) {
      const result = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: source }, ConsistentRead: true }),
      );
      if (!result.Item) return undefined;
      const { pk: _pk, ...health } = result.Item;
      return {
        pendingPublish: [],
        pendingEvents: [],
        rejectSample: [],
        version: 0,
        ...health,
      } as unknown as FeedHealth;
    },
    async put(health) {
      const read = health.version ?? 0;
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { pk: health.source, ...health, version: read + 1 },
            // Version 0: no item yet, or one written before versions existed.
            ConditionExpression:
              read === 0 ? 'attribute_not_exists(pk) OR attribute_not_exists(version)' : 'version = :read',
            ...(read === 0 ? {} : { ExpressionAttributeValues: { ':read': read } }),
          }),
        );
      } catch (error: unknown) {
        if (isConditionFailure(error)) {
          throw new ConcurrentUpdateError(
            `feed health of ${health.source} changed since version ${read}: another ingest cycle wrote it`,
          );
        }
        throw error;
      }
      return read + 1;
    },
  };
}
