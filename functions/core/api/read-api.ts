/**
 * The four read views of `/api/v1` as use cases. The precomputed views are the very documents the
 * publisher wrote (so keyed and CDN answers are byte-identical); observations are queried live.
 */

import { InvalidQueryError, NotFoundError } from '../errors.ts';
import { portForecastBody } from '../forecast/forecast-views.ts';
import {
  OBSERVATION_CSV_COLUMNS,
  type Observation,
  type PublishedDocument,
  RETENTION_HOURS,
} from '../model.ts';
import type { Clock, DocumentStore, ObservationStore } from '../stores.ts';
import type { ObservationSchema, ObservationsBodySchema, Written } from '../views/api-schemas.ts';
import { createPortDirectory } from '../views/port-directory.ts';
import {
  type AveragesQuery,
  type CurrentQuery,
  type ForecastQuery,
  MAX_OBSERVATIONS,
  type ObservationsQuery,
  type PortsQuery,
  type TypicalQuery,
} from '../views/queries.ts';
import { VIEW_PATHS } from '../views/view-paths.ts';
import { CACHE_CONTROL, type PublishedPort } from '../views/views.ts';

export type ReadResult =
  | { kind: 'document'; document: PublishedDocument }
  | { kind: 'json'; body: unknown; cacheControl: string; lastModified: string };

export interface ReadApiDeps {
  documents: DocumentStore;
  observations: ObservationStore;
  clock: Clock;
}

/** One observation of a `wait-observations` page. */
export type ObservationRow = Written<typeof ObservationSchema, 'maxLanes'>;

/** One page of `wait-observations`: it always says whether more follow (`truncated`) and where (`next`). */
export type ObservationsBody = Omit<
  Written<typeof ObservationsBodySchema, 'truncated' | 'next'>,
  'observations'
> & {
  observations: ObservationRow[];
};

/** Fields an observation has besides any extra ones a feed gave (kept in a row as they are). */
const OBSERVATION_FIELDS = new Set<string>([...OBSERVATION_CSV_COLUMNS, 'fetchedAt']);

/**
 * An observation as a page lists it: without its port id and fetch time. Copied field by field (a
 * page holds up to 10,000, and an object rest copy costs several times more), extra fields after.
 */
function rowOf(o: Observation): ObservationRow {
  const row: ObservationRow = {
    direction: o.direction,
    mode: o.mode,
    lane: o.lane,
    status: o.status,
    delayMinutes: o.delayMinutes,
    lanesOpen: o.lanesOpen,
    maxLanes: o.maxLanes,
    observedAt: o.observedAt,
    source: o.source,
  };
  const keys = Object.keys(o);
  if (keys.length > OBSERVATION_FIELDS.size) {
    for (const key of keys) {
      if (!OBSERVATION_FIELDS.has(key))
        (row as Record<string, unknown>)[key] = (o as unknown as Record<string, unknown>)[key];
    }
  }
  return row;
}

/** The window a cursor was issued for travels inside it, so every page reads the same window. */
interface WindowCursor {
  /** The store's own cursor. */
  s: string;
  /** Window end (ms). */
  to: number;
}

function encodeWindowCursor(cursor: WindowCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeWindowCursor(cursor: string): WindowCursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<WindowCursor>;
    if (typeof value.s === 'string' && typeof value.to === 'number' && Number.isFinite(value.to)) {
      return { s: value.s, to: value.to };
    }
  } catch {
    // Falls through to the refusal below.
  }
  throw new InvalidQueryError(
    'cursor is not one this API issued: pass the `next` of the previous page unchanged, or start again without it',
    'cursor',
  );
}

