import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../core/concurrency.ts';
import type { Direction, Lane, Mode } from '../../core/model.ts';
import { averagesFromContributions, type RollupContribution, type RollupStore } from '../../core/rollups.ts';
import { batchPut } from './batch.ts';

const DATE_PREFIX = 'd';

const bucketSk = (c: Pick<RollupContribution, 'direction' | 'mode' | 'lane' | 'dayOfWeek' | 'hour'>) =>
  `${c.direction}#${c.mode}#${c.lane}#${c.dayOfWeek}#${String(c.hour).padStart(2, '0')}`;

/**
 * Bulk load into an EMPTY rollup table (a backfill, a benchmark's history): one put per bucket
 * carrying all its dates, instead of one update per date. It replaces whole buckets, so it must
 * not run beside the ingest.
 */
export async function loadRollups(
  doc: DynamoDBDocumentClient,
  table: string,
  contributions: readonly RollupContribution[],
): Promise<void> {
  const items = new Map<string, Record<string, unknown>>();
  for (const c of contributions) {
    const key = `${c.portId}|${bucketSk(c)}`;
    const item = items.get(key) ?? {
      pk: c.portId,
      sk: bucketSk(c),
      direction: c.direction,
      mode: c.mode,
      lane: c.lane,
      dayOfWeek: c.dayOfWeek,
      hour: c.hour,
    };
    item[`${DATE_PREFIX}${c.localDate}`] = { s: c.sum, n: c.count };
    items.set(key, item);
  }
  await batchPut(doc, table, [...items.values()]);
}

/**
 * Rollups: pk = port id, sk = `direction#mode#lane#dayOfWeek#hour`; one attribute per port-local
 * date (`d2026-03-08` = { s: sum, n: count }) set absolutely, so rewrites are idempotent. No TTL:
 * the averages outlive the 14-day raw window.
 */
export function createRollupStore(doc: DynamoDBDocumentClient, table: string): RollupStore {
  const write = (c: RollupContribution) =>
    doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: c.portId, sk: bucketSk(c) },
        UpdateExpression:
          'SET #date = :value, direction = :direction, #mode = :mode, lane = :lane, dayOfWeek = :dow, #hour = :hour',
        ExpressionAttributeNames: {
          '#date': `${DATE_PREFIX}${c.localDate}`,
          '#mode': 'mode',
          '#hour': 'hour',
        },
        ExpressionAttributeValues: {
          ':value': { s: c.sum, n: c.count },
          ':direction': c.direction,
          ':mode': c.mode,
          ':lane': c.lane,
          ':dow': c.dayOfWeek,
          ':hour': c.hour,
        },
      }),
    );
  return {
    async putContributions(contributions) {
      // Independent absolute writes: a few in flight at once.
      await mapLimit(contributions, 8, write);
    },
    async averages(portId) {
      const buckets: Parameters<typeof averagesFromContributions>[1][number][] = [];
      let start: QueryCommandInput['ExclusiveStartKey'];
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': portId },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) {
          const dates = Object.entries(item)
            .filter(([name]) => name.startsWith(DATE_PREFIX) && name.length === 11)
            .map(([, value]) => ({ sum: Number(value.s), count: Number(value.n) }));
          buckets.push({
            direction: item.direction as Direction,
            mode: item.mode as Mode,
            lane: item.lane as Lane,
            dayOfWeek: Number(item.dayOfWeek),
            hour: Number(item.hour),
            dates,
          });
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return averagesFromContributions(portId, buckets);
    },
  };
}
