/**
 * The published JSON views of `/api/v1` (DESIGN.md section 4), built from the latest readings,
 * the catalogue and the rollups. The same bodies are served by the CDN (from S3) and by the keyed API.
 */
import { createHash } from 'node:crypto';
import { PORTS } from '../catalogue/catalogue.ts';
import { FRESHNESS_POLICY, freshnessOf } from '../freshness.ts';
import type { FeedHealth, HourlyAverage, LatestPortState, LatestReading } from '../model.ts';
import { ZONE_FOR_ABBREVIATION } from '../time.ts';
import type { BodyOf, CurrentSchema, LaneWaitSchema, PortSchema, Written } from './api-schemas.ts';
import { DOCUMENT_KEYS, PORT_DOCUMENT_PREFIXES, portDocumentNames } from './view-paths.ts';

/** Whether `key` is a per-port document (see {@link PORT_DOCUMENT_PREFIXES}). */
export function isPortDocument(key: string): boolean {
  return PORT_DOCUMENT_PREFIXES.some((prefix) => key.startsWith(prefix));
}

export const CACHE_CONTROL = {
  ports: 'public, max-age=300, s-maxage=300, stale-while-revalidate=60, stale-if-error=86400',
  current: 'public, max-age=30, s-maxage=60, stale-while-revalidate=30, stale-if-error=600',
  averages: 'public, max-age=600, s-maxage=600, stale-while-revalidate=60, stale-if-error=86400',
  feedHealth: 'public, max-age=30, s-maxage=30',
  events: 'public, max-age=60, s-maxage=30',
  observations: 'public, max-age=60',
  forecast: 'public, max-age=300, s-maxage=300, stale-while-revalidate=60, stale-if-error=3600',
  typical: 'public, max-age=3600, s-maxage=3600, stale-while-revalidate=300, stale-if-error=86400',
} as const;

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A port as published: the catalogue entry (or what the feed says of an uncatalogued one). */
export type PublishedPort = BodyOf<typeof PortSchema>;

/** One lane's latest reading as published, with its freshness. */
export type LaneWait = Written<typeof LaneWaitSchema, 'fetchedAt'>;

/** One port's state now: the `current` of each port in `port-current?include=ports`. */
export type Current = Omit<BodyOf<typeof CurrentSchema>, 'lanes'> & { lanes: LaneWait[] };

