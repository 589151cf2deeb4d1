import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chunks } from './client.ts';

/** Puts items 25 at a time, retrying unprocessed items with backoff. */
export async function batchPut(
  doc: DynamoDBDocumentClient,
  table: string,
  items: readonly Record<string, unknown>[],
): Promise<void> {
  for (const chunk of chunks(items, 25)) {
    let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt += 1) {
      if (attempt > 8)
        throw new Error(`BatchWrite to ${table}: items still unprocessed after ${attempt} attempts`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 25));
      const result = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (result.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
}
