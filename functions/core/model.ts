/**
 * The domain vocabulary of the service (see DESIGN.md section 3). Every layer speaks these names:
 * the parsers produce them, the stores keep them, the API and MCP tools return them.
 */

/** `into-us` comes from CBP, `into-canada` from CBSA. Mexico-bound waits have no official feed. */
export const DIRECTIONS = ['into-us', 'into-canada'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export const MODES = ['passenger', 'pedestrian', 'commercial'] as const;
export type Mode = (typeof MODES)[number];

/** `sentri` is the trusted-traveller lane on the Mexican border, `nexus` on the Canadian one. */
export const LANES = ['standard', 'ready', 'sentri', 'nexus', 'fast'] as const;
export type Lane = (typeof LANES)[number];

export const LANE_STATUSES = [
  'open',
  'lanes-closed',
  'update-pending',
  'not-applicable',
  'not-reported',
  'port-closed',
] as const;
export type LaneStatus = (typeof LANE_STATUSES)[number];

export const SOURCES = ['cbp', 'cbsa'] as const;
export type Source = (typeof SOURCES)[number];

export const BORDERS = ['mx', 'ca'] as const;
export type Border = (typeof BORDERS)[number];

export const FRESHNESS = ['fresh', 'stale', 'expired'] as const;
export type Freshness = (typeof FRESHNESS)[number];

/** Format of one feed document. */
export type FeedFormat = 'cbp-xml' | 'cbp-json' | 'cbsa-csv';

/**
 * One lane's state in one feed document.
 *
 * `observedAt` is the reading's own time (UTC ISO 8601) when the source gave one. Lanes without
 * their own time (`N/A`, `Update Pending`, `Lanes Closed`, a closed port) carry `observedAt: null`;
 * they update the latest view but never become an observation.
 */
export interface Reading {
  portId: string;
  direction: Direction;
  mode: Mode;
  lane: Lane;
  status: LaneStatus;
  /** Minutes, only when the source gave a number ("no delay" with 5 minutes stays 5). */
  delayMinutes: number | null;
  /** Only when the source gave it. */
  lanesOpen: number | null;
  /** Maximum lanes of the mode at this port, when published (`N/A` is null). */
  maxLanes: number | null;
  observedAt: string | null;
  source: Source;
}

/** Port-level state carried by a feed document (one per port in the document). */
export interface PortSnapshot {
  portId: string;
  source: Source;
  /** Name as the feed spelled it. */
  name: string;
  crossing: string | null;
  border: Border | null;
  /** Port status as published; CBSA has none (`null`). */
  portStatus: 'open' | 'closed' | null;
  hours: string | null;
  /** Construction or border notice, trimmed; null when empty. */
  notice: string | null;
  /** True when the port is not in the catalogue (read anyway, zone from the abbreviation). */
  uncatalogued: boolean;
}

/** A lane (or a row) of the document that did not become a reading, with the reason. */
export interface Reject {
  portId: string | null;
  mode: Mode | null;
  lane: Lane | null;
  direction: Direction | null;
  /** Short stable code, e.g. `future-time`, `bad-delay`, `unknown-status`, `not-published`. */
  code: string;
  /** Human-readable reason, naming the offending value. */
  reason: string;
}

/** What every parser returns. Only a wholly unusable document is an error (`FeedFormatError`). */
export interface ParsedFeed {
  source: Source;
  format: FeedFormat;
  /** The document's own generation time (UTC ISO 8601), or null when it has none. */
  generatedAt: string | null;
  /** The document's own port count (`number_of_ports`), or null when it states none. */
  declaredPortCount: number | null;
  ports: PortSnapshot[];
  readings: Reading[];
  rejects: Reject[];
}

/** Geographic point, only where a public source gives one. */
export interface GeoPoint {
  lat: number;
  lon: number;
}

/** A catalogue entry (DESIGN.md section 4 `Port`, plus catalogue-only fields). */
export interface Port {
  /** CBP `port_number` as a string (`250401`, `l24501`), or `cbsa-<slug>` for a CBSA-only office. */
  id: string;
  slug: string;
  name: string;
  crossing: string | null;
  border: Border;
  /** US state (two letters) of the US side; for a CBSA-only office, the US state across. */
  state: string;
  /** US city. */
  city: string;
  /** The city across the border (Mexican or Canadian side). */
  twinCity: string | null;
  /** Province (CA) or state (MX) of the twin city, when known. */
  twinRegion: string | null;
  timeZone: string;
  location: GeoPoint | null;
  /** Opening hours as published by CBP (`24 hrs/day`, `6 am-10 pm`), or null. */
  hours: string | null;
  directions: Direction[];
  /** CBSA office names (all spellings seen, English and French) mapped to this port. */
  cbsaOffices: string[];
  /** CBP `bwtId` (field office prefix + port number), when known. */
  bwtId: string | null;
}

/** One hour x day-of-week bucket of a port lane, in the port's local time. */
export interface HourlyAverage {
  portId: string;
  direction: Direction;
  mode: Mode;
  lane: Lane;
  /** 0 = Sunday, port-local. */
  dayOfWeek: number;
  /** 0-23, port-local. */
  hour: number;
  averageDelayMinutes: number;
  /** Exact median of the samples; null only for aggregates built before medians were kept. */
  medianDelayMinutes: number | null;
  samples: number;
}

/** The forecasting methods, each scored in the track record (functions/core/forecast/). */
export const METHODS = ['model', 'persistence', 'profile'] as const;
export type Method = (typeof METHODS)[number];

/** Raw observations are kept this long (DESIGN.md section 6): TTL, query filter and API clamp. */
export const RETENTION_HOURS = 336;

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

export interface PublishedDocument {
  body: string;
  etag: string;
  lastModified: string;
  contentType: string;
  cacheControl: string;
}

/** What the RSS feeds announce (see events.ts). */
export const EVENT_TYPES = [
  'port-closed',
  'port-reopened',
  'notice-changed',
  'feed-outage',
  'feed-recovered',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface ServiceEvent {
  id: string;
  type: EventType;
  /** When the service saw it (ISO 8601 UTC). */
  at: string;
  source: Source;
  /** Null for feed events. */
  portId: string | null;
  title: string;
  description: string;
}

/** The columns of the observations CSV: what export_observations writes and the backtest reads. */
export const OBSERVATION_CSV_COLUMNS = [
  'portId',
  'direction',
  'mode',
  'lane',
  'status',
  'delayMinutes',
  'lanesOpen',
  'maxLanes',
  'observedAt',
  'source',
] as const;
