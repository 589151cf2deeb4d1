import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../core/concurrency.ts';
import type { Direction, Lane, Mode } from '../../core/model.ts';
import {
  averagesFromContributions,
  type RollupContribution,
  type RollupStore,
  settledBefore,
} from '../../core/rollups.ts';
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
 *
 * Settling keeps items small: when the averages are read, dates older than `settledBefore(now)`
 * are folded into `settledSum`/`settledCount` by one conditional update per item (`ADD` the dates'
 * sums, `REMOVE` the dates, only if they all still exist). A single-item update is atomic, so each
 * date is folded exactly once, even by concurrent or repeated readers, without transactions.
 */
export function createRollupStore(
  doc: DynamoDBDocumentClient,
  table: string,
  now: () => number = Date.now,
): RollupStore {
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
  /** Folds settled dates into the bucket's total: exactly once, or not at all if already done. */
  const settle = async (
    portId: string,
    fold: { sk: string; dates: string[]; sum: number; count: number },
  ) => {
    const names = Object.fromEntries(fold.dates.map((date, i) => [`#d${i}`, date]));
    try {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: portId, sk: fold.sk },
          UpdateExpression: `ADD settledSum :sum, settledCount :count REMOVE ${Object.keys(names).join(', ')}`,
          ConditionExpression: Object.keys(names)
            .map((name) => `attribute_exists(${name})`)
            .join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':sum': fold.sum, ':count': fold.count },
        }),
      );
    } catch (error: unknown) {
      // Another reader folded them first: nothing left to do.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  };
  return {
    async putContributions(contributions) {
      // Independent absolute writes: a few in flight at once.
      await mapLimit(contributions, 8, write);
    },
    async averages(portId) {
      const buckets: Parameters<typeof averagesFromContributions>[1][number][] = [];
      const cutoff = `${DATE_PREFIX}${settledBefore(now())}`;
      const folds: { sk: string; dates: string[]; sum: number; count: number }[] = [];
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
          const entries = Object.entries(item).filter(
            ([name]) => name.startsWith(DATE_PREFIX) && name.length === 11,
          );
          const dates = entries.map(([, value]) => ({ sum: Number(value.s), count: Number(value.n) }));
          if (item.settledCount !== undefined) {
            dates.push({ sum: Number(item.settledSum), count: Number(item.settledCount) });
          }
          const old = entries.filter(([name]) => name < cutoff);
          if (old.length > 0) {
            folds.push({
              sk: String(item.sk),
              dates: old.map(([name]) => name),
              sum: old.reduce((total, [, value]) => total + Number(value.s), 0),
              count: old.reduce((total, [, value]) => total + Number(value.n), 0),
            });
          }
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
      await mapLimit(folds, 8, (fold) => settle(portId, fold));
      return averagesFromContributions(portId, buckets);
    },
  };
}
