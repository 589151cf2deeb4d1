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
  reset(): void;
}

export function meterCapacity(doc: DynamoDBDocumentClient): CapacityMeter {
  const meter: CapacityMeter = {
    read: 0,
    write: 0,
    reset() {
      meter.read = 0;
      meter.write = 0;
    },
  };
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = [consumed]
        .flat()
        .reduce(
          (sum: number, c) => sum + Number((c as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0),
          0,
        );
      if (READS.has(String(context.commandName))) meter.read += units;
      else meter.write += units;
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return meter;
}
