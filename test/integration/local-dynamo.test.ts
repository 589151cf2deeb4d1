/**
 * The embedded DynamoDB (dynalite on LevelDB) closes every iterator it opens: after Queries that
 * read to the end, Queries cut by `Limit` or a page bound, Queries through an index of sort keys,
 * and Scans, the database holds no open resource, and every answer is still right. Before the fix
 * each of them left an iterator (and its LevelDB snapshot) open for the life of the process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createTable, startDynamoOwner } from '../../infra/local/dynamo.ts';

const TABLE = 'iterators';
const PARTITIONS = ['a', 'b', 'c'];
const PER_PARTITION = 60;

let dataDir: string;
let dynamo: Awaited<ReturnType<typeof startDynamoOwner>>;
let client: ReturnType<typeof createDocumentClient>;

/** Open resources once the database has finished closing what the last answer opened. */
async function settledOpenResources(): Promise<number> {
  for (let i = 0; i < 20 && dynamo.openResources() > 0; i += 1) await new Promise((r) => setTimeout(r, 10));
  return dynamo.openResources();
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'border-waits-dynalite-'));
  dynamo = await startDynamoOwner(dataDir);
  client = createDocumentClient({ endpoint: dynamo.endpoint, region: 'us-east-1' });
  await createTable(client, {
    TableName: TABLE,
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  });
  for (const pk of PARTITIONS) {
    const items = Array.from({ length: PER_PARTITION }, (_, i) => ({
      pk,
      sk: `s#${String(i).padStart(3, '0')}`,
      payload: 'x'.repeat(200),
    }));
    for (let i = 0; i < items.length; i += 25) {
      await client.send(
        new BatchWriteCommand({
          RequestItems: { [TABLE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    }
  }
});

afterAll(async () => {
  client?.destroy();
  await dynamo?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** How many items one Query of a partition returns, with these extra parameters. */
async function countOfPartition(
  pk: string,
  extra: { ScanIndexForward?: boolean; Limit?: number },
): Promise<number> {
  const answer = await client.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': pk },
      ...extra,
    }),
  );
  return answer.Items?.length ?? 0;
}

const READS: { name: string; times: number; read: () => Promise<number> }[] = [
  {
    name: 'a Query read to the end',
    times: 30,
    read: () => countOfPartition('b', {}),
  },
  {
    name: 'a Query cut by Limit (newest first)',
    times: 30,
    read: () => countOfPartition('a', { ScanIndexForward: false, Limit: 1 }),
  },
  {
    name: 'a Query on a sort-key range, paged by 7',
    times: 10,
    read: async () => {
      let count = 0;
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':p': 'c', ':from': 's#010', ':to': 's#039' },
            Limit: 7,
            ExclusiveStartKey,
          }),
        );
        count += page.Items?.length ?? 0;
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return count;
    },
  },
  {
    name: 'a Scan cut by Limit',
    times: 30,
    read: async () => (await client.send(new ScanCommand({ TableName: TABLE, Limit: 5 }))).Items?.length ?? 0,
  },
];
const EXPECTED: Record<string, number> = {
  'a Query read to the end': PER_PARTITION,
  'a Query cut by Limit (newest first)': 1,
  'a Query on a sort-key range, paged by 7': 30,
  'a Scan cut by Limit': 5,
};

describe('the embedded DynamoDB closes its iterators', () => {
  it.each(READS)(
    '$name, $times times: right answers, no resource left open',
    async ({ name, times, read }) => {
      for (let i = 0; i < times; i += 1) expect(await read()).toBe(EXPECTED[name]);
      expect(await settledOpenResources()).toBe(0);
    },
  );

  it('many reads at once leave none open either', async () => {
    const counts = await Promise.all(READS.flatMap(({ read }) => Array.from({ length: 10 }, read)));
    expect(counts.length).toBe(40);
    expect(await settledOpenResources()).toBe(0);
  });
});

describe('createTable', () => {
  const SLOW_TABLE = {
    TableName: 'slow',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }],
    BillingMode: 'PAY_PER_REQUEST' as const,
  };

  it('returns only once the table is ACTIVE, so the first write after it lands', async () => {
    // A dynalite that keeps a new table CREATING for 300 ms, as DynamoDB keeps it for seconds:
    // without the wait, the write below fails with ResourceNotFoundException every time.
    const slow = dynalite({ createTableMs: 300 });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', () => resolve()));
    const slowClient = createDocumentClient({
      endpoint: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
      region: 'us-east-1',
    });
    try {
      await createTable(slowClient, SLOW_TABLE);
      await slowClient.send(new PutCommand({ TableName: 'slow', Item: { pk: 'first' } }));
      const read = await slowClient.send(new GetCommand({ TableName: 'slow', Key: { pk: 'first' } }));
      expect(read.Item).toEqual({ pk: 'first' });
      // A second call finds the table there and returns without an error.
      await createTable(slowClient, SLOW_TABLE);
    } finally {
      slowClient.destroy();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});
