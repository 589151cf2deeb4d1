import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  type ScanCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../core/concurrency.ts';
import { mergeHistograms } from '../../core/history/rollups.ts';
import type { Observation } from '../../core/model.ts';
import { chunks, isConditionFailure } from './client.ts';
import { createObservationStore } from './observations.ts';
import { scanPages } from './paging.ts';
import { createRollupStore, weekSk } from './rollups.ts';

export interface MigrationTables {
  observations: string;
  rollups: string;
}

export interface MigrationResult {
  observations: number;
  rollupItems: number;
  ports: number;
}

interface Part {
  s: number;
  n: number;
  h: Record<string, number>;
}

/** Deletes items by key, 25 at a time, retrying unprocessed ones. */
async function deleteKeys(
  doc: DynamoDBDocumentClient,
  table: string,
  keys: readonly { pk: unknown; sk: unknown }[],
): Promise<void> {
  for (const chunk of chunks(keys, 25)) {
    let requests = chunk.map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 8) throw new Error(`BatchWrite delete on ${table}: items still unprocessed`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 25));
      const result = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (result.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
}

/** Pages of the items a filter keeps (old-layout items only). */
async function* scan(
  doc: DynamoDBDocumentClient,
  table: string,
  filter: Pick<
    ScanCommandInput,
    'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
  >,
) {
  for await (const items of scanPages(doc, { TableName: table, ...filter, Limit: 500 })) {
    if (items.length > 0) yield items;
  }
}

/**
 * Moves one legacy rollup item (one lane of one hour of week: a part per date and a settled total)
 * into its hour-of-week item, exactly once: the lane is marked in `mg` by the same conditional
 * update, so a rerun after a crash (before the legacy item's deletion) writes nothing twice. Dates
 * the new item already holds (or has settled) keep the new item's value.
 */
