import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../core/concurrency.ts';
import { InvalidQueryError } from '../../core/errors.ts';
import type { SoleWriter } from '../../core/ingest/sole-writer.ts';
import type { Direction, Lane, LaneStatus, Mode, Source } from '../../core/model.ts';
import { type Observation, RETENTION_HOURS } from '../../core/model.ts';
import type { ObservationFilter, ObservationPage, ObservationStore } from '../../core/stores.ts';
import { batchGet, batchPut } from './batch.ts';
import { isConditionFailure } from './client.ts';
import { queryPages } from './paging.ts';

/** How long an hour item this process wrote stands for the stored one (see `written`). */
const WRITTEN_MS = 60_000;
/** Readings of an hour (map entries) from which the hour is worth compacting. */
export const COMPACT_MIN_READINGS = 12;
/** Entries set by one update: keeps the expression far below DynamoDB's 4 KB expression limit. */
const ENTRIES_PER_UPDATE = 40;

/** `h#2026-11-21T12`: the sort key of the UTC hour holding `epochMs`. */
export const hourSk = (epochMs: number) => `h#${new Date(epochMs).toISOString().slice(0, 13)}`;
const HOUR_SK = /^h#\d{4}-\d{2}-\d{2}T\d{2}$/;
/** The start (epoch ms) of an hour by its sort key. */
const hourStartOf = (sk: string) => Date.parse(`${sk.slice(2)}:00:00Z`);

/**
 * A stored entry: `[source, status, delayMinutes, lanesOpen, maxLanes, fetchedAt]` (positional, so
 * the attribute names are not repeated in every reading), plus any other field of the reading.
 */
type Entry = [
  Source,
  LaneStatus,
  number | null,
  number | null,
  number | null,
  string,
  Record<string, unknown>?,
];

/** Map key of a reading inside its hour: the time after the hour (`05:00Z`), then the lane. */
export function entryKey(o: Pick<Observation, 'observedAt' | 'direction' | 'mode' | 'lane'>): string {
  const hour = hourSk(Date.parse(o.observedAt)).slice(2);
  const time = o.observedAt.startsWith(`${hour}:`) ? o.observedAt.slice(14) : o.observedAt;
  return `${time}|${o.direction}|${o.mode}|${o.lane}`;
}

function encodeEntry(o: Observation): Entry {
  const {
    portId: _p,
    direction: _d,
    mode: _m,
    lane: _l,
    observedAt: _o,
    source,
    status,
    delayMinutes,
    lanesOpen,
    maxLanes,
    fetchedAt,
    ...extra
  } = o;
  const entry: Entry = [source, status, delayMinutes, lanesOpen ?? null, maxLanes ?? null, fetchedAt];
  if (Object.keys(extra).length > 0) entry.push(extra);
  return entry;
}

function decodeEntry(portId: string, hour: string, key: string, value: Entry): Observation {
  const [time = '', direction, mode, lane] = key.split('|');
  const [source, status, delayMinutes, lanesOpen, maxLanes, fetchedAt, extra] = value;
  const observation: Observation = {
    portId,
    direction: direction as Direction,
    mode: mode as Mode,
    lane: lane as Lane,
    status,
    delayMinutes,
    lanesOpen,
    maxLanes,
    observedAt: time.includes('T') ? time : `${hour}:${time}`,
    source,
    fetchedAt,
  };
  return extra === undefined ? observation : { ...observation, ...extra };
}

interface Position {
  /** Hour sort key. */
  h: string;
  /** observedAt (ms) and entry key of the last observation returned. */
  t: number;
  k: string;
  /**
   * Readings per hour item the page before kept: the next page sizes its first Query by it instead
   * of reading a day of hours to learn it (a hint; a cursor without it reads the day first).
   */
  d?: number;
}

/**
 * A reading's hour item (sort key), sort position (observedAt in ms, entry key `<clock>|<lane>`,
 * also as its two parts) and its decoding.
 */
