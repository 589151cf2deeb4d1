/**
 * The small interfaces the core needs from the outside world. Adapters (DynamoDB, S3, HTTP)
 * implement them; tests hand in real local services or fault-injecting wrappers.
 */
import type {
  Direction,
  FeedHealth,
  Lane,
  LatestPortState,
  LatestReading,
  Mode,
  Observation,
  PublishedDocument,
  Source,
} from './model.ts';

/**
 * The last document of a source that moved `latest`: when it was fetched, and the lanes and ports
 * of that source it did not carry (`absent`, keys of {@link latestKeyOf}). A lane or port the
 * document carried was fetched then, whether or not its item was written again: the ingest writes
 * an item only when its content changed, and this one record per source stands for the rest.
 */
export interface LatestSighting {
  source: Source;
  fetchedAt: string;
  absent: string[];
}

/**
 * Latest readings and port states. `all()` gives each its `fetchedAt` as of the last document that
 * carried it (its item's own, or its source's sighting when later and the item is not absent
 * there: {@link resolveSightings}), and the sightings themselves.
 */
export interface LatestStore {
  all(): Promise<{ readings: LatestReading[]; ports: LatestPortState[]; sightings: LatestSighting[] }>;
  putReadings(readings: readonly LatestReading[]): Promise<void>;
  putPorts(ports: readonly LatestPortState[]): Promise<void>;
  /** Written after the items of the document it records (a crash before it leaves the last one). */
  putSighting(sighting: LatestSighting): Promise<void>;
}

/** A lane's or a port state's key in a sighting's `absent` list. */
export function latestKeyOf(
  item: { portId: string; direction: string; mode: string; lane: string } | { portId: string },
): string {
  return 'lane' in item
    ? `lane#${item.portId}#${item.direction}#${item.mode}#${item.lane}`
    : `port#${item.portId}`;
}

/**
 * Each item's `fetchedAt`: the later of its own and its source's sighting, unless the sighting
 * lists it as absent (then its own, written when it went absent). Items come back as new objects
 * only where the time moves.
 */
export function resolveSightings<T extends LatestReading | LatestPortState>(
  items: readonly T[],
  sightings: readonly LatestSighting[],
): T[] {
  if (sightings.length === 0) return [...items];
  const bySource = new Map(sightings.map((s) => [s.source, { at: s.fetchedAt, absent: new Set(s.absent) }]));
  return items.map((item) => {
    const sighting = bySource.get(item.source);
    if (!sighting || sighting.at <= item.fetchedAt || sighting.absent.has(latestKeyOf(item))) return item;
    return { ...item, fetchedAt: sighting.at };
  });
}

export interface ObservationFilter {
  direction?: Direction;
  mode?: Mode;
  lane?: Lane;
}

/** One page of observations and the opaque cursor of the next page (null on the last one). */
export interface ObservationPage {
  observations: Observation[];
  next: string | null;
}

export interface ObservationStore {
  /** Idempotent: writing an observation again leaves one copy. */
  putMany(observations: readonly Observation[]): Promise<void>;
  /**
   * The window `fromMs <= observedAt <= toMs` of one port, oldest first, never expired ones, at most
   * `limit` per page: start with `cursor` null, then pass each page's `next` until it is null. Every
   * observation of the window is returned exactly once across the pages. A cursor that this store
   * did not issue for this port is an `InvalidQueryError` on `cursor`.
   */
  page(
    portId: string,
    fromMs: number,
    toMs: number,
    filter: ObservationFilter,
    cursor: string | null,
    limit: number,
  ): Promise<ObservationPage>;
  /**
   * Observations of one port with `fromMs <= observedAt <= toMs`, oldest first, never expired ones;
   * with `limit`, only the newest `limit` of them (still oldest first).
   */
  query(
    portId: string,
    fromMs: number,
    toMs: number,
    filter?: ObservationFilter,
    limit?: number,
  ): Promise<Observation[]>;
  /**
   * {@link query} (without filter or limit) of several ports over one short range, read together
   * (optional: a store that can read many ports in one request offers it).
   */
  queryMany?(portIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, Observation[]>>;
}

export interface HealthStore {
  get(source: Source): Promise<FeedHealth | undefined>;
  /**
   * Writes `health` if the stored version is still `health.version` (the one it was read at), and
   * returns the new version; throws `ConcurrentUpdateError` when another writer came first.
   */
  put(health: FeedHealth): Promise<number>;
}

export interface DocumentStore {
  /** Writes the document unless its content hash is unchanged; says whether it wrote. */
  put(
    key: string,
    body: string,
    meta: { contentType: string; cacheControl: string; contentHash: string },
  ): Promise<boolean>;
  get(key: string): Promise<PublishedDocument | undefined>;
  /** Whether a document exists (adapters may cache the answer). */
  exists(key: string): Promise<boolean>;
}

export type FeedFetchResult =
  | { kind: 'unchanged' }
  | {
      kind: 'document';
      body: Uint8Array;
      contentType: string | null;
      etag: string | null;
      lastModified: string | null;
    };

export interface FeedSource {
  readonly source: Source;
  readonly url: string;
  /** Throws `FeedFetchError` on network errors, timeouts, HTTP errors, oversized bodies. */
  fetch(validators: { etag: string | null; lastModified: string | null }): Promise<FeedFetchResult>;
}

/** Exports (MCP `export_observations`) are written under this key prefix; a lifecycle rule expires them. */
export const EXPORTS_PREFIX = 'exports/';

/** Where large exports go: stored, then handed out as a short-lived link. */
export interface ExportStore {
  /** Stores `body` under `key` and returns a GET URL valid for `ttlSeconds`. */
  publish(key: string, body: string, contentType: string, ttlSeconds: number): Promise<string>;
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
