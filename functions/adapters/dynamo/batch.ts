import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../core/concurrency.ts';
import { chunks } from './client.ts';

/** Attempts of one BatchWrite or BatchGet before its unprocessed part is an error. */
const ATTEMPTS = 9;
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 25));

/** Puts items 25 at a time, retrying unprocessed items with backoff. */
export async function batchPut(
  doc: DynamoDBDocumentClient,
  table: string,
  items: readonly Record<string, unknown>[],
): Promise<void> {
  // Eight requests in flight (a new hour rewrites most of `latest`: about 17 of them): the items'
  // keys are distinct (as one BatchWriteItem requires of its own), so the order of the requests
  // does not matter.
  await mapLimit(chunks(items, 25), 8, async (chunk) => {
    let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt += 1) {
      if (attempt >= ATTEMPTS)
        throw new Error(`BatchWrite to ${table}: items still unprocessed after ${attempt} attempts`);
      if (attempt > 0) await backoff(attempt);
      const result = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (result.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  });
}

/**
 * Gets items by key, 100 keys a request (BatchGetItem's most), asking again for unprocessed keys
 * with backoff. Missing items are left out; the order is not the keys' order.
 */
export async function batchGet(
  doc: DynamoDBDocumentClient,
  table: string,
  keys: readonly Record<string, unknown>[],
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const chunk of chunks(keys, 100)) {
    let pending: Record<string, unknown>[] = chunk;
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt >= ATTEMPTS)
        throw new Error(`BatchGet from ${table}: keys still unprocessed after ${attempt} attempts`);
      if (attempt > 0) await backoff(attempt);
      const result = await doc.send(
        new BatchGetCommand({
          RequestItems: { [table]: { Keys: pending, ConsistentRead: options.consistent ?? false } },
        }),
      );
      out.push(...(result.Responses?.[table] ?? []));
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return out;
}