interface Reading {
  readonly h: string;
  readonly t: number;
  readonly k: string;
  readonly clock: string;
  readonly laneKey: string;
  observation(): Observation;
}

/**
 * Readings in (time, entry key) order. The key's parts are compared instead of the key (no string
 * built per reading): a clock is `MM:SSZ` or a whole ISO time and holds no `|`, so neither is a
 * prefix of another and the order of the parts is the order of the keys.
 */
const byPosition = (a: Reading, b: Reading) =>
  a.t - b.t ||
  (a.clock < b.clock
    ? -1
    : a.clock > b.clock
      ? 1
      : a.laneKey < b.laneKey
        ? -1
        : a.laneKey > b.laneKey
          ? 1
          : 0);

const after = (a: { t: number; k: string }, b: { t: number; k: string }) =>
  a.t > b.t || (a.t === b.t && a.k > b.k);

function encodeCursor(portId: string, position: Position): string {
  return Buffer.from(JSON.stringify({ v: 1, p: portId, ...position })).toString('base64url');
}

function decodeCursor(portId: string, cursor: string): Position {
  const refuse = () =>
    new InvalidQueryError(
      'cursor is not one this API issued for this port: pass the `next` of the previous page unchanged, or start again without it',
      'cursor',
    );
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  const c = value as Partial<Position & { v: number; p: string }>;
  if (
    typeof value !== 'object' ||
    value === null ||
    c.v !== 1 ||
    c.p !== portId ||
    typeof c.h !== 'string' ||
    !HOUR_SK.test(c.h) ||
    typeof c.t !== 'number' ||
    !Number.isFinite(c.t) ||
    typeof c.k !== 'string'
  ) {
    throw refuse();
  }
  const hint = typeof c.d === 'number' && Number.isFinite(c.d) && c.d > 0 ? { d: c.d } : {};
  return { h: c.h, t: c.t, k: c.k, ...hint };
}

/**
 * Bulk load into an EMPTY observation table (a benchmark's history): one put per port and hour.
 * It replaces whole hours, so it must not run beside the ingest.
 */
export async function loadObservations(
  doc: DynamoDBDocumentClient,
  table: string,
  observations: readonly Observation[],
): Promise<void> {
  const items = new Map<string, { pk: string; sk: string; ttl: number; m: Record<string, Entry> }>();
  for (const o of observations) {
    const sk = hourSk(Date.parse(o.observedAt));
    const item = items.get(`${o.portId}\n${sk}`) ?? { pk: o.portId, sk, ttl: ttlOf(sk), m: {} };
    item.m[entryKey(o)] = encodeEntry(o);
    items.set(`${o.portId}\n${sk}`, item);
  }
  // Past hours as the ingest leaves them: compacted from COMPACT_MIN_READINGS readings on.
  await batchPut(
    doc,
    table,
    [...items.values()].map(({ m, ...item }) =>
      Object.keys(m).length < COMPACT_MIN_READINGS
        ? { ...item, m }
        : { ...item, c: packHour(Object.entries(m)), cn: Object.keys(m).length, cv: 1 },
    ),
  );
}

/**
 * A compacted hour (`c`): `[2, fetchedAt values, { "<direction>|<mode>|<lane>": rows }]`, a row being
 * `[seconds after the hour, source, status, delayMinutes, lanesOpen, maxLanes, index of its
 * fetchedAt, extra?]` (the time is the key's own text when it is not `MM:SSZ`). Lanes and fetch
 * times are written once per hour, not once per reading, so a 336-hour read moves about half the
 * bytes of an object keyed by entry key (the first compacted form, still read).
 */
type Row = [
  number | string,
  Source,
  LaneStatus,
  number | null,
  number | null,
  number | null,
  number,
  Record<string, unknown>?,
];
type Packed = [2, string[], Record<string, Row[]>];

const CLOCK = /^\d\d:\d\dZ$/;
const clockOf = (seconds: number) =>
  `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}Z`;

