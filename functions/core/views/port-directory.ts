/**
 * One port lookup for both faces of the service: the API's `port_id` and the MCP tools' `port_id`
 * and `port_ids` resolve through the same rules and the same cached port list.
 *
 * - An id or a slug, in any case, with spaces around trimmed, as a string or a number
 *   (`250401`, `"250401"`, `"San-Ysidro"`): ids and slugs are published in lower case, and people
 *   and assistants type them otherwise.
 * - The published list (catalogue plus uncatalogued ports a feed showed), or the catalogue before
 *   the first publish: a catalogued port exists before any ingest has run, it just has no data yet.
 */
import { PORTS } from '../catalogue/catalogue.ts';
import { NotFoundError } from '../errors.ts';
import type { Clock, DocumentStore } from '../stores.ts';
import { DOCUMENT_KEYS } from './view-paths.ts';
import type { PublishedPort } from './views.ts';

/** How long a warm function keeps the published port list (it changes when a new port appears). */
export const PORTS_TTL_MS = 60_000;
/**
 * A lookup that misses a list older than this reads the list again first, so a port first listed
 * after the cache was filled is found within seconds, not after the whole TTL.
 */
export const PORTS_RECHECK_MS = 5_000;

/** An id or slug no published (or catalogued) port has. */
export class UnknownPortError extends NotFoundError {
  /** What the caller sent, as sent. */
  readonly idOrSlug: string;
  constructor(idOrSlug: string) {
    super(`no port with id or slug "${idOrSlug}"; GET /api/v1/ports lists them`);
    this.idOrSlug = idOrSlug;
  }
}

/** The spelling ids and slugs are matched in. */
export function portKey(idOrSlug: string | number): string {
  return String(idOrSlug).trim().toLowerCase();
}

/** The port whose id, else whose slug, is `idOrSlug` (see {@link portKey}). */
export function matchPort<P extends { id: string; slug: string }>(
  ports: readonly P[],
  idOrSlug: string | number,
): P | undefined {
  const key = portKey(idOrSlug);
  if (key === '') return undefined;
  return ports.find((p) => p.id.toLowerCase() === key) ?? ports.find((p) => p.slug.toLowerCase() === key);
}

export interface PortDirectory {
  /** Every port, as published (or the catalogue before the first publish). */
  list(): Promise<PublishedPort[]>;
  /** The port `idOrSlug` names, or undefined. */
  find(idOrSlug: string | number): Promise<PublishedPort | undefined>;
  /** The port `idOrSlug` names; throws {@link UnknownPortError} when none does. */
  resolve(idOrSlug: string | number): Promise<PublishedPort>;
}

const CATALOGUE: readonly PublishedPort[] = PORTS.map((port) => ({ ...port, catalogued: true }));

/**
 * The port directory over the published port list, with one cache policy: the list is kept
 * {@link PORTS_TTL_MS}, a miss rereads a list older than {@link PORTS_RECHECK_MS}, concurrent
 * readers share one read, the catalogue (before the first publish) is never cached, and a store
 * that fails keeps the last list read (the catalogue when there is none): a lookup never loses a
 * port it could answer before.
 */
export function createPortDirectory(deps: { documents: DocumentStore; clock: Clock }): PortDirectory {
  let cached: { atMs: number; ports: readonly PublishedPort[] } | undefined;
  let reading: Promise<readonly PublishedPort[]> | undefined;

  const ageMs = () => (cached ? deps.clock.now() - cached.atMs : Number.POSITIVE_INFINITY);

  async function read(): Promise<readonly PublishedPort[]> {
    const atMs = deps.clock.now();
    try {
      const document = await deps.documents.get(DOCUMENT_KEYS.ports('all'));
      if (!document) return CATALOGUE;
      const ports = (JSON.parse(document.body) as { ports: PublishedPort[] }).ports;
      cached = { atMs, ports };
      return ports;
    } catch {
      // The store's failure surfaces on the read that needs the store (observations, averages);
      // the lookup itself still knows every port it knew.
      return cached?.ports ?? CATALOGUE;
    }
  }

  function load(refresh: boolean): Promise<readonly PublishedPort[]> {
    const age = ageMs();
    // A clock that went back (a test's, or a corrected one) makes the cache stale, not immortal.
    if (!refresh && cached && age >= 0 && age < PORTS_TTL_MS) return Promise.resolve(cached.ports);
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  async function find(idOrSlug: string | number): Promise<PublishedPort | undefined> {
    const port = matchPort(await load(false), idOrSlug);
    if (port || !(ageMs() > PORTS_RECHECK_MS)) return port;
    return matchPort(await load(true), idOrSlug);
  }

  return {
    list: async () => [...(await load(false))],
    find,
    async resolve(idOrSlug) {
      const port = await find(idOrSlug);
      if (!port) throw new UnknownPortError(String(idOrSlug));
      return port;
    },
  };
}
