import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../core/concurrency.ts';
import {
  compareAverages,
  type DecayedTotal,
  foldDecayed,
  type Histogram,
  medianOf,
  mergeHistograms,
  type ProfileAverage,
  type RollupContribution,
  type RollupStore,
  recentCentresOf,
  type StoredParts,
  settledBefore,
} from '../../core/history/rollups.ts';
import type { SoleWriter } from '../../core/ingest/sole-writer.ts';
import type { Direction, Lane, Mode } from '../../core/model.ts';
import { batchGet, batchPut } from './batch.ts';
import { isConditionFailure } from './client.ts';
import { queryAll, queryPages } from './paging.ts';

/** A date's part or a lane's settled total: sum, count and the histogram of whole-minute delays. */
interface Part {
  s: number;
  n: number;
  h: Histogram;
}

/**
 * The summary of one hour-of-week bucket: the revision it was computed from, and per lane
 * `[sum, count, median, recent mean, recent median]` (the last two recency-weighted; summaries
 * written before them hold the first three).
 */
interface BucketSummary {
  r: number;
  l: Record<string, [number, number, number | null] | [number, number, number | null, number, number | null]>;
}

/** `avg#6`: the item holding the summaries of one port-local day of week (keyed by hour, `08`). */
export const summarySk = (dayOfWeek: number) => `avg#${dayOfWeek}`;
const SUMMARY_PREFIX = 'avg#';
/**
 * How long summaries this process read or wrote stand for the stored ones. A summary write to a
 * day held here returns only what it set and its write count `n` (`UPDATED_NEW`), and the copy is
 * updated in place when `n` shows no other write between (else the item is read again); a write to
 * a day not held returns the whole item (`ALL_NEW`). The one ingest writer (the others only read)
 * keeps its copies current, and a full read every few minutes bounds what another writer's change
 * could leave unseen.
 */
const SUMMARY_CACHE_MS = 5 * 60_000;
/** `w#6#08`: Saturday, 8 am port-local. */
export const weekSk = (dayOfWeek: number, hour: number) => `w#${dayOfWeek}#${String(hour).padStart(2, '0')}`;
/** Where a bucket's summary lives: its day's summary item and the hour within it. */
function summaryPlace(bucketSk: string): { sk: string; hour: string } {
  const [dayOfWeek = '0', hour = '00'] = bucketSk.slice(2).split('#');
  return { sk: summarySk(Number(dayOfWeek)), hour };
}
const laneOf = (c: Pick<RollupContribution, 'direction' | 'mode' | 'lane'>) =>
  `${c.direction}#${c.mode}#${c.lane}`;
const partKey = (c: RollupContribution) => `${laneOf(c)}|${c.localDate}`;
const partOf = (c: RollupContribution): Part => ({ s: c.sum, n: c.count, h: c.histogram });
/** The lane of a part's key (`direction#mode#lane|YYYY-MM-DD`). */
const laneOfKey = (key: string) => key.slice(0, key.indexOf('|'));
/** The date of a part's key. */
const dateOfKey = (key: string) => key.slice(key.indexOf('|') + 1);

/** The sum of parts: sums, counts and histograms added. */
function totalOf(parts: readonly Part[]): Part {
  return {
    s: parts.reduce((total, part) => total + Number(part.s), 0),
    n: parts.reduce((total, part) => total + Number(part.n), 0),
    h: mergeHistograms(parts.map((part) => part.h ?? {})),
  };
}

/**
 * A lane's decayed settled total (`d`); an item settled before decayed totals were kept has its
 * undecayed total (`t`) stand for it, every settled date at weight 1.
 */
function decayedOf(item: Record<string, unknown>, lane: string): DecayedTotal | undefined {
  const decayed = (item.d as Record<string, DecayedTotal> | undefined)?.[lane];
  if (decayed) return decayed;
  const total = (item.t as Record<string, Part> | undefined)?.[lane];
  if (!total) return undefined;
  return {
    s: Number(total.s),
    n: Number(total.n),
    h: total.h ?? {},
    at: typeof item.ft === 'string' ? item.ft : '',
  };
}

/**
 * Per lane of one bucket item: `[sum, count, median]` over its dates and its settled total, and
 * the recency-weighted mean and median as they stand once the dates past the settle `cutoff`
 * (`YYYY-MM-DD`) are folded (what the item holds after its settle, which follows the summary).
 */
