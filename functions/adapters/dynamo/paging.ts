import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';

/** An item as the DocumentClient returns it (attribute values are native JavaScript values). */
type Item = NonNullable<QueryCommandOutput['Items']>[number];

/** Pages one after the other: DynamoDB answers at most 1 MB and a `LastEvaluatedKey` to go on from. */
async function* pages(
  send: (start: Item | undefined) => Promise<{ Items?: Item[]; LastEvaluatedKey?: Item }>,
): AsyncGenerator<Item[]> {
  let start: Item | undefined;
  do {
    const page = await send(start);
    yield page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}

/**
 * The items of a Query, page by page (stop early by leaving the loop); `limit`, when given, is asked
 * before each request for its `Limit` (a reader that sizes each request to what it still needs).
 */
export function queryPages(
  doc: DynamoDBDocumentClient,
  input: QueryCommandInput,
  limit?: () => number | undefined,
): AsyncGenerator<Item[]> {
  return pages((start) =>
    doc.send(new QueryCommand({ ...input, ...(limit ? { Limit: limit() } : {}), ExclusiveStartKey: start })),
  );
}

/** The items of a Scan, page by page. */
export function scanPages(doc: DynamoDBDocumentClient, input: ScanCommandInput): AsyncGenerator<Item[]> {
  return pages((start) => doc.send(new ScanCommand({ ...input, ExclusiveStartKey: start })));
}

/** Every item of a Query. */
export async function queryAll(doc: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(doc, input)) items.push(...page);
  return items;
}

/** Every item of a Scan. */
export async function scanAll(doc: DynamoDBDocumentClient, input: ScanCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of scanPages(doc, input)) items.push(...page);
  return items;
}
