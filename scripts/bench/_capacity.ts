/**
 * DynamoDB capacity units a benchmark consumes: every request through the client asks for
 * `ReturnConsumedCapacity: TOTAL` and the units come back per command (dynalite computes them as
 * DynamoDB does: reads per 4 KB, halved when eventually consistent; writes per 1 KB).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const READS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand']);

export interface CapacityMeter {
  read: number;
  write: number;
  /** Units per table. */
  tables: Map<string, { read: number; write: number }>;
  reset(): void;
}

export function meterCapacity(doc: DynamoDBDocumentClient): CapacityMeter {
  const meter: CapacityMeter = {
    read: 0,
    write: 0,
    tables: new Map(),
    reset() {
      meter.read = 0;
      meter.write = 0;
      meter.tables.clear();
    },
  };
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const isRead = READS.has(String(context.commandName));
      for (const c of [consumed].flat() as ({ CapacityUnits?: number; TableName?: string } | undefined)[]) {
        const units = Number(c?.CapacityUnits ?? 0);
        const table = meter.tables.get(String(c?.TableName)) ?? { read: 0, write: 0 };
        if (isRead) {
          meter.read += units;
          table.read += units;
        } else {
          meter.write += units;
          table.write += units;
        }
        meter.tables.set(String(c?.TableName), table);
      }
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return meter;
}

/** Write requests a cycle makes: DynamoDB write calls (a batch of 25 puts is one) and S3 PUTs. */
export interface WriteCounter {
  dynamoRequests: number;
  /** Items DynamoDB writes (each put, update or delete of a batch counts). */
  dynamoItems: number;
  s3Puts: number;
  reset(): void;
}

const batchItems = (input: Record<string, unknown>) =>
  Object.values((input.RequestItems ?? {}) as Record<string, unknown[]>).reduce(
    (sum, requests) => sum + requests.length,
    0,
  );
const ITEM_COUNTS: Record<string, (input: Record<string, unknown>) => number> = {
  BatchWriteItemCommand: batchItems,
  BatchWriteCommand: batchItems,
};

export function countWrites(doc: DynamoDBDocumentClient, s3: S3Client): WriteCounter {
  const counter: WriteCounter = {
    dynamoRequests: 0,
    dynamoItems: 0,
    s3Puts: 0,
    reset() {
      counter.dynamoRequests = 0;
      counter.dynamoItems = 0;
      counter.s3Puts = 0;
    },
  };
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName);
      if (!READS.has(name)) {
        counter.dynamoRequests += 1;
        counter.dynamoItems += ITEM_COUNTS[name]?.(args.input as Record<string, unknown>) ?? 1;
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchWriteCount' },
  );
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutObjectCommand') counter.s3Puts += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchPutCount' },
  );
  return counter;
}