/** The compacted form of an hour's entries. */
export function packHour(entries: Iterable<[string, Entry]>): string {
  const fetched = new Map<string, number>();
  const lanes: Record<string, Row[]> = {};
  for (const [key, entry] of entries) {
    const bar = key.indexOf('|');
    const time = key.slice(0, bar);
    const [source, status, delayMinutes, lanesOpen, maxLanes, fetchedAt, extra] = entry;
    let f = fetched.get(fetchedAt);
    if (f === undefined) {
      f = fetched.size;
      fetched.set(fetchedAt, f);
    }
    const at = CLOCK.test(time) ? Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5)) : time;
    const row: Row = [at, source, status, delayMinutes, lanesOpen, maxLanes, f];
    if (extra !== undefined) row.push(extra);
    const lane = key.slice(bar + 1);
    const rows = lanes[lane] ?? [];
    rows.push(row);
    lanes[lane] = rows;
  }
  const packed: Packed = [2, [...fetched.keys()], lanes];
  return JSON.stringify(packed);
}

/** Every reading of an hour item: its compacted ones (`c`) and those set since (`m`), by entry key. */
function entriesOf(item: Record<string, unknown>): [string, Entry][] {
  const out: [string, Entry][] = [];
  if (typeof item.c === 'string') {
    const compacted = JSON.parse(item.c) as Packed | Record<string, Entry>;
    if (Array.isArray(compacted)) {
      const [, fetched, lanes] = compacted;
      for (const lane in lanes) {
        for (const [at, source, status, delayMinutes, lanesOpen, maxLanes, f, extra] of lanes[lane] ?? []) {
          const entry: Entry = [source, status, delayMinutes, lanesOpen, maxLanes, fetched[f] ?? ''];
          if (extra !== undefined) entry.push(extra);
          out.push([`${typeof at === 'number' ? clockOf(at) : at}|${lane}`, entry]);
        }
      }
    } else {
      for (const key in compacted) out.push([key, compacted[key] as Entry]);
    }
  }
  const pending = item.m as Record<string, Entry> | undefined;
  if (pending === undefined) return out;
  if (out.length === 0) return Object.entries(pending);
  return [...new Map([...out, ...Object.entries(pending)])];
}

/** What the readings of one lane in one compacted hour share. */
interface LaneOfHour {
  portId: string;
  hour: string;
  fetched: string[];
  direction: Direction;
  mode: Mode;
  lane: Lane;
  /** `<direction>|<mode>|<lane>`. */
  laneKey: string;
}

/**
 * A reading of a compacted hour, decoded into an observation only when a page keeps it. A class
 * rather than a closure per reading: a 336-hour read makes tens of thousands of them.
 */
class PackedReading implements Reading {
  readonly h: string;
  readonly t: number;
  readonly clock: string;
  private readonly of: LaneOfHour;
  private readonly row: Row;

  constructor(h: string, t: number, of: LaneOfHour, clock: string, row: Row) {
    this.h = h;
    this.t = t;
    this.of = of;
    this.clock = clock;
    this.row = row;
  }

  get laneKey(): string {
    return this.of.laneKey;
  }

  /** The entry key, built only when asked (a cursor, a merge with readings set since). */
  get k(): string {
    return `${this.clock}|${this.of.laneKey}`;
  }

  observation(): Observation {
    const [, source, status, delayMinutes, lanesOpen, maxLanes, f, extra] = this.row;
    const { clock, of } = this;
    const observation: Observation = {
      portId: of.portId,
      direction: of.direction,
      mode: of.mode,
      lane: of.lane,
      status,
      delayMinutes,
      lanesOpen,
      maxLanes,
      observedAt: clock.includes('T') ? clock : `${of.hour}:${clock}`,
      source,
      fetchedAt: of.fetched[f] ?? '',
    };
    return extra === undefined ? observation : { ...observation, ...extra };
  }
}

