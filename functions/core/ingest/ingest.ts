/**
 * One ingest cycle (DESIGN.md section 6), per source and independent of the other source:
 * fetch -> parse -> sanity check -> write new observations -> rebuild the touched rollups ->
 * update latest -> publish the changed documents -> record feed health.
 *
 * Crash safety without transactions: every write is idempotent, and "new" means "not yet in
 * latest", which is written only after the observations and rollups. A crash at any step leaves
 * the same readings new on the rerun, which redoes the same absolute writes. Ports whose
 * averages still need publishing are recorded in feed health before latest moves on.
 *
 * Ordering: latest only moves forward. A document older than the last good one of its source
 * (a replay, a stale cache) still adds the observations it carries, but changes no latest
 * reading, no port state and raises no event; a single lane whose reading is older than the stored
 * one keeps the stored one. Publishing writes every per-port document before any index that lists
 * the port, so a listed port never answers 404.
 */

import { feedEvent, mergeEvents, portEvents } from '../alerts/events.ts';
import { buildRssDocuments, RSS_KEYS } from '../alerts/rss.ts';
import { getPort } from '../catalogue/catalogue.ts';
import { mapLimit } from '../concurrency.ts';
import { DomainError, FeedRefusedError } from '../errors.ts';
import { detectFormat, parseFeed } from '../feeds/index.ts';
import { buildForecastDocuments, portForecastBody } from '../forecast/forecast-views.ts';
import {
  bucketKey,
  contributionsOfDay,
  localBucketOf,
  localHourRange,
  ROLLUP_MAX_AGE_DAYS,
  type RollupStore,
} from '../history/rollups.ts';
import type {
  FeedHealth,
  LatestPortState,
  LatestReading,
  Observation,
  ParsedFeed,
  ServiceEvent,
  Source,
} from '../model.ts';
import {
  type Clock,
  type DocumentStore,
  type FeedSource,
  type HealthStore,
  type LatestSighting,
  type LatestStore,
  latestKeyOf,
  type ObservationStore,
  resolveSightings,
} from '../stores.ts';
import { ZONE_FOR_ABBREVIATION } from '../time.ts';
import { buildTypicalDocuments, emptyTypicalBody } from '../typical/typical-waits.ts';
import { DOCUMENT_KEYS } from '../views/view-paths.ts';
import {
  type BuiltDocument,
  buildAverageDocuments,
  buildDocument,
  buildSnapshotDocuments,
  CACHE_CONTROL,
  isPortDocument,
  JSON_CONTENT_TYPE,
  publishedPorts,
} from '../views/views.ts';

export interface IngestDeps {
  sources: readonly FeedSource[];
  observations: ObservationStore;
  latest: LatestStore;
  rollups: RollupStore;
  health: HealthStore;
  documents: DocumentStore;
  clock: Clock;
  log?: (line: string) => void;
}

export interface SourceOutcome {
  source: Source;
  outcome: 'stored' | 'unchanged' | 'failed' | 'refused';
  ports: number;
  readings: number;
  rejects: number;
  newObservations: number;
  durationMs: number;
  error: string | null;
}

/** A document with fewer than this share of the last good document's ports is refused. */
export const MIN_PORT_SHARE = 0.5;

/** Port-local hours whose observations are read side by side to rebuild their rollups. */
const HOURS_IN_FLIGHT = 16;

function emptyHealth(source: FeedSource): FeedHealth {
  return {
    source: source.source,
    url: source.url,
    format: null,
    lastAttemptAt: null,
    lastSuccessAt: null,
    lastChangeAt: null,
    lastError: null,
    consecutiveFailures: 0,
    lastPortCount: null,
    lastReadingCount: null,
    lastRejectCount: null,
    lastNewObservations: null,
    lastDurationMs: null,
    lastGeneratedAt: null,
    etag: null,
    lastModified: null,
    rejectSample: [],
    pendingPublish: [],
    pendingEvents: [],
  };
}

