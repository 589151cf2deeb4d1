/**
 * The four read views of `/api/v1` as use cases. The precomputed views are the very documents the
 * publisher wrote (so keyed and CDN answers are byte-identical); observations are queried live.
 */
import { NotFoundError } from './errors.ts';
import { type Observation, type PublishedDocument, RETENTION_HOURS } from './model.ts';
import {
  type AveragesQuery,
  type CurrentQuery,
  MAX_OBSERVATIONS,
  type ObservationsQuery,
  type PortsQuery,
} from './queries.ts';
import type { Clock, DocumentStore, ObservationStore } from './stores.ts';
import { CACHE_CONTROL, DOCUMENT_KEYS, type PublishedPort } from './views.ts';

export type ReadResult =
  | { kind: 'document'; document: PublishedDocument }
  | { kind: 'json'; body: unknown; cacheControl: string; lastModified: string };

export interface ReadApiDeps {
  documents: DocumentStore;
  observations: ObservationStore;
  clock: Clock;
}

export interface ObservationsBody {
  portId: string;
  hours: number;
  retentionHours: number;
  from: string;
  to: string;
  count: number;
  truncated: boolean;
  observations: Omit<Observation, 'portId' | 'fetchedAt'>[];
}

export function createReadApi(deps: ReadApiDeps) {
  let portsCache: { at: number; ports: PublishedPort[] } | undefined;

  async function requireDocument(key: string, what: string): Promise<PublishedDocument> {
    const document = await deps.documents.get(key);
    if (!document) throw new NotFoundError(`${what} has not been published yet; the first ingest creates it`);
    return document;
  }

  /**
   * The published port list (catalogue plus uncatalogued ports seen), cached for a minute. A
   * missing list is never cached: before the first publish every port would be unknown, and a
   * minute of 404s after it would contradict the list the CDN already serves.
   */
  async function allPorts(refresh = false): Promise<PublishedPort[]> {
    const now = deps.clock.now();
    if (!refresh && portsCache && now - portsCache.at < 60_000) return portsCache.ports;
    const document = await deps.documents.get(DOCUMENT_KEYS.ports('all'));
    if (!document) return [];
    const ports = (JSON.parse(document.body) as { ports: PublishedPort[] }).ports;
    portsCache = { at: now, ports };
    return ports;
  }

  const find = (ports: readonly PublishedPort[], idOrSlug: string) =>
    ports.find((p) => p.id === idOrSlug) ?? ports.find((p) => p.slug === idOrSlug);

  async function resolvePort(idOrSlug: string): Promise<PublishedPort> {
    let port = find(await allPorts(), idOrSlug);
    // A port first listed after the cache was filled: look at the current list before a 404,
    // at most every few seconds.
    if (!port && portsCache && deps.clock.now() - portsCache.at > 5_000) {
      port = find(await allPorts(true), idOrSlug);
    }
    if (!port) throw new NotFoundError(`no port with id or slug "${idOrSlug}"; GET /api/v1/ports lists them`);
    return port;
  }

  return {
    resolvePort,
    async ports(query: PortsQuery): Promise<ReadResult> {
      return {
        kind: 'document',
        document: await requireDocument(DOCUMENT_KEYS.ports(query.border ?? 'all'), 'the port list'),
      };
    },
    async current(query: CurrentQuery): Promise<ReadResult> {
      return {
        kind: 'document',
        document: await requireDocument(DOCUMENT_KEYS.current(query.include === 'ports'), 'the current view'),
      };
    },
    async averages(query: AveragesQuery): Promise<ReadResult> {
      await resolvePort(query.port_id);
      const document = await deps.documents.get(DOCUMENT_KEYS.averages(query.port_id));
      if (document) return { kind: 'document', document };
      // A known port whose document is not out yet has no aggregates: the contract's empty list.
      return {
        kind: 'json',
        body: [],
        cacheControl: CACHE_CONTROL.averages,
        lastModified: new Date(deps.clock.now()).toUTCString(),
      };
    },
    async observations(
      query: ObservationsQuery,
    ): Promise<ReadResult & { kind: 'json'; body: ObservationsBody }> {
      const port = await resolvePort(query.port_id);
      const hours = Math.min(query.hours ?? 24, RETENTION_HOURS);
      const toMs = deps.clock.now();
      const fromMs = toMs - hours * 3_600_000;
      // One more than the bound says whether some were left off.
      const found = await deps.observations.query(
        port.id,
        fromMs,
        toMs,
        { direction: query.direction, mode: query.mode, lane: query.lane },
        MAX_OBSERVATIONS + 1,
      );
      const kept = found.length > MAX_OBSERVATIONS ? found.slice(1) : found;
      const newestFetch = kept.reduce((a, o) => (o.fetchedAt > a ? o.fetchedAt : a), '');
      return {
        kind: 'json',
        cacheControl: CACHE_CONTROL.observations,
        lastModified: new Date(newestFetch ? Date.parse(newestFetch) : toMs).toUTCString(),
        body: {
          portId: port.id,
          hours,
          retentionHours: RETENTION_HOURS,
          from: new Date(fromMs).toISOString(),
          to: new Date(toMs).toISOString(),
          count: kept.length,
          truncated: kept.length < found.length,
          observations: kept.map(({ portId: _p, fetchedAt: _f, ...o }) => o),
        },
      };
    },
  };
}

export type ReadApi = ReturnType<typeof createReadApi>;