function summarize(item: Record<string, unknown>, cutoff: string): BucketSummary {
  const lanes = new Map<string, { all: Part[]; settling: (Part & { date: string })[]; young: Part[] }>();
  const laneParts = (lane: string) => {
    let parts = lanes.get(lane);
    if (!parts) {
      parts = { all: [], settling: [], young: [] };
      lanes.set(lane, parts);
    }
    return parts;
  };
  for (const [key, part] of Object.entries((item.p ?? {}) as Record<string, Part>)) {
    const parts = laneParts(laneOfKey(key));
    const date = dateOfKey(key);
    parts.all.push(part);
    if (date < cutoff) parts.settling.push({ ...part, date });
    else parts.young.push(part);
  }
  for (const [lane, part] of Object.entries((item.t ?? {}) as Record<string, Part>))
    laneParts(lane).all.push(part);
  const l: BucketSummary['l'] = {};
  for (const [lane, { all, settling, young }] of lanes) {
    const { s: sum, n: count, h } = totalOf(all);
    if (count <= 0) continue;
    const median = medianOf(h);
    const recent = recentCentresOf(foldDecayed(decayedOf(item, lane), settling), young);
    l[lane] = recent ? [sum, count, median, recent.mean, recent.median] : [sum, count, median];
  }
  return { r: Number(item.r ?? 0), l };
}

/**
 * Averages of a port from its summary items, rounded to 0.1 minute, in a stable order, with the
 * recency-weighted centres where the summary holds them.
 */
function averagesOf(portId: string, days: Iterable<Record<string, unknown>>): ProfileAverage[] {
  const out: ProfileAverage[] = [];
  const buckets: [number, number, BucketSummary][] = [];
  for (const item of days) {
    const dayOfWeek = Number(String(item.sk).slice(SUMMARY_PREFIX.length));
    for (const [hour, summary] of Object.entries((item.s ?? {}) as Record<string, BucketSummary>)) {
      buckets.push([dayOfWeek, Number(hour), summary]);
    }
  }
  for (const [dayOfWeek, hour, { l }] of buckets) {
    for (const [lane, [sum, count, median, recentMean, recentMedian]] of Object.entries(l)) {
      const [direction, mode, laneName] = lane.split('#') as [Direction, Mode, Lane];
      if (count === 0) continue;
      out.push({
        portId,
        direction,
        mode,
        lane: laneName,
        dayOfWeek,
        hour,
        averageDelayMinutes: Math.round((sum / count) * 10) / 10,
        medianDelayMinutes: median,
        samples: count,
        ...(recentMean === undefined
          ? {}
          : {
              recent: {
                mean: Number(recentMean),
                median: recentMedian === null ? null : Number(recentMedian),
              },
            }),
      });
    }
  }
  return out.sort(compareAverages);
}

/**
 * Bulk load into an EMPTY rollup table (a benchmark's or a test's history): one put per bucket item
 * and one summary per port. With `nowMs`, the items are left as the ingest leaves them at that
 * time: dates older than `settledBefore(nowMs)` folded into each lane's total (`t`, `ft`, `v`).
 * It replaces whole items, so it must not run beside the ingest.
 */