/** `MM:SSZ` of each second of an hour, made once. */
const CLOCKS = Array.from({ length: 3600 }, (_, seconds) => clockOf(seconds));

/**
 * The readings of one hour item with `lower <= observedAt <= toMs` matching `filter`, in time order
 * (then entry key), each decoded only when asked (`observation()`), as a page returns fewer than it
 * looks at. A compacted hour is read row by row (a lane's name is split once, times are numbers);
 * readings set since (`m`) replace the compacted ones of the same key.
 */
function readingsOfItem(
  portId: string,
  item: Record<string, unknown>,
  lower: number,
  toMs: number,
  filter: ObservationFilter,
): Reading[] {
  const h = String(item.sk);
  const hour = h.slice(2);
  const hourMs = Date.parse(`${hour}:00:00Z`);
  const byLane = Boolean(filter.direction || filter.mode || filter.lane);
  const wanted = (direction: string | undefined, mode: string | undefined, lane: string | undefined) =>
    !byLane ||
    ((!filter.direction || direction === filter.direction) &&
      (!filter.mode || mode === filter.mode) &&
      (!filter.lane || lane === filter.lane));
  let out: Reading[] = [];
  const compacted =
    typeof item.c === 'string' ? (JSON.parse(item.c) as Packed | Record<string, Entry>) : undefined;
  const pending = item.m as Record<string, Entry> | undefined;
  if (Array.isArray(compacted)) {
    const [, fetched, lanes] = compacted;
    for (const laneKey in lanes) {
      const [direction, mode, lane] = laneKey.split('|') as [Direction, Mode, Lane];
      if (!wanted(direction, mode, lane)) continue;
      const context: LaneOfHour = { portId, hour, fetched, direction, mode, lane, laneKey };
      for (const row of lanes[laneKey] ?? []) {
        const at = row[0];
        let t: number;
        let clock: string;
        if (typeof at === 'number') {
          t = hourMs + at * 1000;
          clock = CLOCKS[at] ?? clockOf(at);
        } else {
          clock = at;
          t = Date.parse(at.includes('T') ? at : `${hour}:${at}`);
        }
        if (!(t >= lower && t <= toMs)) continue;
        out.push(new PackedReading(h, t, context, clock, row));
      }
    }
  }
  const entries: [string, Entry][] = [];
  if (compacted !== undefined && !Array.isArray(compacted)) {
    for (const key in compacted) entries.push([key, compacted[key] as Entry]);
  }
  if (pending !== undefined) for (const key in pending) entries.push([key, pending[key] as Entry]);
  if (entries.length > 0) {
    const byKey = new Map(out.map((r) => [r.k, r]));
    for (const [k, value] of entries) {
      const bar = k.indexOf('|');
      const time = k.slice(0, bar);
      const t = CLOCK.test(time)
        ? hourMs + Number(time.slice(0, 2)) * 60_000 + Number(time.slice(3, 5)) * 1000
        : Date.parse(time.includes('T') ? time : `${hour}:${time}`);
      if (!(t >= lower && t <= toMs)) {
        byKey.delete(k);
        continue;
      }
      if (byLane) {
        const [, direction, mode, lane] = k.split('|');
        if (!wanted(direction, mode, lane)) continue;
      }
      byKey.set(k, {
        h,
        t,
        k,
        clock: time,
        laneKey: k.slice(bar + 1),
        observation: () => decodeEntry(portId, hour, k, value),
      });
    }
    out = [...byKey.values()];
  }
  return out.sort(byPosition);
}

/** Readings an item holds (for keeping the fullest copy of one). */
const sizeOf = (item: Record<string, unknown>) =>
  Number(item.cn ?? 0) + Object.keys((item.m ?? {}) as object).length;

/** Expiry of an hour item: the hour's end plus the retention, in epoch seconds. */
const ttlOf = (sk: string) => Math.floor(hourStartOf(sk) / 1000) + 3600 + RETENTION_HOURS * 3600;