export function createReadApi(deps: ReadApiDeps) {
  const directory = createPortDirectory(deps);

  async function requireDocument(key: string, what: string): Promise<PublishedDocument> {
    const document = await deps.documents.get(key);
    if (!document) throw new NotFoundError(`${what} has not been published yet; the first ingest creates it`);
    return document;
  }

  /**
   * A port's precomputed document of `view` (the one the CDN serves for the same `port_id`), or
   * `empty` as the view answers before the document is out.
   */
  async function portView(
    view: 'averages' | 'forecast' | 'typical',
    idOrSlug: string,
    empty: (port: PublishedPort) => unknown,
  ): Promise<ReadResult> {
    const port = await directory.resolve(idOrSlug);
    const document = await deps.documents.get(VIEW_PATHS[view].document({ port_id: port.id }));
    if (document) return { kind: 'document', document };
    return {
      kind: 'json',
      body: empty(port),
      cacheControl: CACHE_CONTROL[view],
      lastModified: new Date(deps.clock.now()).toUTCString(),
    };
  }

  return {
    /** The port an id or slug names (any case, string or number); {@link UnknownPortError} if none. */
    resolvePort: directory.resolve,
    /** Every port as published (the catalogue before the first publish), from the same cache. */
    listPorts: directory.list,
    async ports(query: PortsQuery): Promise<ReadResult> {
      return {
        kind: 'document',
        document: await requireDocument(VIEW_PATHS.ports.document(query), 'the port list'),
      };
    },
    async current(query: CurrentQuery): Promise<ReadResult> {
      return {
        kind: 'document',
        document: await requireDocument(VIEW_PATHS.current.document(query), 'the current view'),
      };
    },
    async averages(query: AveragesQuery): Promise<ReadResult> {
      // A known port whose document is not out yet has no aggregates: the contract's empty list.
      return portView('averages', query.port_id, () => []);
    },
    async forecast(query: ForecastQuery): Promise<ReadResult> {
      // A known port with no forecast issued yet: no lanes, never an invented number.
      return portView('forecast', query.port_id, (port) => portForecastBody(port.id, null, {}));
    },
    async typical(query: TypicalQuery): Promise<ReadResult> {
      // A known port before CBP's typical waits were first fetched: none, never invented.
      return portView('typical', query.port_id, (port) => ({
        portId: port.id,
        source: 'cbp',
        fetchedAt: null,
        typical: [],
      }));
    },
    async forecastSkill(): Promise<ReadResult> {
      return {
        kind: 'document',
        document: await requireDocument(VIEW_PATHS.forecastSkill.document(), 'the forecast skill summary'),
      };
    },
    /**
     * One page of a port's observations, oldest first: the whole window page by page, `limit` per
     * page (at most {@link MAX_OBSERVATIONS}); `next` is the following page (null on the last).
     */
    async observations(
      query: ObservationsQuery,
      limit: number = MAX_OBSERVATIONS,
    ): Promise<ReadResult & { kind: 'json'; body: ObservationsBody; nextCursor: string | null }> {
      const port = await directory.resolve(query.port_id);
      const hours = Math.min(query.hours ?? 24, RETENTION_HOURS);
      const position = query.cursor === undefined ? null : decodeWindowCursor(query.cursor);
      // The window ends at the last full minute, not at the request's millisecond: two requests
      // in one minute over the same readings get the same body, so the same ETag (and a 304).
      // Feed times are whole minutes, so a reading is in the window from its own minute on.
      const nowMs = Math.floor(deps.clock.now() / 60_000) * 60_000;
      // A cursor keeps its window's end, so a window read page by page is one consistent window.
      const toMs = position ? Math.min(position.to, nowMs) : nowMs;
      const fromMs = toMs - hours * 3_600_000;
      const filter = { direction: query.direction, mode: query.mode, lane: query.lane };
      const page = await deps.observations.page(
        port.id,
        fromMs,
        toMs,
        filter,
        position?.s ?? null,
        Math.min(Math.max(1, limit), MAX_OBSERVATIONS),
      );
      const nextCursor = page.next === null ? null : encodeWindowCursor({ s: page.next, to: toMs });
      const newestFetch = page.observations.reduce((a, o) => (o.fetchedAt > a ? o.fetchedAt : a), '');
      const params = new URLSearchParams({ port_id: port.id, hours: String(hours) });
      for (const [name, value] of Object.entries(filter)) if (value !== undefined) params.set(name, value);
      if (nextCursor !== null) params.set('cursor', nextCursor);
      return {
        kind: 'json',
        cacheControl: CACHE_CONTROL.observations,
        lastModified: new Date(newestFetch ? Date.parse(newestFetch) : toMs).toUTCString(),
        nextCursor,
        body: {
          portId: port.id,
          hours,
          retentionHours: RETENTION_HOURS,
          from: new Date(fromMs).toISOString(),
          to: new Date(toMs).toISOString(),
          count: page.observations.length,
          truncated: nextCursor !== null,
          next: nextCursor === null ? null : `/api/v1/wait-observations?${params}`,
          observations: page.observations.map(rowOf),
        },
      };
    },
  };
}

export type ReadApi = ReturnType<typeof createReadApi>;