export async function loadRollups(
  doc: DynamoDBDocumentClient,
  table: string,
  contributions: readonly RollupContribution[],
  nowMs?: number,
): Promise<void> {
  const items = new Map<string, Record<string, unknown> & { p: Record<string, Part> }>();
  for (const c of contributions) {
    const sk = weekSk(c.dayOfWeek, c.hour);
    const item = items.get(`${c.portId}|${sk}`) ?? { pk: c.portId, sk, p: {}, t: {}, r: 1 };
    item.p[partKey(c)] = partOf(c);
    items.set(`${c.portId}|${sk}`, item);
  }
  if (nowMs !== undefined) {
    const cutoff = settledBefore(nowMs);
    for (const item of items.values()) {
      const totals = new Map<string, (Part & { date: string })[]>();
      let folded = '';
      for (const [key, part] of Object.entries(item.p)) {
        const date = dateOfKey(key);
        if (date >= cutoff) continue;
        const lane = laneOfKey(key);
        totals.set(lane, [...(totals.get(lane) ?? []), { ...part, date }]);
        if (date > folded) folded = date;
        delete item.p[key];
      }
      if (totals.size === 0) continue;
      item.t = Object.fromEntries([...totals].map(([lane, parts]) => [lane, totalOf(parts)]));
      item.d = Object.fromEntries([...totals].map(([lane, parts]) => [lane, foldDecayed(undefined, parts)]));
      item.ft = folded;
      item.v = 1;
    }
  }
  const summaries = new Map<
    string,
    { pk: string; sk: string; s: Record<string, BucketSummary>; n: number }
  >();
  for (const item of items.values()) {
    const { sk, hour } = summaryPlace(String(item.sk));
    const summary = summaries.get(`${item.pk}|${sk}`) ?? { pk: String(item.pk), sk, s: {}, n: 1 };
    summary.s[hour] = summarize(item, '');
    summaries.set(`${item.pk}|${sk}`, summary);
  }
  await batchPut(doc, table, [...items.values(), ...summaries.values()]);
}

/**
 * Rollups, one item per port and port-local hour of week: pk = port id, sk = `w#<dayOfWeek>#<hh>`.
 * Map `p` holds one part per lane and port-local date (`into-us#passenger#standard|2026-03-08` ->
 * { s: sum, n: count, h: histogram of whole-minute delays }), each set absolutely, so rewriting a
 * date is idempotent; map `t` holds each lane's settled total. No TTL: the averages outlive the
 * 14-day raw window.
 *
 * Summary: every write returns the bucket item (`ReturnValues: ALL_NEW`, no read; a create, which
 * sets the whole item, is its own copy), from which the
 * bucket's `[sum, count, exact median]` per lane goes into the port's summary item
 * (sk = `avg`, map `s`), guarded by the bucket's revision `r` (incremented by every write) so an
 * older computation never replaces a newer one. A port's averages are then one GetItem.
 *
 * Settling keeps items small: dates older than `settledBefore(now)` are folded into `t` by one
 * conditional update (the dates must still exist and the settle version `v` be the one read; `ft`
 * records the newest folded date and a part for a date at or before it is never written again), so
 * each date is counted exactly once however many writers race, without transactions.
 *
 * While this process is the only writer (the ingest under its lease: core/ingest/sole-writer.ts),
 * the same items are read and put back whole, in batches, instead ({@link putAlone}).
 */
