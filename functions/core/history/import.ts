/**
 * Importing history (`npm run import`): the readings of a file go into the rollups, and so into the
 * hourly averages and the forecast profile, exactly as if they had been ingested, bucketed in the
 * port's own time zone. Readings of the last 14 days ({@link RETENTION_HOURS}) also go into the
 * observations, and their hours are rebuilt from all observations as the ingest rebuilds them;
 * older ones become one contribution per lane and port-local date-hour, straight from the file.
 *
 * Idempotent: what the store already holds is counted "already there" and not written again (an
 * observation by its identity; an older date-hour when its stored part has the same sum and count,
 * or when its date is settled, since a settled date is never written again), so a second import of
 * the same file changes nothing. The affected ports' averages documents are republished at once.
 */
import { getPort } from '../catalogue/catalogue.ts';
import { mapLimit } from '../concurrency.ts';
import {
  type Direction,
  type Lane,
  type LaneStatus,
  type Mode,
  type Observation,
  RETENTION_HOURS,
  type Source,
} from '../model.ts';
import type { Clock, DocumentStore, ObservationStore } from '../stores.ts';
import { buildAverageDocuments, JSON_CONTENT_TYPE } from '../views/views.ts';
import {
  bucketKey,
  contributionsOfDay,
  localBucketOf,
  localHourRange,
  type RollupContribution,
  type RollupStore,
  type StoredParts,
} from './rollups.ts';

/** One reading of an imported file, checked by its reader. */
export interface ImportReading {
  portId: string;
  direction: Direction;
  mode: Mode;
  lane: Lane;
  status: LaneStatus;
  delayMinutes: number | null;
  lanesOpen: number | null;
  maxLanes: number | null;
  /** UTC ISO 8601. */
  observedAt: string;
  source: Source;
}

export interface ImportDeps {
  observations: ObservationStore;
  rollups: RollupStore & { storedParts(portId: string): Promise<StoredParts> };
  documents: DocumentStore;
  clock: Clock;
  /**
   * Runs the writes of one port as a writer other than the ingest: under the ingest's lease, which
   * every writer of the observations and rollups takes (`asAnotherWriter` in core/ingest/lease.ts).
   */
  exclusive: <T>(work: () => Promise<T>) => Promise<T>;
  /** Called as rows are done (the CLI draws a progress line on a terminal). */
  progress?: (done: number, total: number) => void;
}

export interface ImportSummary {
  read: number;
  written: number;
  alreadyThere: number;
  /** Rows with nothing to store: no wait, and too old for the observations. */
  skipped: number;
  /** The first and last reading (UTC ISO); null for a file without rows. */
  from: string | null;
  to: string | null;
  /** Ports whose averages documents were republished. */
  ports: string[];
}

/**
 * About the most parts (lane and date) one bucket write carries: DynamoDB caps an update
 * expression at 4 KB. Writes break only between dates (a date split over two writes would be
 * settled by the first and refused in the second).
 */
const PARTS_PER_WRITE = 48;

const laneId = (r: { direction: string; mode: string; lane: string }) => `${r.direction}#${r.mode}#${r.lane}`;

type Pending = RollupContribution & { rows: number };

/** The import of checked readings: observations and rollups, then the affected ports' averages. */
export async function importReadings(
  deps: ImportDeps,
  readings: readonly ImportReading[],
  /** Rows of the file its reader found no reading in (no value): counted as read and skipped. */
  skippedRows = 0,
): Promise<ImportSummary> {
  const nowMs = deps.clock.now();
  // The observations' retention, from a whole hour on: every port-local hour (all catalogued zones
  // are whole hours from UTC) is then wholly on one side, and one side only writes its rollup part.
  const recentFrom = Math.ceil((nowMs - RETENTION_HOURS * 3_600_000) / 3_600_000) * 3_600_000;
  const summary: ImportSummary = {
    read: readings.length + skippedRows,
    written: 0,
    alreadyThere: 0,
    skipped: skippedRows,
    from: null,
    to: null,
    ports: [],
  };
  let done = skippedRows;
  const tick = (rows: number) => {
    done += rows;
    deps.progress?.(done, readings.length + skippedRows);
  };
  const byPort = new Map<string, ImportReading[]>();
  for (const r of readings) {
    if (summary.from === null || r.observedAt < summary.from) summary.from = r.observedAt;
    if (summary.to === null || r.observedAt > summary.to) summary.to = r.observedAt;
    const list = byPort.get(r.portId);
    if (list) list.push(r);
    else byPort.set(r.portId, [r]);
  }
  const touched = new Set<string>();
  for (const [portId, rows] of byPort) {
    const zone = getPort(portId)?.timeZone;
    if (!zone) throw new Error(`port ${portId} is not in the catalogue: its time zone is unknown`);
    const recent = rows.filter((r) => Date.parse(r.observedAt) >= recentFrom);
    const old = rows.filter((r) => Date.parse(r.observedAt) < recentFrom);
    await deps.exclusive(async () => {
      if (recent.length > 0 && (await importRecent(deps, portId, zone, recent, nowMs, summary)))
        touched.add(portId);
      tick(recent.length);
      if (old.length > 0 && (await importOld(deps, portId, zone, old, summary, tick))) touched.add(portId);
    });
  }
  for (const portId of touched) {
    const port = getPort(portId) ?? { id: portId, slug: portId.toLowerCase() };
    for (const doc of buildAverageDocuments(port, await deps.rollups.averages(portId))) {
      await deps.documents.put(doc.key, doc.body, {
        contentType: doc.contentType ?? JSON_CONTENT_TYPE,
        cacheControl: doc.cacheControl,
        contentHash: doc.contentHash,
      });
    }
  }
  summary.ports = [...touched].sort();
  return summary;
}

