/**
 * Where the published documents and the read views of `/api/v1` live: the documents' object keys,
 * each view's path and, for the precomputed views, the document a query reads (the object the CDN
 * serves). This is the half of the view table (core/api-views.ts) that carries no zod, so the
 * manifest, the ingest's publisher and every function bundle can read it without the schemas. The
 * CloudFront function (infra/edge/viewer-request.js) spells the same mapping in ES5;
 * test/infra/edge-views.test.ts checks that the two agree, query by query.
 */
import type { Border } from './model.ts';
import type { AveragesQuery, CurrentQuery, ForecastQuery, PortsQuery } from './queries.ts';

const AVERAGES_FOLDER = 'v1/port-hourly-averages/';
const FORECAST_FOLDER = 'v1/port-forecast/';
/** Each port's RSS feed, under its id and under its slug. */
export const RSS_PORT_FOLDER = 'rss/ports/';

/**
 * Key prefixes of the per-port documents (the leaves), each port's under its id and under its
 * slug. The publisher writes all of them before any other document, since the indexes (port
 * lists, current views, events, the main RSS feed) list ports whose leaves must already answer. A
 * new per-port document adds its folder here.
 */
export const PORT_DOCUMENT_PREFIXES: readonly string[] = [AVERAGES_FOLDER, FORECAST_FOLDER, RSS_PORT_FOLDER];

/** Object keys of the published documents in the data bucket. */
export const DOCUMENT_KEYS = {
  ports: (border: Border | 'all') => `v1/ports/${border}.json`,
  current: (withPorts: boolean) => `v1/port-current/${withPorts ? 'ports' : 'all'}.json`,
  averages: (idOrSlug: string) => `${AVERAGES_FOLDER}${idOrSlug}.json`,
  feedHealth: 'v1/feed-health.json',
  events: 'v1/events.json',
  forecast: (idOrSlug: string) => `${FORECAST_FOLDER}${idOrSlug}.json`,
  forecastSkill: 'v1/forecast-skill.json',
} as const;

/**
 * The names a port's per-view documents are published under: its slug and its id, and the id in
 * lower case where CBP spells it otherwise (`L01901`), so that a `port_id` read in lower case (as
 * the views below and the CloudFront function read it) finds every port in any spelling.
 */
export function portDocumentNames(port: { id: string; slug: string }): string[] {
  return [...new Set([port.id, port.id.toLowerCase(), port.slug])];
}

/** One read view: its path, and the document that answers a parsed query (null: answered live). */
export interface ViewPath<Query> {
  readonly path: string;
  readonly document: ((query: Query) => string) | null;
}

/**
 * The read views, in the order the OpenAPI document lists them. A keyless GET or HEAD of a view
 * with a `document` is served by the CDN from that object; every other request reaches the api
 * function. A new view adds a row here and one in core/api-views.ts (the types insist).
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
    // Under each of portDocumentNames: any spelling of an id or slug, read in lower case.
    document: (query: AveragesQuery) => DOCUMENT_KEYS.averages(query.port_id.toLowerCase()),
  },
  forecast: {
    path: '/api/v1/port-forecast',
    document: (query: ForecastQuery) => DOCUMENT_KEYS.forecast(query.port_id.toLowerCase()),
  },
  forecastSkill: { path: '/api/v1/forecast-skill', document: () => DOCUMENT_KEYS.forecastSkill },
} as const satisfies Record<string, ViewPath<never>>;

export type ViewName = keyof typeof VIEW_PATHS;

/** The OpenAPI document of the API (served by the api function, never by the CDN). */
export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The request-a-key form posts here (outside the read-only `/api/v1`; the api function answers). */
export const KEY_REQUESTS_PATH = '/keys/requests';