function messageOf(error: unknown): string {
  if (error instanceof DomainError) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function zoneOf(portId: string, fallbackZone: string | null): string {
  return getPort(portId)?.timeZone ?? fallbackZone ?? ZONE_FOR_ABBREVIATION.E ?? 'America/New_York';
}

const laneKey = (r: { portId: string; direction: string; mode: string; lane: string }) =>
  `${r.portId}#${r.direction}#${r.mode}#${r.lane}`;

/**
 * `latest` read once per cycle: the first `all()` reads the table, and this cycle's writes update
 * that copy in place (after they succeed), so the second source, the publish and the forecast step
 * see what a new read would give without reading again. The one ingest at a time (the lease) is the
 * only writer of `latest`. A lane or port not in the copy yet makes the next `all()` read again, so
 * the order of the lists stays the table's.
 */
export function latestOnce(store: LatestStore): LatestStore {
  let copy: {
    readings: Map<string, LatestReading>;
    ports: Map<string, LatestPortState>;
    sightings: Map<Source, LatestSighting>;
  } | null = null;
  /** The read in flight: calls made while it runs share it rather than reading again. */
  let reading: Promise<void> | null = null;
  const portKey = (p: LatestPortState) => `${p.portId}#${p.source}`;
  const read = async () => {
    const found = await store.all();
    copy = {
      readings: new Map(found.readings.map((r) => [laneKey(r), r])),
      ports: new Map(found.ports.map((p) => [portKey(p), p])),
      sightings: new Map(found.sightings.map((s) => [s.source, s])),
    };
  };
  return {
    async all() {
      while (copy === null) {
        reading ??= read().finally(() => {
          reading = null;
        });
        await reading;
      }
      return {
        readings: [...copy.readings.values()],
        ports: [...copy.ports.values()],
        sightings: [...copy.sightings.values()],
      };
    },
    async putReadings(readings) {
      await store.putReadings(readings);
      for (const r of readings) {
        if (copy?.readings.has(laneKey(r))) copy.readings.set(laneKey(r), r);
        else copy = null;
      }
    },
    async putPorts(ports) {
      await store.putPorts(ports);
      for (const p of ports) {
        if (copy?.ports.has(portKey(p))) copy.ports.set(portKey(p), p);
        else copy = null;
      }
    },
    async putSighting(sighting) {
      await store.putSighting(sighting);
      if (copy === null) return;
      copy.sightings.set(sighting.source, sighting);
      for (const [key, r] of copy.readings) copy.readings.set(key, resolveSightings([r], [sighting])[0] ?? r);
      for (const [key, p] of copy.ports) copy.ports.set(key, resolveSightings([p], [sighting])[0] ?? p);
    },
  };
}

/**
 * Whether two items hold the same content: every field but `fetchedAt` (which the source's
 * sighting carries), at every level, in any key order (DynamoDB keeps no order in a map); a field
 * set to `undefined` counts as absent, as it is once stored. Compared in place rather than as
 * JSON, so no string is built per item.
 */
export function sameContent(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value, i) => sameContent(value, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const fields = (item: Record<string, unknown>) =>
    Object.keys(item).filter((key) => key !== 'fetchedAt' && item[key] !== undefined);
  const keys = fields(left);
  if (keys.length !== fields(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameContent(left[key], right[key]));
}

/**
 * What one document writes to `latest`: the lanes and ports it carries forward whose content
 * changed (the rest only move their source's sighting), the ones it stopped carrying, written once
 * with the time they were last carried, and the sighting itself. Writing every carried item would
 * cost a write per lane every cycle (about 700 write units) for the same readings.
 */
function latestWrites(
  source: Source,
  fetchedAt: string,
  carried: { readings: readonly LatestReading[]; ports: readonly LatestPortState[] },
  known: {
    readings: readonly LatestReading[];
    ports: readonly LatestPortState[];
    sighting: LatestSighting | undefined;
  },
): { readings: LatestReading[]; ports: LatestPortState[]; sighting: LatestSighting } {
  const absentBefore = new Set(known.sighting?.absent ?? []);
  const absent: string[] = [];
  const pick = <T extends LatestReading | LatestPortState>(now: readonly T[], before: readonly T[]): T[] => {
    const beforeByKey = new Map(
      before.filter((item) => item.source === source).map((item) => [latestKeyOf(item), item]),
    );
    const out: T[] = [];
    for (const item of now) {
      const key = latestKeyOf(item);
      const stored = beforeByKey.get(key);
      beforeByKey.delete(key);
      if (!stored || !sameContent(stored, item)) out.push(item);
    }
    // Not carried: absent from now on. Its item is written once, when it goes absent, with the
    // time the sighting gave it until now (no earlier sighting: every item holds its own time).
    for (const [key, stored] of beforeByKey) {
      absent.push(key);
      if (known.sighting && !absentBefore.has(key)) out.push(stored);
    }
    return out;
  };
  return {
    readings: pick(carried.readings, known.readings),
    ports: pick(carried.ports, known.ports),
    sighting: { source, fetchedAt, absent: absent.sort() },
  };
}

/**
 * Runs one cycle for every source: each fetches and parses its document side by side with the
 * other, then the new documents are stored together (one write per hour item and per rollup
 * bucket, whichever sources fed it), then each source records its health; then publishes once.
 */
export async function runIngestCycle(cycleDeps: IngestDeps): Promise<SourceOutcome[]> {
  const deps = { ...cycleDeps, latest: latestOnce(cycleDeps.latest) };
  const pendingAverages = new Set<string>();
  // `latest` is read while the feeds download (the store and the publish read it whatever they
  // bring); a failed read is left to the step that needs it, which reads again and fails there.
  const warm = deps.latest.all().catch(() => undefined);
  const prepared = await Promise.all(
    deps.sources.map((source) => prepareSource(deps, source, pendingAverages)),
  );
  await warm;
  await storeDocuments(deps, prepared, pendingAverages);
  const outcomes = await Promise.all(prepared.map((run) => finishSource(deps, run)));
  for (const outcome of outcomes) {
    deps.log?.(
      `ingest source=${outcome.source} outcome=${outcome.outcome} ports=${outcome.ports} readings=${outcome.readings} ` +
        `rejects=${outcome.rejects} new=${outcome.newObservations} ms=${outcome.durationMs}` +
        (outcome.error ? ` error=${JSON.stringify(outcome.error)}` : ''),
    );
  }
  await publish(deps, pendingAverages);
  return outcomes;
}

/** One source's part of a cycle: its health as read and as it will be written, and its new document. */
interface SourceRun {
  source: FeedSource;
  started: number;
  previous: FeedHealth;
  health: FeedHealth;
  outcome: SourceOutcome;
  /** A new document that passed the checks, to store. */
  document: {
    parsed: ParsedFeed;
    fetchedAt: number;
    etag: string | null;
    lastModified: string | null;
  } | null;
}

/** Fetches, parses and checks one source's document (no writes). */
async function prepareSource(
  deps: IngestDeps,
  source: FeedSource,
  pendingAverages: Set<string>,
): Promise<SourceRun> {
  const started = deps.clock.now();
  const previous = (await deps.health.get(source.source)) ?? emptyHealth(source);
  const health: FeedHealth = { ...emptyHealth(source), ...previous, url: source.url };
  health.lastAttemptAt = new Date(started).toISOString();
  for (const portId of health.pendingPublish) pendingAverages.add(portId);
  const run: SourceRun = {
    source,
    started,
    previous,
    health,
    outcome: {
      source: source.source,
      outcome: 'failed',
      ports: 0,
      readings: 0,
      rejects: 0,
      newObservations: 0,
      durationMs: 0,
      error: null,
    },
    document: null,
  };
  try {
    const fetched = await source.fetch({ etag: health.etag, lastModified: health.lastModified });
    if (fetched.kind === 'unchanged') {
      run.outcome.outcome = 'unchanged';
      health.lastSuccessAt = health.lastAttemptAt;
      health.lastError = null;
      health.consecutiveFailures = 0;
    } else {
      const fetchedAt = deps.clock.now();
      const format = detectFormat(fetched.body, fetched.contentType ?? undefined);
      const parsed = parseFeed(fetched.body, format, { fetchedAt });
      run.outcome.ports = parsed.ports.length;
      run.outcome.readings = parsed.readings.length;
      run.outcome.rejects = parsed.rejects.length;
      refuseIfCollapsed(parsed, health);
      run.document = { parsed, fetchedAt, etag: fetched.etag, lastModified: fetched.lastModified };
    }
  } catch (error: unknown) {
    failed(run, error);
  }
  return run;
}

function failed(run: SourceRun, error: unknown): void {
  run.document = null;
  run.outcome.outcome = error instanceof FeedRefusedError ? 'refused' : 'failed';
  run.outcome.error = messageOf(error);
  run.health.lastError = {
    at: run.health.lastAttemptAt ?? new Date(run.started).toISOString(),
    message: run.outcome.error,
  };
  run.health.consecutiveFailures += 1;
}

/** Stores the new documents of the cycle together; a failure fails every source it carried. */
async function storeDocuments(
  deps: IngestDeps,
  runs: readonly SourceRun[],
  pendingAverages: Set<string>,
): Promise<void> {
  const storing = runs.filter(
    (run): run is SourceRun & { document: NonNullable<SourceRun['document']> } => run.document !== null,
  );
  if (storing.length === 0) return;
  let results: PromiseSettledResult<StoreResult>[];
  try {
    results = await store(
      deps,
      storing.map((run) => ({ ...run.document, health: run.health })),
    );
  } catch (error: unknown) {
    // The shared writes (observations, rollups) failed: every document they carried did.
    for (const run of storing) failed(run, error);
    return;
  }
  storing.forEach((run, i) => {
    const result = results[i] as PromiseSettledResult<StoreResult>;
    if (result.status === 'rejected') {
      failed(run, result.reason);
      return;
    }
    const { parsed, fetchedAt, etag, lastModified } = run.document;
    const stored = result.value;
    const { health, outcome } = run;
    outcome.newObservations = stored.newObservations;
    if (stored.older) {
      deps.log?.(
        `ingest source=${run.source.source}: document of ${parsed.generatedAt} is older than the last one ` +
          `(${health.lastGeneratedAt}); observations kept, latest left as it was`,
      );
    }
    for (const portId of stored.ports) pendingAverages.add(portId);
    Object.assign(health, {
      format: parsed.format,
      lastSuccessAt: health.lastAttemptAt,
      lastChangeAt: new Date(fetchedAt).toISOString(),
      lastError: null,
      consecutiveFailures: 0,
      lastPortCount: parsed.ports.length,
      lastReadingCount: parsed.readings.length,
      lastRejectCount: parsed.rejects.length,
      lastNewObservations: stored.newObservations,
      // Never backwards: an older document leaves the newest generation time in place.
      lastGeneratedAt: stored.older ? health.lastGeneratedAt : parsed.generatedAt,
      etag,
      lastModified,
      rejectSample: parsed.rejects
        .slice(0, 10)
        .map((r) => ({ portId: r.portId, code: r.code, reason: r.reason })),
    } satisfies Partial<FeedHealth>);
    outcome.outcome = 'stored';
  });
}

/** Records one source's health (and the event its change of state raises). */
async function finishSource(deps: IngestDeps, run: SourceRun): Promise<SourceOutcome> {
  const { health, outcome } = run;
  outcome.durationMs = Math.round(deps.clock.now() - run.started);
  health.lastDurationMs = outcome.durationMs;
  const event = feedEvent(run.previous, health);
  if (event) health.pendingEvents = mergeEvents(health.pendingEvents, [event]);
  health.version = await deps.health.put(health);
  return outcome;
}

function refuseIfCollapsed(parsed: ParsedFeed, health: FeedHealth): void {
  const last = health.lastPortCount;
  if (parsed.ports.length === 0) throw new FeedRefusedError('refused: the document lists no ports');
  if (last !== null && last >= 10 && parsed.ports.length < last * MIN_PORT_SHARE) {
    throw new FeedRefusedError(
      `refused: ${parsed.ports.length} ports where the last good document had ${last}; kept the last good data`,
    );
  }
}

/** A port-local date-hour whose rollups the new observations change, and their buckets. */
interface TouchedHour {
  portId: string;
  localDate: string;
  hour: number;
  zone: string;
  buckets: Set<string>;
}

interface StoreResult {
  newObservations: number;
  ports: Set<string>;
  older: boolean;
}

/**
 * Stores new documents (one per source): their new observations in one write per hour item, the
 * rollups of every port-local hour they touched in one write per bucket, then per source the work
 * its publish owes (in its health) and its latest readings, each source's outcome its own.
 */
async function store(
  deps: IngestDeps,
  documents: readonly { parsed: ParsedFeed; fetchedAt: number; health: FeedHealth }[],
): Promise<PromiseSettledResult<StoreResult>[]> {
  const { readings: known, ports: knownPorts, sightings } = await deps.latest.all();
  const knownByLane = new Map(known.map((r) => [laneKey(r), r]));
  const priorZones = new Map(knownPorts.map((p) => [`${p.source}#${p.portId}`, p.timeZone]));
  const touched = new Map<string, TouchedHour>();
  const plans = documents.map(({ parsed, fetchedAt: fetchedAtMs, health }) => {
    const fetchedAt = new Date(fetchedAtMs).toISOString();
    const { older, forward, portsForward } = ordering(parsed, health, knownByLane);
    const zones = new Map<string, string | null>();
    for (const port of parsed.ports) {
      const prior = priorZones.get(`${port.source}#${port.portId}`);
      zones.set(port.portId, getPort(port.portId)?.timeZone ?? prior ?? null);
    }
    // New observations: readings with their own time not yet in latest.
    const fresh: Observation[] = [];
    for (const reading of parsed.readings) {
      if (reading.observedAt === null) continue;
      const before = knownByLane.get(laneKey(reading));
      if (before?.observedAt === reading.observedAt) continue;
      fresh.push({ ...reading, observedAt: reading.observedAt, fetchedAt });
    }
    // The port-local date-hours they touch, each to be recomputed from all its observations.
    const ports = new Set<string>();
    const oldest = fetchedAtMs - ROLLUP_MAX_AGE_DAYS * 86_400_000;
    for (const observation of fresh) {
      const at = Date.parse(observation.observedAt);
      if (at < oldest || observation.delayMinutes === null) continue;
      const zone = zoneOf(observation.portId, zones.get(observation.portId) ?? null);
      const bucket = localBucketOf(at, zone);
      const key = `${observation.portId}#${bucket.localDate}#${bucket.hour}`;
      const entry = touched.get(key) ?? {
        portId: observation.portId,
        localDate: bucket.localDate,
        hour: bucket.hour,
        zone,
        buckets: new Set(),
      };
      entry.buckets.add(bucketKey(observation, bucket.hour));
      touched.set(key, entry);
      ports.add(observation.portId);
    }
    return { parsed, health, fetchedAt, older, forward, portsForward, zones, fresh, ports };
  });

  // 1. The new observations of every document, then the rollups of the port-local date-hours
  //    they touched, each recomputed from all its observations (one or two hours of them, which
  //    the observation store holds from its writes). Each is one call for all ports, so a store
  //    that may write in batches (the only writer, under the ingest's lease) writes across ports.
  await deps.observations.putMany(plans.flatMap((plan) => plan.fresh));
  const contributions = await mapLimit([...touched.values()], HOURS_IN_FLIGHT, async (hour) => {
    const range = localHourRange(hour.localDate, hour.hour, hour.zone);
    const observations = await deps.observations.query(hour.portId, range.startMs, range.endMs - 1);
    return contributionsOfDay(hour.portId, hour.localDate, hour.zone, observations, hour.buckets);
  });
  await deps.rollups.putContributions(contributions.flat());

  return Promise.allSettled(
    plans.map(async ({ parsed, health, fetchedAt, older, forward, portsForward, zones, fresh, ports }) => {
      // 2. Remember what must be published before latest moves on (a crash after this point
      //    would otherwise leave the averages documents and the events behind).
      health.pendingPublish = [...new Set([...health.pendingPublish, ...ports])];
      const documentTime =
        parsed.generatedAt === null ? fetchedAt : new Date(parsed.generatedAt).toISOString();
      health.pendingEvents = mergeEvents(
        health.pendingEvents,
        portEvents(
          knownPorts.filter((state) => state.source === parsed.source),
          parsed.ports.filter((port) => portsForward.has(port.portId)),
          documentTime,
          fetchedAt,
        ),
      );
      health.version = await deps.health.put(health);

      // 3. Latest readings and port states, forward only, and only those that changed; then the
      //    sighting that stands for the rest (last: a crash before it leaves the last one, whose
      //    times are then those of the items as they were).
      if (!older) {
        const writes = latestWrites(
          parsed.source,
          fetchedAt,
          {
            readings: parsed.readings
              .filter((reading) => forward(reading))
              .map((reading) => ({ ...reading, fetchedAt })),
            ports: parsed.ports
              .filter((port) => portsForward.has(port.portId))
              .map((port) => ({ ...port, timeZone: zones.get(port.portId) ?? null, fetchedAt })),
          },
          {
            readings: known,
            ports: knownPorts,
            sighting: sightings.find((s) => s.source === parsed.source),
          },
        );
        await Promise.all([deps.latest.putReadings(writes.readings), deps.latest.putPorts(writes.ports)]);
        await deps.latest.putSighting(writes.sighting);
      }
      return { newObservations: fresh.length, ports, older };
    }),
  );
}

/**
 * What of a document may move latest: nothing when the document is older than the source's last
 * good one; else each reading not older than the stored reading of its lane (an "update pending"
 * without a time does not replace a timed reading), and the port state of each port whose newest
 * reading is not older than the newest stored one.
 */
function ordering(
  parsed: ParsedFeed,
  health: FeedHealth,
  knownByLane: ReadonlyMap<string, LatestReading>,
): {
  older: boolean;
  forward: (reading: ParsedFeed['readings'][number]) => boolean;
  portsForward: Set<string>;
} {
  const older =
    parsed.generatedAt !== null &&
    health.lastGeneratedAt !== null &&
    Date.parse(parsed.generatedAt) < Date.parse(health.lastGeneratedAt);
  const timeOf = (at: string | null | undefined) => (at ? Date.parse(at) : Number.NaN);
  const forward = (reading: ParsedFeed['readings'][number]): boolean => {
    if (older) return false;
    const before = timeOf(knownByLane.get(laneKey(reading))?.observedAt);
    const now = timeOf(reading.observedAt);
    // "Update pending" (no time, no wait) carries no reading of its own: a lane that has a timed
    // reading keeps it, rather than flapping between it and "pending" as CBP's page refreshes.
    if (Number.isNaN(now) && reading.status === 'update-pending' && !Number.isNaN(before)) return false;
    return Number.isNaN(before) || Number.isNaN(now) || now >= before;
  };
  const newest = new Map<string, { known: number; parsed: number }>();
  for (const reading of parsed.readings) {
    const entry = newest.get(reading.portId) ?? {
      known: Number.NEGATIVE_INFINITY,
      parsed: Number.NEGATIVE_INFINITY,
    };
    const known = timeOf(knownByLane.get(laneKey(reading))?.observedAt);
    const now = timeOf(reading.observedAt);
    if (!Number.isNaN(known)) entry.known = Math.max(entry.known, known);
    if (!Number.isNaN(now)) entry.parsed = Math.max(entry.parsed, now);
    newest.set(reading.portId, entry);
  }
  const portsForward = new Set<string>();
  if (!older) {
    for (const port of parsed.ports) {
      const times = newest.get(port.portId);
      const behind = times !== undefined && Number.isFinite(times.parsed) && times.parsed < times.known;
      if (!behind) portsForward.add(port.portId);
    }
  }
  return { older, forward, portsForward };
}

/** Publishes the snapshot documents and the averages of the given ports, then clears pending work. */
export async function publish(deps: IngestDeps, averagesFor: ReadonlySet<string>): Promise<void> {
  const nowMs = deps.clock.now();
  const { readings, ports: states } = await deps.latest.all();
  const health = (await Promise.all(deps.sources.map((s) => deps.health.get(s.source)))).filter(
    (h): h is FeedHealth => h !== undefined,
  );
  const documents: BuiltDocument[] = buildSnapshotDocuments({ readings, states, health, nowMs });
  const ports = publishedPorts(states);
  // Every port gets an averages document (`[]` until aggregates exist); recomputed when touched.
  const averages = await mapLimit(ports, 4, async (port) =>
    // Checked under the lower-case id the CDN reads (the last name a port's documents gained).
    !averagesFor.has(port.id) && (await deps.documents.exists(DOCUMENT_KEYS.averages(port.id.toLowerCase())))
      ? []
      : buildAverageDocuments(port, await deps.rollups.averages(port.id)),
  );
  documents.push(...averages.flat());
  // A port gets its forecast document (no lanes until the forecast step issues one) before any
  // index lists it.
  const forecasts = await mapLimit(ports, 4, async (port) =>
    (await deps.documents.exists(DOCUMENT_KEYS.forecast(port.id.toLowerCase())))
      ? []
      : buildForecastDocuments(port, portForecastBody(port.id, null, {}), new Date(nowMs).toISOString()),
  );
  documents.push(...forecasts.flat());
  // And its typical-waits document (`typical: []` until CBP's are first fetched).
  const typical = await mapLimit(ports, 4, async (port) =>
    (await deps.documents.exists(DOCUMENT_KEYS.typical(port.id.toLowerCase())))
      ? []
      : buildTypicalDocuments(port, emptyTypicalBody(port.id), new Date(nowMs).toISOString()),
  );
  documents.push(...typical.flat());
  documents.push(...(await eventDocuments(deps, health, nowMs, ports)));
  // Leaves before indexes: every per-port document is out before any document that lists the port.
  const write = (batch: readonly BuiltDocument[]) =>
    mapLimit(batch, 16, (doc) =>
      deps.documents.put(doc.key, doc.body, {
        contentType: doc.contentType ?? JSON_CONTENT_TYPE,
        cacheControl: doc.cacheControl,
        contentHash: doc.contentHash,
      }),
    );
  await write(documents.filter((doc) => isPortDocument(doc.key)));
  await write(documents.filter((doc) => !isPortDocument(doc.key)));
  await Promise.all(
    health
      .filter((h) => h.pendingPublish.length > 0 || h.pendingEvents.length > 0)
      .map((h) => deps.health.put({ ...h, pendingPublish: [], pendingEvents: [] })),
  );
}

/**
 * The event log and the RSS feeds, rebuilt when events are pending (or the feeds are missing).
 * The log is read back from the published document, so every instance shares it; merging by id
 * makes a rerun after a crash harmless.
 */
async function eventDocuments(
  deps: IngestDeps,
  health: readonly FeedHealth[],
  nowMs: number,
  ports: readonly { id: string; slug: string; name: string }[],
): Promise<BuiltDocument[]> {
  const pending = health.flatMap((h) => h.pendingEvents);
  if (pending.length === 0 && (await deps.documents.exists(RSS_KEYS.all))) return [];
  const published = await deps.documents.get(DOCUMENT_KEYS.events);
  const log = published ? (JSON.parse(published.body) as { events: ServiceEvent[] }).events : [];
  const events = mergeEvents(log, pending);
  return [
    buildDocument(
      DOCUMENT_KEYS.events,
      CACHE_CONTROL.events,
      { count: events.length, events },
      new Date(nowMs).toISOString(),
    ),
    ...buildRssDocuments(events, ports),
  ];
}
