import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../core/concurrency.ts';
import {
  averagesFromContributions,
  type Histogram,
  mergeHistograms,
  type RollupContribution,
  type RollupStore,
  settledBefore,
} from '../../core/history/rollups.ts';
import type { Direction, Lane, Mode } from '../../core/model.ts';
import { batchPut } from './batch.ts';
import { isConditionFailure } from './client.ts';
import { queryAll } from './paging.ts';

const DATE_PREFIX = 'd';

/** A date's (or the settled total's) stored `{ s, n, h }`. */
function dateOf(value: { s?: unknown; n?: unknown; h?: unknown }) {
  return {
    sum: Number(value.s),
    count: Number(value.n),
    histogram: (value.h ?? {}) as Histogram,
  };
}

interface Fold {
  sk: string;
  dates: string[];
  version: number;
  settled: { s: number; n: number; h: Histogram };
}

const bucketSk = (c: Pick<RollupContribution, 'direction' | 'mode' | 'lane' | 'dayOfWeek' | 'hour'>) =>
  `${c.direction}#${c.mode}#${c.lane}#${c.dayOfWeek}#${String(c.hour).padStart(2, '0')}`;

/**
 * Bulk load into an EMPTY rollup table (a backfill, a benchmark's history): one put per bucket
 * carrying all its dates, instead of one update per date. It replaces whole buckets, so it must
 * not run beside the ingest.
 */
export async function loadLegacyRollups(
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
    item[`${DATE_PREFIX}${c.localDate}`] = { s: c.sum, n: c.count, h: c.histogram };
    items.set(key, item);
  }
  await batchPut(doc, table, [...items.values()]);
}

/**
 * The layout before the hour-of-week items (kept for `npm run migrate`, which reads it, and for the
 * benchmark, which compares the two). Rollups: pk = port id, sk = `direction#mode#lane#dayOfWeek#hour`; one attribute per port-local
 * date (`d2026-03-08` = { s: sum, n: count }) set absolutely, so rewrites are idempotent. No TTL:
 * the averages outlive the 14-day raw window.
 *
 * Each date also keeps a histogram of its delays (`h`: minutes -> count), so medians are exact.
 *
 * Settling keeps items small: when the averages are read, dates older than `settledBefore(now)`
 * are folded into `settled` ({ s, n, h }) by one conditional update per item (set the new total and
 * its version, `REMOVE` the dates, only if they all still exist and the version is the one read).
 * A single-item update is atomic, so each date is folded exactly once, even by concurrent or
 * repeated readers, without transactions.
 */
export function createLegacyRollupStore(
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
          ':value': { s: c.sum, n: c.count, h: c.histogram },
          ':direction': c.direction,
          ':mode': c.mode,
          ':lane': c.lane,
          ':dow': c.dayOfWeek,
          ':hour': c.hour,
        },
      }),
    );
  /**
   * Folds old dates into the bucket's settled total: one conditional update that applies only if
   * the dates still exist and the settled total is still the one read (its version), so each date
   * is counted exactly once however many readers race; a reader that loses leaves it to the next.
   */
  const settle = async (portId: string, fold: Fold) => {
    const names = Object.fromEntries(fold.dates.map((date, i) => [`#d${i}`, date]));
    try {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: portId, sk: fold.sk },
          UpdateExpression: `SET settled = :settled, settledVersion = :next REMOVE ${Object.keys(names).join(', ')}`,
          ConditionExpression: [
            ...Object.keys(names).map((name) => `attribute_exists(${name})`),
            fold.version === 0 ? 'attribute_not_exists(settledVersion)' : 'settledVersion = :version',
          ].join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ':settled': fold.settled,
            ':next': fold.version + 1,
            ...(fold.version === 0 ? {} : { ':version': fold.version }),
          },
        }),
      );
    } catch (error: unknown) {
      // Another reader folded first: the next read folds whatever is left.
      if (!isConditionFailure(error)) throw error;
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
      const folds: Fold[] = [];
      const items = await queryAll(doc, {
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': portId },
      });
      for (const item of items) {
        const entries = Object.entries(item).filter(
          ([name]) => name.startsWith(DATE_PREFIX) && name.length === 11,
        );
        const dates = entries.map(([, value]) => dateOf(value));
        const settled = item.settled === undefined ? null : dateOf(item.settled);
        if (settled) dates.push(settled);
        const old = entries.filter(([name]) => name < cutoff);
        if (old.length > 0) {
          const parts = [...(settled ? [settled] : []), ...old.map(([, value]) => dateOf(value))];
          folds.push({
            sk: String(item.sk),
            dates: old.map(([name]) => name),
            version: Number(item.settledVersion ?? 0),
            settled: {
              s: parts.reduce((total, part) => total + part.sum, 0),
              n: parts.reduce((total, part) => total + part.count, 0),
              h: mergeHistograms(parts.map((part) => part.histogram)),
            },
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
      await mapLimit(folds, 8, (fold) => settle(portId, fold));
      return averagesFromContributions(portId, buckets);
    },
  };
}
