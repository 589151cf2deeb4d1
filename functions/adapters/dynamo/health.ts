import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { FeedHealth, Source } from '../../core/model.ts';
import type { HealthStore } from '../../core/stores.ts';

/** Feed health: one item per source, pk = source. */
export function createHealthStore(doc: DynamoDBDocumentClient, table: string): HealthStore {
  return {
    async get(source: Source) {
      const result = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: source }, ConsistentRead: true }),
      );
      if (!result.Item) return undefined;
      const { pk: _pk, ...health } = result.Item;
      return { pendingPublish: [], pendingEvents: [], rejectSample: [], ...health } as unknown as FeedHealth;
    },
    async put(health) {
      await doc.send(new PutCommand({ TableName: table, Item: { pk: health.source, ...health } }));
    },
  };
}