/** Recent readings: the new observations, then their port-local hours rebuilt from all observations. */
async function importRecent(
  deps: ImportDeps,
  portId: string,
  zone: string,
  rows: readonly ImportReading[],
  nowMs: number,
  summary: ImportSummary,
): Promise<boolean> {
  const times = rows.map((r) => Date.parse(r.observedAt));
  const stored = await deps.observations.query(portId, Math.min(...times), Math.max(...times));
  const seen = new Set(stored.map((o) => `${laneId(o)}|${Date.parse(o.observedAt)}`));
  const fetchedAt = new Date(nowMs).toISOString();
  const fresh: Observation[] = [];
  for (const r of rows) {
    const id = `${laneId(r)}|${Date.parse(r.observedAt)}`;
    if (seen.has(id)) {
      summary.alreadyThere++;
      continue;
    }
    seen.add(id);
    fresh.push({ ...r, fetchedAt });
  }
  if (fresh.length === 0) return false;
  await deps.observations.putMany(fresh);
  summary.written += fresh.length;
  const hours = new Map<string, { localDate: string; hour: number; buckets: Set<string> }>();
  for (const o of fresh) {
    if (o.delayMinutes === null) continue;
    const bucket = localBucketOf(Date.parse(o.observedAt), zone);
    const key = `${bucket.localDate}#${bucket.hour}`;
    const entry = hours.get(key) ?? { ...bucket, buckets: new Set<string>() };
    entry.buckets.add(bucketKey(o, bucket.hour));
    hours.set(key, entry);
  }
  const contributions = await mapLimit([...hours.values()], 8, async (hour) => {
    const range = localHourRange(hour.localDate, hour.hour, zone);
    const observations = await deps.observations.query(portId, range.startMs, range.endMs - 1);
    return contributionsOfDay(portId, hour.localDate, zone, observations, hour.buckets);
  });
  await deps.rollups.putContributions(contributions.flat());
  return true;
}

/** Older readings: one contribution per lane and port-local date-hour, written oldest date first. */
async function importOld(
  deps: ImportDeps,
  portId: string,
  zone: string,
  rows: readonly ImportReading[],
  summary: ImportSummary,
  tick: (rows: number) => void,
): Promise<boolean> {
  const contributions = new Map<string, Pending>();
  let skipped = 0;
  for (const r of rows) {
    if (r.delayMinutes === null) {
      skipped++;
      continue;
    }
    const bucket = localBucketOf(Date.parse(r.observedAt), zone);
    const key = `${laneId(r)}|${bucket.localDate}|${bucket.hour}`;
    let c = contributions.get(key);
    if (!c) {
      c = {
        portId,
        direction: r.direction,
        mode: r.mode,
        lane: r.lane,
        localDate: bucket.localDate,
        dayOfWeek: new Date(`${bucket.localDate}T00:00:00Z`).getUTCDay(),
        hour: bucket.hour,
        sum: 0,
        count: 0,
        histogram: {},
        rows: 0,
      };
      contributions.set(key, c);
    }
    c.sum += r.delayMinutes;
    c.count += 1;
    c.rows += 1;
    const value = String(r.delayMinutes);
    c.histogram[value] = (c.histogram[value] ?? 0) + 1;
  }
  summary.skipped += skipped;
  tick(skipped);
  const stored = await deps.rollups.storedParts(portId);
  const pending: Pending[] = [];
  let already = 0;
  for (const c of contributions.values()) {
    const held = stored.get(`${c.dayOfWeek}#${c.hour}`);
    const settled = held?.settledThrough != null && c.localDate <= held.settledThrough;
    const part = held?.parts.get(`${laneId(c)}|${c.localDate}`);
    if (settled || (part && part.count === c.count && Math.abs(part.sum - c.sum) < 1e-6)) already += c.rows;
    else pending.push(c);
  }
  summary.alreadyThere += already;
  tick(already);
  // Oldest dates first: a settled date is never written again, so each write's dates must be newer
  // than the dates the writes before it settled.
  pending.sort((a, b) => a.localDate.localeCompare(b.localDate));
  let chunk: Pending[] = [];
  let perBucket = new Map<string, number>();
  let fullest = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    await deps.rollups.putContributions(chunk.map(({ rows: _rows, ...c }) => c));
    const rowsWritten = chunk.reduce((n, c) => n + c.rows, 0);
    summary.written += rowsWritten;
    tick(rowsWritten);
    chunk = [];
    perBucket = new Map();
    fullest = 0;
  };
  let lastDate = '';
  for (const c of pending) {
    if (c.localDate !== lastDate && fullest >= PARTS_PER_WRITE) await flush();
    lastDate = c.localDate;
    const bucket = `${c.dayOfWeek}#${c.hour}`;
    const count = (perBucket.get(bucket) ?? 0) + 1;
    perBucket.set(bucket, count);
    fullest = Math.max(fullest, count);
    chunk.push(c);
  }
  await flush();
  return pending.length > 0;
}