async function moveRollupItem(
  doc: DynamoDBDocumentClient,
  table: string,
  item: Record<string, unknown>,
): Promise<void> {
  const portId = String(item.pk);
  const lane = `${item.direction}#${item.mode}#${item.lane}`;
  const sk = weekSk(Number(item.dayOfWeek), Number(item.hour));
  const dates = Object.entries(item).filter(([name]) => /^d\d{4}-\d{2}-\d{2}$/.test(name)) as [
    string,
    Part,
  ][];
  const settled = item.settled as Part | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    const current = (
      await doc.send(new GetCommand({ TableName: table, Key: { pk: portId, sk }, ConsistentRead: true }))
    ).Item;
    if ((current?.mg as Record<string, unknown> | undefined)?.[lane]) return;
    const parts = (current?.p ?? {}) as Record<string, Part>;
    const folded = typeof current?.ft === 'string' ? current.ft : '';
    const moved = dates.filter(([name]) => !(`${lane}|${name.slice(1)}` in parts) && name.slice(1) > folded);
    const totals = [current?.t && (current.t as Record<string, Part>)[lane], settled].filter(
      (part): part is Part => part !== undefined,
    );
    const total =
      totals.length === 0
        ? undefined
        : {
            s: totals.reduce((sum, part) => sum + Number(part.s), 0),
            n: totals.reduce((sum, part) => sum + Number(part.n), 0),
            h: mergeHistograms(totals.map((part) => part.h ?? {})),
          };
    try {
      if (!current) {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: portId, sk },
            UpdateExpression: 'SET #p = :p, #t = :t, #mg = :mg, #r = :one',
            ConditionExpression: 'attribute_not_exists(pk)',
            ExpressionAttributeNames: { '#p': 'p', '#t': 't', '#mg': 'mg', '#r': 'r' },
            ExpressionAttributeValues: {
              ':p': Object.fromEntries(moved.map(([name, part]) => [`${lane}|${name.slice(1)}`, part])),
              ':t': total ? { [lane]: total } : {},
              ':mg': { [lane]: true },
              ':one': 1,
            },
          }),
        );
        return;
      }
      const names: Record<string, string> = { '#mg': 'mg', '#lane': lane, '#r': 'r', '#v': 'v' };
      const values: Record<string, unknown> = { ':one': 1, ':true': true };
      const sets = moved.map(([name, part], i) => {
        names['#p'] = 'p';
        names[`#k${i}`] = `${lane}|${name.slice(1)}`;
        values[`:v${i}`] = part;
        return `#p.#k${i} = :v${i}`;
      });
      if (total) {
        names['#t'] = 't';
        sets.push('#t.#lane = :total');
        values[':total'] = total;
      }
      // The maps exist on every hour-of-week item but `mg`, which only a migration adds.
      if (current.mg === undefined) {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: portId, sk },
            UpdateExpression: 'SET #mg = if_not_exists(#mg, :empty)',
            ExpressionAttributeNames: { '#mg': 'mg' },
            ExpressionAttributeValues: { ':empty': {} },
          }),
        );
      }
      const version = Number(current.v ?? 0);
      if (version > 0) values[':version'] = version;
      values[':next'] = version + 1;
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: portId, sk },
          UpdateExpression: `SET ${[...sets, '#mg.#lane = :true', '#v = :next'].join(', ')} ADD #r :one`,
          ConditionExpression: `attribute_not_exists(#mg.#lane) AND ${version === 0 ? 'attribute_not_exists(#v)' : '#v = :version'}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return;
    } catch (error: unknown) {
      // Someone else changed the item meanwhile: read it again.
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error(`rollup ${portId} ${sk} ${lane}: still conflicting after 10 attempts`);
}

/**
 * Moves the history of the layout before the packed one (one item per observation, one rollup item
 * per lane and hour of week) into the packed layout, in the same tables. Idempotent and resumable:
 * each legacy item is deleted only after its content is written, the observation writes are
 * idempotent map entries, and each legacy rollup item is moved exactly once (`mg` marks it); a
 * rerun after a crash at any point finishes the job and loses nothing. Summaries of every port
 * whose rollups moved are rebuilt at the end. Run it with the ingest stopped.
 */
export async function migrateHistory(
  doc: DynamoDBDocumentClient,
  tables: MigrationTables,
  now: () => number,
  log: (line: string) => void = () => {},
): Promise<MigrationResult> {
  const observations = createObservationStore(doc, tables.observations, now);
  const result: MigrationResult = { observations: 0, rollupItems: 0, ports: 0 };

  for await (const items of scan(doc, tables.observations, {
    FilterExpression: 'NOT begins_with(sk, :h)',
    ExpressionAttributeValues: { ':h': 'h#' },
  })) {
    await observations.putMany(
      items.map(({ pk: _pk, sk: _sk, ttl: _ttl, ...o }) => o as unknown as Observation),
    );
    await deleteKeys(
      doc,
      tables.observations,
      items.map((item) => ({ pk: item.pk, sk: item.sk })),
    );
    result.observations += items.length;
    log(`observations moved: ${result.observations}`);
  }

  const ports = new Set<string>();
  for await (const items of scan(doc, tables.rollups, {
    FilterExpression: 'NOT begins_with(sk, :w) AND NOT begins_with(sk, :avg)',
    ExpressionAttributeValues: { ':w': 'w#', ':avg': 'avg#' },
  })) {
    await mapLimit(items, 8, (item) => moveRollupItem(doc, tables.rollups, item));
    await deleteKeys(
      doc,
      tables.rollups,
      items.map((item) => ({ pk: item.pk, sk: item.sk })),
    );
    for (const item of items) ports.add(String(item.pk));
    result.rollupItems += items.length;
    log(`rollup items moved: ${result.rollupItems}`);
  }

  // Summaries come last, from the moved items; every run rebuilds them (idempotent: an entry is
  // only replaced by one computed from a newer revision), so a crash among them is finished too.
  const rollups = createRollupStore(doc, tables.rollups, now);
  for await (const items of scan(doc, tables.rollups, {
    FilterExpression: 'attribute_exists(mg)',
  })) {
    for (const item of items) ports.add(String(item.pk));
  }
  await mapLimit([...ports], 4, (portId) => rollups.rebuildSummary(portId));
  result.ports = ports.size;
  if (ports.size > 0) log(`averages summaries rebuilt: ${ports.size} ports`);
  return result;
}