export function createRollupStore(
  doc: DynamoDBDocumentClient,
  table: string,
  now: () => number = Date.now,
  /** While this process is the only writer, buckets and held summaries are put whole, in batches. */
  sole?: SoleWriter,
): RollupStore & {
  /** Recomputes a port's summary from its bucket items (after a migration or a bulk load). */
  rebuildSummary(portId: string): Promise<void>;
  /** What the port's buckets hold (an import compares a file with it before writing). */
  storedParts(portId: string): Promise<StoredParts>;
} {
  /** Writes one bucket's parts; returns the item after the write. */
  async function writeBucket(
    portId: string,
    sk: string,
    parts: ReadonlyMap<string, Part>,
  ): Promise<Record<string, unknown> | undefined> {
    let pending = new Map(parts);
    // A bucket the port's summary (as read or written here) does not list is likely new: its first
    // write creates the item (one request instead of a failed update and then the create). Both
    // writes are conditional, so a wrong guess only costs the other one.
    const attempts = isListed(portId, sk) === false ? [create, update] : [update, create];
    for (;;) {
      if (pending.size === 0) {
        const current = await doc.send(
          new GetCommand({ TableName: table, Key: { pk: portId, sk }, ConsistentRead: true }),
        );
        return current.Item;
      }
      for (const attempt of attempts) {
        try {
          const result = await doc.send(attempt(portId, sk, pending));
          // A create returns nothing: the item is what it set (see `create`).
          return attempt === create ? createdItem(portId, sk, pending) : result.Attributes;
        } catch (error: unknown) {
          if (!isConditionFailure(error)) throw error;
        }
      }
      // The item exists: either a concurrent writer created it (the next turn applies), or some of
      // these dates are already settled (never written again: their total holds them).
      const current = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: portId, sk }, ConsistentRead: true }),
      );
      const folded = typeof current.Item?.ft === 'string' ? current.Item.ft : null;
      if (folded !== null) {
        pending = new Map([...pending].filter(([key]) => dateOfKey(key) > folded));
      }
    }
  }

  /** Sets parts of an existing bucket item, unless one of their dates is already settled. */
  function update(portId: string, sk: string, pending: ReadonlyMap<string, Part>) {
    const oldest = [...pending.keys()].map(dateOfKey).sort()[0] ?? '';
    const guardOld = oldest < settledBefore(now());
    const names: Record<string, string> = { '#p': 'p', '#r': 'r' };
    const values: Record<string, unknown> = { ':one': 1 };
    const sets = [...pending].map(([key, part], i) => {
      names[`#k${i}`] = key;
      values[`:v${i}`] = part;
      return `#p.#k${i} = :v${i}`;
    });
    if (guardOld) {
      names['#ft'] = 'ft';
      values[':oldest'] = oldest;
    }
    return new UpdateCommand({
      TableName: table,
      Key: { pk: portId, sk },
      UpdateExpression: `SET ${sets.join(', ')} ADD #r :one`,
      ConditionExpression: `attribute_exists(#p)${guardOld ? ' AND (attribute_not_exists(#ft) OR #ft < :oldest)' : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    });
  }

  /**
   * Creates a bucket item holding the parts, unless it exists. It asks for no item back: a create
   * that applies leaves exactly these parts, an empty total and revision 1 (no bucket item lacks
   * `p` but one never created, whose settle version `v` is then absent too), so the copy is built
   * here ({@link createdItem}) rather than sent back.
   */
  function create(portId: string, sk: string, pending: ReadonlyMap<string, Part>) {
    return new UpdateCommand({
      TableName: table,
      Key: { pk: portId, sk },
      UpdateExpression: 'SET #p = :p, #t = :empty, #r = :one',
      ConditionExpression: 'attribute_not_exists(#p)',
      ExpressionAttributeNames: { '#p': 'p', '#t': 't', '#r': 'r' },
      ExpressionAttributeValues: { ':p': Object.fromEntries(pending), ':empty': {}, ':one': 1 },
    });
  }

  /** The bucket item a {@link create} that applied leaves. */
  const createdItem = (portId: string, sk: string, pending: ReadonlyMap<string, Part>) => ({
    pk: portId,
    sk,
    p: Object.fromEntries(pending),
    t: {},
    r: 1,
  });

  /** Whether the port's summary lists the bucket; undefined when its summary is not held here. */
  function isListed(portId: string, bucketSk: string): boolean | undefined {
    const cached = summaries.get(portId);
    if (!cached) return undefined;
    const { sk, hour } = summaryPlace(bucketSk);
    const day = cached.days.get(sk);
    return (day?.s as Record<string, unknown> | undefined)?.[hour] !== undefined;
  }

  /** Summary items of each port as last read or written here, with when they were read in full. */
  const summaries = new Map<string, { readAt: number; days: Map<string, Record<string, unknown>> }>();
  sole?.onForget(() => summaries.clear());
  /** Keeps the newest copy of a summary item (`n` counts its writes; responses may arrive out of order). */
  const remember = (portId: string, item: Record<string, unknown> | undefined) => {
    const cached = summaries.get(portId);
    if (!cached || !item) return;
    const held = cached.days.get(String(item.sk));
    if (!held || Number(held.n ?? 0) <= Number(item.n ?? 0)) cached.days.set(String(item.sk), item);
  };

  /**
   * Sets the summaries of some hours of one summary item (`sk`) in one write, each guarded: the
   * item's map exists and holds no summary of that hour computed from as many writes (`r`) or more.
   * A refused guard is a ConditionalCheckFailed error.
   */
  async function putSummaries(
    portId: string,
    sk: string,
    hours: readonly { hour: string; summary: BucketSummary }[],
  ): Promise<void> {
    const names: Record<string, string> = { '#s': 's', '#r': 'r', '#n': 'n' };
    const values: Record<string, unknown> = { ':one': 1 };
    const sets: string[] = [];
    const guards: string[] = [];
    hours.forEach(({ hour, summary }, i) => {
      names[`#h${i}`] = hour;
      values[`:s${i}`] = summary;
      values[`:r${i}`] = summary.r;
      sets.push(`#s.#h${i} = :s${i}`);
      guards.push(`(attribute_not_exists(#s.#h${i}) OR #s.#h${i}.#r < :r${i})`);
    });
    // The day as held here: the write returns only what it set, and the copy is updated in place
    // when the write count shows no other write came between (else the item is read again).
    const held = summaries.get(portId)?.days.get(sk);
    const result = await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: portId, sk },
        UpdateExpression: `SET ${sets.join(', ')} ADD #n :one`,
        ConditionExpression: ['attribute_exists(#s)', ...guards].join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: held ? 'UPDATED_NEW' : 'ALL_NEW',
      }),
    );
    if (!held) {
      remember(portId, result.Attributes);
      return;
    }
    const writes = Number(result.Attributes?.n);
    const cached = summaries.get(portId);
    const current = cached?.days.get(sk);
    if (cached && current && Number(current.n ?? 0) + 1 === writes) {
      const set = Object.fromEntries(hours.map(({ hour, summary }) => [hour, summary]));
      cached.days.set(sk, { ...current, s: { ...(current.s as object), ...set }, n: writes });
    } else if (cached && (!current || Number(current.n ?? 0) < writes)) {
      // Another write came between (another writer, or this one's answers out of order).
      const stored = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: portId, sk }, ConsistentRead: true }),
      );
      remember(portId, stored.Item);
    }
  }

  /** Puts one bucket's summary into its day's summary item unless a newer one is there. */
  async function writeSummary(portId: string, bucketSk: string, summary: BucketSummary): Promise<void> {
    const { sk, hour } = summaryPlace(bucketSk);
    const key = { pk: portId, sk };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await putSummaries(portId, sk, [{ hour, summary }]);
        return;
      } catch (error: unknown) {
        if (!isConditionFailure(error)) throw error;
      }
      const current = await doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
      remember(portId, current.Item);
      const stored = (current.Item?.s as Record<string, BucketSummary> | undefined)?.[hour];
      if (stored && Number(stored.r) >= summary.r) return;
      if (!current.Item?.s) {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: key,
            UpdateExpression: 'SET #s = if_not_exists(#s, :empty)',
            ExpressionAttributeNames: { '#s': 's' },
            ExpressionAttributeValues: { ':empty': {} },
          }),
        );
      }
    }
    throw new Error(`rollup summary of ${portId} ${bucketSk}: still conflicting after 3 attempts`);
  }

  /**
   * Puts the summaries of several buckets of one day of week in one write, guarded hour by hour as
   * {@link writeSummary} guards one; if any guard fails, each goes its own way.
   */
  async function writeSummaries(
    portId: string,
    buckets: readonly { bucketSk: string; summary: BucketSummary }[],
  ): Promise<void> {
    const [first] = buckets;
    if (!first) return;
    if (buckets.length > 1) {
      try {
        await putSummaries(
          portId,
          summaryPlace(first.bucketSk).sk,
          buckets.map(({ bucketSk, summary }) => ({ hour: summaryPlace(bucketSk).hour, summary })),
        );
        return;
      } catch (error: unknown) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    for (const { bucketSk, summary } of buckets) await writeSummary(portId, bucketSk, summary);
  }

  /**
   * Folds the dates older than the settle cutoff into each lane's total: one conditional update
   * that applies only if the dates still exist and the version is the one read; a writer that
   * loses leaves it to the next write of the bucket.
   */
  async function settle(portId: string, item: Record<string, unknown>): Promise<void> {
    const cutoff = settledBefore(now());
    const parts = (item.p ?? {}) as Record<string, Part>;
    const old = Object.keys(parts).filter((key) => dateOfKey(key) < cutoff);
    if (old.length === 0) return;
    const totals = new Map<string, (Part & { date: string })[]>();
    for (const key of old) {
      const lane = laneOfKey(key);
      totals.set(lane, [...(totals.get(lane) ?? []), { ...(parts[key] as Part), date: dateOfKey(key) }]);
    }
    const settled = (item.t ?? {}) as Record<string, Part>;
    // The decayed totals, set whole (the map may not exist yet on an item settled before them):
    // every lane's as it was, or its undecayed total where none was kept, the folded lanes aged.
    const decayed: Record<string, DecayedTotal> = {};
    for (const lane of new Set([...Object.keys(settled), ...Object.keys((item.d ?? {}) as object)])) {
      const total = decayedOf(item, lane);
      if (total) decayed[lane] = total;
    }
    for (const [lane, folded] of totals) {
      const total = foldDecayed(decayedOf(item, lane), folded);
      if (total) decayed[lane] = total;
    }
    const names: Record<string, string> = {
      '#p': 'p',
      '#t': 't',
      '#v': 'v',
      '#ft': 'ft',
      '#dec': 'd',
    };
    const values: Record<string, unknown> = { ':next': Number(item.v ?? 0) + 1, ':dec': decayed };
    const sets: string[] = ['#dec = :dec'];
    [...totals].forEach(([lane, folded], i) => {
      names[`#l${i}`] = lane;
      values[`:t${i}`] = totalOf([...folded, ...(settled[lane] ? [settled[lane]] : [])]);
      sets.push(`#t.#l${i} = :t${i}`);
    });
    const newest = old.map(dateOfKey).sort();
    const previous = typeof item.ft === 'string' ? item.ft : '';
    values[':ft'] = [previous, ...newest].sort().at(-1);
    old.forEach((key, i) => {
      names[`#d${i}`] = key;
    });
    const version = Number(item.v ?? 0);
    if (version > 0) values[':version'] = version;
    try {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: portId, sk: String(item.sk) },
          UpdateExpression: `SET ${sets.join(', ')}, #v = :next, #ft = :ft REMOVE ${old.map((_, i) => `#p.#d${i}`).join(', ')}`,
          ConditionExpression: [
            ...old.map((_, i) => `attribute_exists(#p.#d${i})`),
            version === 0 ? 'attribute_not_exists(#v)' : '#v = :version',
          ].join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error: unknown) {
      // Another writer folded first: the next write of this bucket folds whatever is left.
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * {@link RollupStore.putContributions} while this process is the only writer: the buckets are
   * read (100 a request) and put back whole with their new parts (25 a request), as the
   * conditional update would leave them; each summary item held here gets its new hours and is put
   * whole too (one not held takes the guarded update). Nobody writes between the read and the put.
   */
  async function putAlone(
    days: readonly { portId: string; buckets: { sk: string; parts: Map<string, Part> }[] }[],
  ): Promise<void> {
    const stored = new Map(
      (
        await batchGet(
          doc,
          table,
          days.flatMap(({ portId, buckets }) => buckets.map(({ sk }) => ({ pk: portId, sk }))),
          { consistent: true },
        )
      ).map((item) => [`${item.pk}\n${item.sk}`, item]),
    );
    const puts: Record<string, unknown>[] = [];
    const written = days.map(({ portId, buckets }) => ({
      portId,
      items: buckets.map(({ sk, parts }) => {
        const item = stored.get(`${portId}\n${sk}`);
        if (!item) {
          const created: Record<string, unknown> = createdItem(portId, sk, parts);
          puts.push(created);
          return created;
        }
        // A date at or before the newest settled one is never written again: its total holds it.
        const folded = typeof item.ft === 'string' ? item.ft : null;
        const pending = [...parts].filter(([key]) => folded === null || dateOfKey(key) > folded);
        if (pending.length === 0) return item;
        const next: Record<string, unknown> = {
          ...item,
          p: { ...(item.p as Record<string, Part>), ...Object.fromEntries(pending) },
          r: Number(item.r ?? 0) + 1,
        };
        puts.push(next);
        return next;
      }),
    }));
    await batchPut(doc, table, puts);
    const cutoff = settledBefore(now());
    const summaryPuts: { portId: string; sk: string; item: Record<string, unknown> }[] = [];
    await mapLimit(written, 8, async ({ portId, items }) => {
      const buckets = items.map((item) => ({ bucketSk: String(item.sk), summary: summarize(item, cutoff) }));
      const sk = buckets[0] === undefined ? '' : summaryPlace(buckets[0].bucketSk).sk;
      const cached = summaries.get(portId);
      const held = cached?.days.get(sk);
      if (!cached || !held?.s) {
        await writeSummaries(portId, buckets);
      } else {
        // As the guarded update sets them: an hour whose stored summary is as new or newer stays.
        const hours = { ...(held.s as Record<string, BucketSummary>) };
        let changed = false;
        for (const { bucketSk, summary } of buckets) {
          const { hour } = summaryPlace(bucketSk);
          if (hours[hour] !== undefined && Number(hours[hour].r) >= summary.r) continue;
          hours[hour] = summary;
          changed = true;
        }
        if (changed)
          summaryPuts.push({ portId, sk, item: { ...held, s: hours, n: Number(held.n ?? 0) + 1 } });
      }
    });
    try {
      await batchPut(
        doc,
        table,
        summaryPuts.map(({ item }) => item),
      );
    } catch (error: unknown) {
      // Some may have arrived: those ports' summaries are read again when next needed.
      for (const { portId } of summaryPuts) summaries.delete(portId);
      throw error;
    }
    for (const { portId, sk, item } of summaryPuts) summaries.get(portId)?.days.set(sk, item);
    await mapLimit(written, 8, async ({ portId, items }) => {
      for (const item of items) await settle(portId, item);
    });
  }

  return {
    async putContributions(contributions) {
      const buckets = new Map<string, { portId: string; sk: string; parts: Map<string, Part> }>();
      for (const c of contributions) {
        const sk = weekSk(c.dayOfWeek, c.hour);
        const id = `${c.portId}\n${sk}`;
        const bucket = buckets.get(id) ?? { portId: c.portId, sk, parts: new Map() };
        bucket.parts.set(partKey(c), partOf(c));
        buckets.set(id, bucket);
      }
      // By port and day of week: the day's buckets, then their summaries in one write.
      const days = new Map<string, { portId: string; buckets: { sk: string; parts: Map<string, Part> }[] }>();
      for (const { portId, sk, parts } of buckets.values()) {
        const id = `${portId}\n${summaryPlace(sk).sk}`;
        const day = days.get(id) ?? { portId, buckets: [] };
        day.buckets.push({ sk, parts });
        days.set(id, day);
      }
      if (sole?.since != null) {
        await putAlone([...days.values()]);
        return;
      }
      await mapLimit([...days.values()], 8, async ({ portId, buckets: dayBuckets }) => {
        const written: { sk: string; item: Record<string, unknown> }[] = [];
        for (const { sk, parts } of dayBuckets) {
          const item = await writeBucket(portId, sk, parts);
          if (item) written.push({ sk, item });
        }
        await writeSummaries(
          portId,
          written.map(({ sk, item }) => ({ bucketSk: sk, summary: summarize(item, settledBefore(now())) })),
        );
        for (const { item } of written) await settle(portId, item);
      });
    },
    async averages(portId) {
      const cached = summaries.get(portId);
      if (cached && Date.now() - cached.readAt < SUMMARY_CACHE_MS)
        return averagesOf(portId, cached.days.values());
      const items = await queryAll(doc, {
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :avg)',
        ExpressionAttributeValues: { ':pk': portId, ':avg': SUMMARY_PREFIX },
      });
      const days = new Map(items.map((item) => [String(item.sk), item]));
      summaries.set(portId, { readAt: Date.now(), days });
      return averagesOf(portId, days.values());
    },
    async storedParts(portId) {
      const out: StoredParts = new Map();
      const pages = queryPages(doc, {
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :w)',
        ExpressionAttributeValues: { ':pk': portId, ':w': 'w#' },
        ConsistentRead: true,
      });
      for await (const page of pages) {
        for (const item of page) {
          const [dayOfWeek = '0', hour = '0'] = String(item.sk).slice(2).split('#');
          const parts = new Map<string, { sum: number; count: number }>();
          for (const [key, part] of Object.entries((item.p ?? {}) as Record<string, Part>)) {
            parts.set(key, { sum: Number(part.s), count: Number(part.n) });
          }
          out.set(`${Number(dayOfWeek)}#${Number(hour)}`, {
            settledThrough: typeof item.ft === 'string' ? item.ft : null,
            parts,
          });
        }
      }
      return out;
    },
    async rebuildSummary(portId) {
      const pages = queryPages(doc, {
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :w)',
        ExpressionAttributeValues: { ':pk': portId, ':w': 'w#' },
        ConsistentRead: true,
      });
      for await (const page of pages) {
        for (const item of page) {
          await writeSummary(portId, String(item.sk), summarize(item, settledBefore(now())));
        }
      }
    },
  };
}