/**
 * Observations packed per port and UTC hour: pk = port id, sk = `h#<UTC hour>`, one map `m` whose
 * entries are the hour's readings keyed by time and lane (`05:00Z|into-us|passenger|standard`).
 * A write is `SET m.<key> = <reading>` per reading, so writing the same reading again leaves one
 * copy (idempotent, no transactions). One item serves every reading of its hour: a 336-hour read
 * is 336 items at most, whatever the number of lanes and readings.
 *
 * Expiry: `ttl` = the hour's end + 336 hours (DynamoDB deletes lazily, dynalite never), and every
 * read also drops each reading older than 336 hours itself, as the item outlives its first ones.
 */
export function createObservationStore(
  doc: DynamoDBDocumentClient,
  table: string,
  now: () => number,
  /** While this process is the only writer, a new hour is written without a condition (see putMany). */
  sole?: SoleWriter,
): ObservationStore {
  /**
   * Hour items as this process last wrote them (every write returns its item: `ReturnValues:
   * ALL_NEW`, no read). A rollup rebuild right after a write reads its hours from here; the one
   * ingest writer keeps them current, and they are used for a minute at most.
   */
  const written = new Map<string, { at: number; item: Record<string, unknown> }>();
  /**
   * The newest hour item of each port this process saw written: an hour after it is new (its first
   * write creates the item, one request instead of a failed update and then the create).
   */
  const newestHour = new Map<string, string>();
  let prunedAt = Date.now();
  sole?.onForget(() => {
    written.clear();
    newestHour.clear();
  });
  const remember = (item: Record<string, unknown> | undefined) => {
    if (!item) return;
    const key = `${item.pk}\n${item.sk}`;
    if ((newestHour.get(String(item.pk)) ?? '') < String(item.sk))
      newestHour.set(String(item.pk), String(item.sk));
    const held = written.get(key);
    // Items only grow; responses of concurrent writes may arrive out of order.
    if (!held || sizeOf(held.item) <= sizeOf(item)) written.set(key, { at: Date.now(), item });
    // Forget what is too old to be used, once a minute, so the map holds about a minute of writes.
    if (Date.now() - prunedAt > WRITTEN_MS) {
      prunedAt = Date.now();
      for (const [k, v] of written) if (prunedAt - v.at > WRITTEN_MS) written.delete(k);
    }
  };
  /** The hours of a range from the items written here, or null when one is missing or old. */
  const fromWritten = (portId: string, fromMs: number, toMs: number) => {
    const items: Record<string, unknown>[] = [];
    const nowSeconds = Math.floor(now() / 1000);
    for (let t = hourStartOf(hourSk(fromMs)); t <= toMs; t += 3_600_000) {
      const held = written.get(`${portId}\n${hourSk(t)}`);
      if (!held || Date.now() - held.at > WRITTEN_MS) return null;
      if (Number(held.item.ttl) > nowSeconds) items.push(held.item);
    }
    return items;
  };

  /**
   * Folds an hour's map entries into one JSON attribute `c` once the next hour is being written:
   * a 336-hour read then decodes one string per hour instead of thousands of nested attributes.
   * Only an hour of {@link COMPACT_MIN_READINGS} readings or more: a smaller map is cheap to read
   * as it is, and folding it would cost every port a write every hour.
   * From the copy this process last wrote (no read); applied only if no reading was added since
   * (`size(m)` unchanged) and no other compaction ran (`cv`), so nothing is lost; a late reading
   * starts a new small `m`, which reads merge (and the next compaction folds).
   */
  async function compact(portId: string, sk: string): Promise<void> {
    const held = written.get(`${portId}\n${sk}`)?.item;
    const pending = Object.keys((held?.m ?? {}) as object).length;
    if (!held || pending < COMPACT_MIN_READINGS) return;
    const entries = entriesOf(held);
    const version = Number(held.cv ?? 0);
    try {
      const result = await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: portId, sk },
          UpdateExpression: 'SET #c = :c, #cn = :cn, #cv = :next REMOVE #m',
          ConditionExpression: `size(#m) = :pending AND ${version === 0 ? 'attribute_not_exists(#cv)' : '#cv = :version'}`,
          ExpressionAttributeNames: { '#c': 'c', '#cn': 'cn', '#cv': 'cv', '#m': 'm' },
          ExpressionAttributeValues: {
            ':c': packHour(entries),
            ':cn': entries.length,
            ':next': version + 1,
            ':pending': pending,
            ...(version === 0 ? {} : { ':version': version }),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      written.set(`${portId}\n${sk}`, { at: Date.now(), item: result.Attributes ?? held });
    } catch (error: unknown) {
      // The item changed since this copy: it stays as it is (complete either way).
      if (!isConditionFailure(error)) throw error;
      written.delete(`${portId}\n${sk}`);
    }
  }

  /**
   * Sets the entries of one hour item; creates the map on the hour's first write. Each write is
   * conditional (the map exists, or it does not), so whichever is tried first, a lost race makes
   * the other apply on the next turn. An hour after the newest one seen is tried as new first.
   */
  async function writeHour(portId: string, sk: string, entries: [string, Entry][]): Promise<void> {
    const names: Record<string, string> = { '#m': 'm', '#ttl': 'ttl' };
    const values: Record<string, unknown> = { ':ttl': ttlOf(sk) };
    const sets = entries.map(([key, entry], i) => {
      names[`#k${i}`] = key;
      values[`:v${i}`] = entry;
      return `#m.#k${i} = :v${i}`;
    });
    const update = () =>
      new UpdateCommand({
        TableName: table,
        Key: { pk: portId, sk },
        UpdateExpression: `SET ${sets.join(', ')}, #ttl = :ttl`,
        ConditionExpression: 'attribute_exists(#m)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      });
    const create = () =>
      new UpdateCommand({
        TableName: table,
        Key: { pk: portId, sk },
        UpdateExpression: 'SET #m = :m, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#m)',
        ExpressionAttributeNames: { '#m': 'm', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':m': Object.fromEntries(entries), ':ttl': ttlOf(sk) },
        ReturnValues: 'ALL_NEW',
      });
    // An hour never written: created with nothing sent back, the item being what the write set
    // (an hour item holds `m` or a compacted `c` from its first write on, so one with neither is
    // one never written). An hour compacted meanwhile takes `create`, which returns the item.
    const fresh = () =>
      new UpdateCommand({
        TableName: table,
        Key: { pk: portId, sk },
        UpdateExpression: 'SET #m = :m, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#m) AND attribute_not_exists(#c)',
        ExpressionAttributeNames: { '#m': 'm', '#ttl': 'ttl', '#c': 'c' },
        ExpressionAttributeValues: { ':m': Object.fromEntries(entries), ':ttl': ttlOf(sk) },
      });
    const newest = newestHour.get(portId);
    const attempts = newest !== undefined && newest < sk ? [fresh, update, create] : [update, create];
    for (;;) {
      for (const attempt of attempts) {
        try {
          const result = await doc.send(attempt());
          remember(
            attempt === fresh
              ? { pk: portId, sk, m: Object.fromEntries(entries), ttl: ttlOf(sk) }
              : result.Attributes,
          );
          return;
        } catch (error: unknown) {
          if (!isConditionFailure(error)) throw error;
        }
      }
    }
  }

  /**
   * Hour items of a port between two hour keys (inclusive), in key order or reversed. `wanted`
   * readings: the first Query asks for a day of hours, each next one for about as many hours as the
   * readings still wanted need at the readings per hour seen so far, so a page does not read (and
   * decode) many hours it will not return; with `wanted` infinite, Queries of up to 1 MB as
   * DynamoDB sends them.
   */
  async function* hours(
    portId: string,
    fromSk: string,
    toSk: string,
    forward: boolean,
    wanted: number,
    /** Readings the caller has taken so far (read between items). */
    taken: () => number = () => 0,
    /** Readings per hour item expected (a cursor's hint): the first Query is sized by it. */
    perItem?: number,
  ) {
    let items = 0;
    const hoursFor = (readings: number, per: number) =>
      Math.min(400, Math.max(4, Math.ceil((readings / Math.max(1, per)) * 1.1) + 1));
    // A day of hours first (or as many as the hint says), then as many as the readings per hour
    // seen so far say.
    const perQuery = () =>
      !Number.isFinite(wanted)
        ? undefined
        : items === 0
          ? perItem === undefined
            ? 24
            : hoursFor(wanted, perItem)
          : hoursFor(wanted - taken(), taken() / items);
    const pages = queryPages(
      doc,
      {
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        FilterExpression: '#ttl > :now',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':pk': portId,
          ':from': fromSk,
          ':to': toSk,
          ':now': Math.floor(now() / 1000),
        },
        ScanIndexForward: forward,
      },
      perQuery,
    );
    for await (const page of pages) {
      for (const item of page) {
        items += 1;
        yield item;
      }
    }
  }

  /** The live, matching readings of one hour item in time order (see {@link readingsOfItem}). */
  function readingsOf(
    portId: string,
    item: Record<string, unknown>,
    fromMs: number,
    toMs: number,
    filter: ObservationFilter,
  ): Reading[] {
    // A reading is live while its second is after this one (as `ttl`, in whole seconds).
    const firstLiveMs = (Math.floor(now() / 1000) - RETENTION_HOURS * 3600 + 1) * 1000;
    return readingsOfItem(portId, item, Math.max(fromMs, firstLiveMs), toMs, filter);
  }

  async function page(
    portId: string,
    fromMs: number,
    toMs: number,
    filter: ObservationFilter,
    cursor: string | null,
    limit: number,
  ): Promise<ObservationPage> {
    const position = cursor === null ? null : decodeCursor(portId, cursor);
    const fromSk = position && position.h > hourSk(fromMs) ? position.h : hourSk(fromMs);
    const found: Reading[] = [];
    let items = 0;
    // One more than the page says whether another page follows.
    const hourItems = hours(portId, fromSk, hourSk(toMs), true, limit + 1, () => found.length, position?.d);
    for await (const item of hourItems) {
      items += 1;
      for (const reading of readingsOf(portId, item, fromMs, toMs, filter)) {
        if (position && !after(reading, position)) continue;
        found.push(reading);
      }
      if (found.length > limit) break;
    }
    const kept = found.slice(0, limit);
    const last = kept.at(-1);
    const d = Math.round((found.length / Math.max(1, items)) * 100) / 100;
    return {
      observations: kept.map((r) => r.observation()),
      next:
        found.length > limit && last ? encodeCursor(portId, { h: last.h, t: last.t, k: last.k, d }) : null,
    };
  }

  return {
    async putMany(observations) {
      const byHour = new Map<string, { portId: string; sk: string; entries: [string, Entry][] }>();
      for (const o of observations) {
        const sk = hourSk(Date.parse(o.observedAt));
        const id = `${o.portId}\n${sk}`;
        const group = byHour.get(id) ?? { portId: o.portId, sk, entries: [] };
        group.entries.push([entryKey(o), encodeEntry(o)]);
        byHour.set(id, group);
      }
      // While this process is the only writer, an hour that began after its era started and that
      // it has not written (none after its newest one) has no item: nobody else can have written
      // it. Such hours are put whole, 25 a request, across ports; the others are conditional
      // updates, as with other writers about.
      const since = sole?.since ?? null;
      const fresh: { pk: string; sk: string; m: Record<string, Entry>; ttl: number }[] = [];
      const updates: { portId: string; sk: string; entries: [string, Entry][] }[] = [];
      for (const group of byHour.values()) {
        const unique = [...new Map(group.entries).entries()];
        const newest = newestHour.get(group.portId) ?? '';
        if (since !== null && hourStartOf(group.sk) >= since && newest < group.sk) {
          fresh.push({ pk: group.portId, sk: group.sk, m: Object.fromEntries(unique), ttl: ttlOf(group.sk) });
          continue;
        }
        for (let i = 0; i < unique.length; i += ENTRIES_PER_UPDATE) {
          updates.push({ ...group, entries: unique.slice(i, i + ENTRIES_PER_UPDATE) });
        }
      }
      // Counted as written before the put: if it fails (or its answer is lost) after applying,
      // the hour's next write is a conditional update, which keeps what did arrive.
      for (const { pk, sk } of fresh) {
        if ((newestHour.get(pk) ?? '') < sk) newestHour.set(pk, sk);
      }
      await Promise.all([
        batchPut(doc, table, fresh).then(() => {
          for (const item of fresh) remember(item);
        }),
        mapLimit(updates, 8, (w) => writeHour(w.portId, w.sk, w.entries)),
      ]);
      // The hour before each written hour is complete but for late readings: compact it.
      const previous = new Map<string, { portId: string; sk: string }>();
      for (const group of byHour.values()) {
        const sk = hourSk(hourStartOf(group.sk) - 3_600_000);
        if (!byHour.has(`${group.portId}\n${sk}`))
          previous.set(`${group.portId}\n${sk}`, { portId: group.portId, sk });
      }
      await mapLimit([...previous.values()], 8, (h) => compact(h.portId, h.sk));
    },
    page,
    async queryMany(portIds, fromMs, toMs) {
      // Every hour item of every port in the range by key (BatchGetItem, 100 a request): a port's
      // few hours cost one key each instead of one Query per port. Expired readings are dropped
      // reading by reading, as a Query's filter would drop their items.
      const sks: string[] = [];
      for (let t = hourStartOf(hourSk(fromMs)); t <= toMs; t += 3_600_000) sks.push(hourSk(t));
      const items = await batchGet(
        doc,
        table,
        portIds.flatMap((pk) => sks.map((sk) => ({ pk, sk }))),
      );
      items.sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : String(a.sk) > String(b.sk) ? 1 : 0));
      const out = new Map<string, Observation[]>(portIds.map((id) => [id, []]));
      for (const item of items) {
        const list = out.get(String(item.pk));
        if (!list) continue;
        for (const r of readingsOf(String(item.pk), item, fromMs, toMs, {})) list.push(r.observation());
      }
      return out;
    },
    async query(portId, fromMs, toMs, filter: ObservationFilter = {}, limit = Number.POSITIVE_INFINITY) {
      if (!Number.isFinite(limit)) {
        const out: Observation[] = [];
        // A short range this process just wrote (a rollup rebuild) needs no read.
        const recent = toMs - fromMs <= 3 * 3_600_000 ? fromWritten(portId, fromMs, toMs) : null;
        if (recent) {
          for (const item of recent) {
            for (const r of readingsOf(portId, item, fromMs, toMs, filter)) out.push(r.observation());
          }
          return out;
        }
        for await (const item of hours(portId, hourSk(fromMs), hourSk(toMs), true, limit)) {
          for (const r of readingsOf(portId, item, fromMs, toMs, filter)) out.push(r.observation());
        }
        return out;
      }
      // The newest `limit`: read hours newest first and stop there, so the cost follows the answer.
      const newest: Observation[] = [];
      for await (const item of hours(
        portId,
        hourSk(fromMs),
        hourSk(toMs),
        false,
        limit,
        () => newest.length,
      )) {
        const readings = readingsOf(portId, item, fromMs, toMs, filter);
        for (let i = readings.length - 1; i >= 0 && newest.length < limit; i--) {
          newest.push((readings[i] as Reading).observation());
        }
        if (newest.length >= limit) break;
      }
      return newest.reverse();
    },
  };
}
