/**
 * dynalite never expires TTL items (real DynamoDB deletes them lazily, within days), so the local
 * runtime sweeps tables with a TTL attribute itself. Queries filter on TTL anyway.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chunks } from '../../functions/adapters/dynamo/client.ts';
import { scanPages } from '../../functions/adapters/dynamo/paging.ts';
import { TABLES, type TableSpec } from '../manifest.ts';

export async function sweepExpired(doc: DynamoDBDocumentClient, nowMs: number): Promise<number> {
  let deleted = 0;
  for (const table of Object.values(TABLES) as TableSpec[]) {
    if (!table.ttlAttribute) continue;
    const keyNames = [table.partitionKey, ...(table.sortKey ? [table.sortKey] : [])];
    const expired = scanPages(doc, {
      TableName: table.name,
      FilterExpression: '#ttl <= :now',
      ExpressionAttributeNames: { '#ttl': table.ttlAttribute },
      ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
    });
    for await (const items of expired) {
      const keys = items.map((item) => Object.fromEntries(keyNames.map((name) => [name, item[name]])));
      for (const chunk of chunks(keys, 25)) {
        await doc.send(
          new BatchWriteCommand({
            RequestItems: { [table.name]: chunk.map((Key) => ({ DeleteRequest: { Key } })) },
          }),
        );
        deleted += chunk.length;
      }
    }
  }
  return deleted;
}
