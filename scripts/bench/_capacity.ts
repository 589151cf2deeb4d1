/**
 * DynamoDB capacity units a benchmark consumes: every request through the client asks for
 * `ReturnConsumedCapacity: TOTAL` and the units come back per command (dynalite computes them as
 * DynamoDB does: reads per 4 KB, halved when eventually consistent; writes per 1 KB).
 */
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
