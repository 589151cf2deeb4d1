/**
 * The small interfaces the core needs from the outside world. Adapters (DynamoDB, S3, HTTP)
 * implement them; tests hand in real local services or fault-injecting wrappers.
 */
import type { ServiceEvent } from './events.ts';
import type { Direction, FeedFormat, Lane, Mode, PortSnapshot, Reading, Source } from './model.ts';

/** A reading with its own source time, stored once (identity: port, direction, mode, lane, observedAt). */
export interface Observation extends Reading {
  observedAt: string;
  fetchedAt: string;
}

/** The latest state of one lane, with when we read it. */
export interface LatestReading extends Reading {
  fetchedAt: string;
}

/** The latest port-level state one source gave for a port. */
export interface LatestPortState extends PortSnapshot {
  /** IANA zone used to read this port's times (from the catalogue or the abbreviation). */
  timeZone: string | null;
  fetchedAt: string;
}

export interface LatestStore {
  all(): Promise<{ readings: LatestReading[]; ports: LatestPortState[] }>;
  putReadings(readings: readonly LatestReading[]): Promise<void>;
  putPorts(ports: readonly LatestPortState[]): Promise<void>;
}

export interface ObservationFilter {
  direction?: Direction;
  mode?: Mode;
  lane?: Lane;
}

export interface ObservationStore {
  /** Idempotent: writing an observation again leaves one copy. */
  putMany(observations: readonly Observation[]): Promise<void>;
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
}

export interface FeedHealth {
  source: Source;
  url: string;
  format: FeedFormat | null;
  lastAttemptAt: string | null;
  lastSuccessAt: string | null;
  /** Last time the document's content changed (a new document was stored). */
  lastChangeAt: string | null;
  lastError: { at: string; message: string } | null;
  consecutiveFailures: number;
  /** Ports in the last good document (the sanity check compares against it). */
  lastPortCount: number | null;
  lastReadingCount: number | null;
  lastRejectCount: number | null;
  lastNewObservations: number | null;
  lastDurationMs: number | null;
  /** The last good document's own generation time. */
  lastGeneratedAt: string | null;
  /** Conditional-GET validators of the last good response. */
  etag: string | null;
  lastModified: string | null;
  /** A few rejects of the last document, for operators. */
  rejectSample: { portId: string | null; code: string; reason: string }[];
  /** Ports whose averages documents still need publishing (survives a crash before publish). */
  pendingPublish: string[];
  /** Events seen but not yet in the published log and feeds (cleared by the publisher). */
  pendingEvents: ServiceEvent[];
  /** Writes so far (0 or absent: never written); each write is conditional on it. */
  version?: number;
}

export interface HealthStore {
  get(source: Source): Promise<FeedHealth | undefined>;
  /**
   * Writes `health` if the stored version is still `health.version` (the one it was read at), and
   * returns the new version; throws `ConcurrentUpdateError` when another writer came first.
   */
  put(health: FeedHealth): Promise<number>;
}

export interface PublishedDocument {
  body: string;
  etag: string;
  lastModified: string;
  contentType: string;
  cacheControl: string;
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

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