/** A document ready to publish: body plus a hash of everything but `generatedAt`. */
export interface BuiltDocument {
  key: string;
  body: string;
  contentHash: string;
  cacheControl: string;
  /** JSON unless said otherwise. */
  contentType?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** One port's document under each of its names (`portDocumentNames`): one body and hash for all. */
export function buildPortDocuments(
  port: { id: string },
  keyOf: (name: string) => string,
  cacheControl: string,
  payload: unknown,
  generatedAt?: string,
): BuiltDocument[] {
  const built = buildDocument(keyOf(port.id), cacheControl, payload, generatedAt);
  return portDocumentNames(port).map((name) => ({ ...built, key: keyOf(name) }));
}

/** An own key JSON puts before every other (an array index), whatever the order it was set in. */
const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

/**
 * `JSON.stringify({ generatedAt, ...payload })` from the payload's JSON already made: the field
 * spliced in first rather than the payload serialised again (a slot's forecast documents are
 * megabytes). Where the splice could differ (the payload has its own `generatedAt`, an index key
 * JSON would put first, or a `toJSON`), the object is serialised as it is.
 */
function stampedJson(payload: object, json: string, generatedAt: string): string {
  const keys = Object.keys(payload);
  const plain =
    typeof (payload as { toJSON?: unknown }).toJSON !== 'function' &&
    !keys.some((key) => key === 'generatedAt' || INDEX_KEY.test(key));
  if (!plain) return JSON.stringify({ generatedAt, ...payload });
  const stamp = `{"generatedAt":${JSON.stringify(generatedAt)}`;
  return json === '{}' ? `${stamp}}` : `${stamp},${json.slice(1)}`;
}

/**
 * Builds a document whose body carries `generatedAt` first, and whose hash (of the payload's JSON)
 * ignores it. A body without `generatedAt` is that JSON already, hashed as it is.
 */
export function buildDocument(
  key: string,
  cacheControl: string,
  payload: unknown,
  generatedAt?: string,
): BuiltDocument {
  const json = JSON.stringify(payload);
  const stamped =
    generatedAt !== undefined && payload !== null && typeof payload === 'object' && !Array.isArray(payload);
  const body = stamped ? stampedJson(payload, json, generatedAt) : json;
  return { key, body, cacheControl, contentHash: sha256(json) };
}

const LANE_ORDER = ['standard', 'ready', 'sentri', 'nexus', 'fast'];
const MODE_ORDER = ['passenger', 'pedestrian', 'commercial'];

function laneWait(reading: LatestReading, nowMs: number): LaneWait {
  const at = reading.observedAt ?? reading.fetchedAt;
  return {
    direction: reading.direction,
    mode: reading.mode,
    lane: reading.lane,
    status: reading.status,
    delayMinutes: reading.delayMinutes,
    lanesOpen: reading.lanesOpen,
    maxLanes: reading.maxLanes,
    observedAt: reading.observedAt,
    fetchedAt: reading.fetchedAt,
    freshness: freshnessOf(reading.source, Date.parse(at), nowMs),
    source: reading.source,
  };
}

/** The order of lanes in every document: direction, then mode, then lane, each in its own order. */
export function compareLanes(
  a: Pick<LaneWait, 'direction' | 'mode' | 'lane'>,
  b: Pick<LaneWait, 'direction' | 'mode' | 'lane'>,
): number {
  return (
    a.direction.localeCompare(b.direction) ||
    MODE_ORDER.indexOf(a.mode) - MODE_ORDER.indexOf(b.mode) ||
    LANE_ORDER.indexOf(a.lane) - LANE_ORDER.indexOf(b.lane)
  );
}

/** The catalogue plus every uncatalogued port a feed has shown, sorted by border then id. */
export function publishedPorts(states: readonly LatestPortState[]): PublishedPort[] {
  const ports = new Map<string, PublishedPort>();
  for (const port of PORTS) ports.set(port.id, { ...port, catalogued: true });
  for (const state of states) {
    const known = ports.get(state.portId);
    if (known) {
      // The feed's latest published hours win over the catalogue's copy.
      if (state.source === 'cbp' && state.hours) known.hours = state.hours;
      continue;
    }
    ports.set(state.portId, {
      id: state.portId,
      slug: state.portId.toLowerCase(),
      name: state.name,
      crossing: state.crossing,
      border: state.border ?? 'ca',
      state: '',
      city: '',
      twinCity: null,
      twinRegion: null,
      timeZone: state.timeZone ?? ZONE_FOR_ABBREVIATION.E ?? 'America/New_York',
      location: null,
      hours: state.hours,
      directions: [state.source === 'cbp' ? 'into-us' : 'into-canada'],
      cbsaOffices: state.source === 'cbsa' ? [state.name] : [],
      bwtId: null,
      catalogued: false,
    });
  }
  return [...ports.values()].sort((a, b) => a.border.localeCompare(b.border) || a.id.localeCompare(b.id));
}

/** `Current` of every port that has at least one latest reading. */
export function currentByPort(
  readings: readonly LatestReading[],
  states: readonly LatestPortState[],
  nowMs: number,
): Map<string, Current> {
  const lanes = new Map<string, LaneWait[]>();
  for (const reading of readings) {
    const list = lanes.get(reading.portId) ?? [];
    list.push(laneWait(reading, nowMs));
    lanes.set(reading.portId, list);
  }
  const cbpState = new Map(states.filter((s) => s.source === 'cbp').map((s) => [s.portId, s]));
  const notices = new Map<string, string>();
  for (const state of states)
    if (state.notice && !notices.has(state.portId)) notices.set(state.portId, state.notice);
  const result = new Map<string, Current>();
  for (const [portId, list] of lanes) {
    list.sort(compareLanes);
    // The newest reading's own time: a lane without one (closed, not applicable) only says when it
    // was fetched, which would make an old reading look new; so fetch times count only where no lane has a time.
    const times = list.flatMap((lane) => (lane.observedAt ? [lane.observedAt] : []));
    const updatedAt = (times.length > 0 ? times : list.map((lane) => lane.fetchedAt)).reduce((a, b) =>
      Date.parse(a) > Date.parse(b) ? a : b,
    );
    result.set(portId, {
      status: cbpState.get(portId)?.portStatus === 'closed' ? 'closed' : 'open',
      updatedAt,
      notice: notices.get(portId) ?? null,
      lanes: list,
    });
  }
  return result;
}

export interface ViewInput {
  readings: readonly LatestReading[];
  states: readonly LatestPortState[];
  health: readonly FeedHealth[];
  nowMs: number;
}

/** The ports, port-current and feed-health documents. */
export function buildSnapshotDocuments(input: ViewInput): BuiltDocument[] {
  const generatedAt = new Date(input.nowMs).toISOString();
  const ports = publishedPorts(input.states);
  const current = currentByPort(input.readings, input.states, input.nowMs);
  const docs: BuiltDocument[] = [];
  for (const border of ['all', 'mx', 'ca'] as const) {
    const subset = border === 'all' ? ports : ports.filter((port) => port.border === border);
    docs.push(
      buildDocument(
        DOCUMENT_KEYS.ports(border),
        CACHE_CONTROL.ports,
        { count: subset.length, ports: subset },
        generatedAt,
      ),
    );
  }
  const flat = [...current].flatMap(([portId, c]) => c.lanes.map((lane) => ({ portId, ...lane })));
  docs.push(
    buildDocument(
      DOCUMENT_KEYS.current(false),
      CACHE_CONTROL.current,
      { count: flat.length, freshnessPolicy: FRESHNESS_POLICY, current: flat },
      generatedAt,
    ),
  );
  const withPorts = ports
    .filter((port) => current.has(port.id))
    .map((port) => ({ ...port, current: current.get(port.id) }));
  docs.push(
    buildDocument(
      DOCUMENT_KEYS.current(true),
      CACHE_CONTROL.current,
      { count: withPorts.length, freshnessPolicy: FRESHNESS_POLICY, ports: withPorts },
      generatedAt,
    ),
  );
  docs.push(
    buildDocument(DOCUMENT_KEYS.siteCurrent, CACHE_CONTROL.current, siteCurrentBody(withPorts), generatedAt),
  );
  docs.push(
    buildDocument(
      DOCUMENT_KEYS.feedHealth,
      CACHE_CONTROL.feedHealth,
      { sources: input.health.map(publicHealth) },
      generatedAt,
    ),
  );
  return docs;
}

/** One lane in the site's compact document: `[direction, mode, lane, status, delayMinutes, lanesOpen, at, freshness]`. */
export type SiteLane = [
  LaneWait['direction'],
  LaneWait['mode'],
  LaneWait['lane'],
  LaneWait['status'],
  number | null,
  number | null,
  string,
  LaneWait['freshness'],
];

/**
 * The compact document the site's pages read (`/v1/site-current.json`): every port with what a
 * page shows of it and each lane as one short array (`at` is the reading's own time, else when it
 * was fetched). About a quarter of `port-current?include=ports`, so a phone on a slow network gets
 * its first numbers sooner. Not an API view: its shape follows the site.
 */
export function siteCurrentBody(ports: readonly (PublishedPort & { current?: Current })[]) {
  return {
    ports: ports.map((port) => ({
      id: port.id,
      slug: port.slug,
      name: port.name,
      crossing: port.crossing,
      border: port.border,
      state: port.state,
      city: port.city,
      twinCity: port.twinCity ?? null,
      location: port.location,
      status: port.current?.status ?? 'open',
      notice: port.current?.notice ?? null,
      lanes: (port.current?.lanes ?? []).map(
        (lane): SiteLane => [
          lane.direction,
          lane.mode,
          lane.lane,
          lane.status,
          lane.delayMinutes,
          lane.lanesOpen,
          lane.observedAt ?? lane.fetchedAt,
          lane.freshness,
        ],
      ),
    })),
  };
}

/** Feed health as the public sees it (no validators, no pending work, no write version). */
function publicHealth(health: FeedHealth) {
  const {
    etag: _etag,
    lastModified: _lastModified,
    pendingPublish: _p,
    pendingEvents: _e,
    version: _version,
    ...rest
  } = health;
  return rest;
}

/** The hourly-averages documents of one port, under each of its document names. */
export function buildAverageDocuments(
  port: { id: string; slug: string },
  averages: readonly HourlyAverage[],
): BuiltDocument[] {
  // The public fields only: the rollups hand the forecast more (its recency-weighted centres).
  const published: HourlyAverage[] = averages.map((a) => ({
    portId: a.portId,
    direction: a.direction,
    mode: a.mode,
    lane: a.lane,
    dayOfWeek: a.dayOfWeek,
    hour: a.hour,
    averageDelayMinutes: a.averageDelayMinutes,
    medianDelayMinutes: a.medianDelayMinutes,
    samples: a.samples,
  }));
  return buildPortDocuments(port, DOCUMENT_KEYS.averages, CACHE_CONTROL.averages, published);
}
