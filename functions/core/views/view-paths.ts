/**
 * Where the published documents and the read views of `/api/v1` live: the documents' object keys,
 * each view's path and, for the precomputed views, the document a query reads (the object the CDN
 * serves). This is the half of the view table (core/api/api-views.ts) that carries no zod, so the
 * manifest, the ingest's publisher and every function bundle can read it without the schemas. The
 * CloudFront function (infra/edge/viewer-request.js) spells the same mapping in ES5;
 * test/infra/edge-views.test.ts checks that the two agree, query by query.
 */
import { PORTS } from '../catalogue/catalogue.ts';
import type { Border } from '../model.ts';
import type { AveragesQuery, CurrentQuery, ForecastQuery, PortsQuery, TypicalQuery } from './queries.ts';

/** Every published view document lives under this prefix of the data bucket (DOCUMENT_KEYS). */
export const DOCUMENTS_PREFIX = 'v1/';
const AVERAGES_FOLDER = 'v1/port-hourly-averages/';
const FORECAST_FOLDER = 'v1/port-forecast/';
const TYPICAL_FOLDER = 'v1/port-typical-waits/';
/** Each port's RSS feed, under its id and under its slug. */
export const RSS_PORT_FOLDER = 'rss/ports/';

/**
 * Key prefixes of the per-port documents (the leaves): views under the port's id, RSS feeds under
 * its id and its slug. The publisher writes all of them before any other document, since the indexes (port
 * lists, current views, events, the main RSS feed) list ports whose leaves must already answer. A
 * new per-port document adds its folder here.
 */
export const PORT_DOCUMENT_PREFIXES: readonly string[] = [
  AVERAGES_FOLDER,
  FORECAST_FOLDER,
  TYPICAL_FOLDER,
  RSS_PORT_FOLDER,
];

/** Object keys of the published documents in the data bucket. */
export const DOCUMENT_KEYS = {
  ports: (border: Border | 'all') => `v1/ports/${border}.json`,
  current: (withPorts: boolean) => `v1/port-current/${withPorts ? 'ports' : 'all'}.json`,
  averages: (name: string) => `${AVERAGES_FOLDER}${name}.json`,
  feedHealth: 'v1/feed-health.json',
  /** The site's compact copy of `port-current?include=ports` (views.ts, siteCurrentBody). */
  siteCurrent: 'v1/site-current.json',
  events: 'v1/events.json',
  forecast: (name: string) => `${FORECAST_FOLDER}${name}.json`,
  forecastSkill: 'v1/forecast-skill.json',
  typical: (name: string) => `${TYPICAL_FOLDER}${name}.json`,
} as const;

/**
 * The names a port's per-view documents are published under: its id, and the id in lower case
 * where CBP spells it otherwise (`L01901`). A view's `port_id` (id or slug, any case) is read as
 * {@link portDocumentName}: no second copy of each document under the slug.
 */
export function portDocumentNames(port: { id: string }): string[] {
  return [...new Set([port.id, port.id.toLowerCase()])];
}

/**
 * Each catalogued port's slug and the name its documents are read under (its id in lower case).
 * The CloudFront function carries the same table (SLUG_IDS in infra/edge/viewer-request.js, written
 * by `npm run edge:slugs`; test/infra/edge.test.ts keeps the two equal). A port outside the
 * catalogue has its lower-case id as slug, so it needs no row.
 */
export function slugDocumentNames(): Record<string, string> {
  return Object.fromEntries(
    PORTS.filter((port) => port.slug !== port.id.toLowerCase()).map((port) => [
      port.slug,
      port.id.toLowerCase(),
    ]),
  );
}

let slugNames: Map<string, string> | undefined;

/** The document name a `port_id` (id or slug, any case) reads: the lower-case id for a slug. */
export function portDocumentName(portId: string): string {
  slugNames ??= new Map(Object.entries(slugDocumentNames()));
  const name = portId.toLowerCase();
  return slugNames.get(name) ?? name;
}

/** One read view: its path, and the document that answers a parsed query (null: answered live). */
export interface ViewPath<Query> {
  readonly path: string;
  readonly document: ((query: Query) => string) | null;
}

/**
 * The read views, in the order the OpenAPI document lists them. A keyless GET or HEAD of a view
 * with a `document` is served by the CDN from that object; every other request reaches the api
 * function. A new view adds a row here and one in core/api/api-views.ts (the types insist).
 */
export const VIEW_PATHS = {
  ports: {
    path: '/api/v1/ports',
    document: (query: PortsQuery) => DOCUMENT_KEYS.ports(query.border ?? 'all'),
  },
  current: {
    path: '/api/v1/port-current',
    document: (query: CurrentQuery) => DOCUMENT_KEYS.current(query.include === 'ports'),
  },
  observations: { path: '/api/v1/wait-observations', document: null },
  averages: {
    path: '/api/v1/port-hourly-averages',
    // An id or slug in any spelling: the lower-case id (portDocumentName).
    document: (query: AveragesQuery) => DOCUMENT_KEYS.averages(portDocumentName(query.port_id)),
  },
  forecast: {
    path: '/api/v1/port-forecast',
    document: (query: ForecastQuery) => DOCUMENT_KEYS.forecast(portDocumentName(query.port_id)),
  },
  forecastSkill: { path: '/api/v1/forecast-skill', document: () => DOCUMENT_KEYS.forecastSkill },
  typical: {
    path: '/api/v1/port-typical-waits',
    document: (query: TypicalQuery) => DOCUMENT_KEYS.typical(portDocumentName(query.port_id)),
  },
} as const satisfies Record<string, ViewPath<never>>;

export type ViewName = keyof typeof VIEW_PATHS;

/** The OpenAPI document of the API (served by the api function, never by the CDN). */
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The request-a-key form posts here (outside the read-only `/api/v1`; the api function answers). */
export const KEY_REQUESTS_PATH = '/keys/requests';

/**
 * The Web Push endpoints (outside the read-only `/api/v1`, like the key requests; the api
 * function answers): the VAPID public key, and travellers' push alerts (`{id}` below).
 */
export const PUSH_PATHS = {
  publicKey: '/push/vapid-public-key',
  subscriptions: '/push/subscriptions',
} as const;
