/**
 * The published documents read over HTTP from the CDN, as any client reads them: the mcp
 * function's way to the views (`/v1/...`), since its role may read only `exports/*` of the data
 * bucket. The documents are public, and the CDN serves the very bytes the publisher wrote, so a
 * tool's answer is the one an S3 read gave.
 *
 * A small in-memory cache per warm function honours each document's `Cache-Control` (`max-age`,
 * less the CDN's `Age`; `no-cache` and `no-store` keep nothing fresh) and revalidates a stale copy
 * with `If-None-Match` (a 304 costs no body). A missing document (the CDN's 404) is remembered the
 * same way. A read that fails (network, timeout, any other status) gives the stale copy while the
 * document's `stale-if-error` allows (RFC 5861: the documents carry their own age, so a tool still
 * says how old each reading is), else rejects, which the tools answer as "the store is
 * unavailable"; a failure is never remembered.
 */
import type { PublishedDocument } from '../../core/model.ts';
import type { DocumentStore } from '../../core/stores.ts';

export interface CdnDocumentStoreOptions {
  /** The public origin that serves the documents at `/<key>` (`https://border-waits.dev`). */
  origin: string;
  /** A read taking longer is abandoned (and rejects). */
  timeoutMs?: number;
  /** Milliseconds now, for freshness. */
  now?: () => number;
  /**
   * Headers sent with every read, or a rejection (then the read goes without them): the CDN's
   * origin secret, by which the WAF's per-IP rule leaves these reads uncounted.
   */
  headers?: () => Promise<Record<string, string>>;
  /**
   * Revalidate every read, whatever `max-age` says: the local runtime, whose edge keeps no cache
   * either, so a document the publisher just wrote is read at once.
   */
  revalidateAlways?: boolean;
  /** At most this many documents are kept; the oldest read goes first. */
  maxEntries?: number;
  fetch?: typeof fetch;
}

/** The CDN did not answer a document read with the document, a 304 or a 404. */
export class DocumentReadError extends Error {
  override readonly name = 'DocumentReadError';
}

interface Entry {
  /** `undefined`: the CDN answered 404. */
  document: PublishedDocument | undefined;
  freshUntil: number;
  /** Until when the copy may stand in for a read that fails (`stale-if-error`). */
  staleUntil: number;
}

/** A Cache-Control directive's seconds (`max-age=300` -> 300), or null when it is absent. */
function directiveSeconds(cacheControl: string | null, name: string): number | null {
  const found = new RegExp(`(?:^|[,\\s])${name}=(\\d+)`).exec((cacheControl ?? '').toLowerCase());
  return found ? Number(found[1]) : null;
}

/** Milliseconds a response stays fresh from now: `max-age` less `Age` (RFC 9111 section 4.2). */
export function freshnessMs(cacheControl: string | null, age: string | null): number {
  if (/(^|[,\s])(no-cache|no-store)\b/.test((cacheControl ?? '').toLowerCase())) return 0;
  const maxAge = directiveSeconds(cacheControl, 'max-age');
  if (maxAge === null) return 0;
  const ageSeconds = Number(age ?? 0);
  return Math.max(0, maxAge - (Number.isFinite(ageSeconds) ? ageSeconds : 0)) * 1000;
}

/** Milliseconds a stale response may still serve when revalidating it fails (`stale-if-error`, RFC 5861). */
export function staleIfErrorMs(cacheControl: string | null): number {
  return (directiveSeconds(cacheControl, 'stale-if-error') ?? 0) * 1000;
}

export function createCdnDocumentStore(options: CdnDocumentStoreOptions): DocumentStore {
  const origin = options.origin.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 3000;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 2000;
  const fetchFn = options.fetch ?? fetch;
  const cache = new Map<string, Entry>();
  const reading = new Map<string, Promise<PublishedDocument | undefined>>();

  function remember(key: string, entry: Entry): void {
    cache.delete(key);
    cache.set(key, entry);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
  }

  async function extraHeaders(): Promise<Record<string, string>> {
    try {
      return (await options.headers?.()) ?? {};
    } catch {
      // Without them the read still works; the WAF merely counts it.
      return {};
    }
  }

  async function read(key: string, stale: Entry | undefined): Promise<PublishedDocument | undefined> {
    const url = `${origin}/${key.split('/').map(encodeURIComponent).join('/')}`;
    const headers: Record<string, string> = {
      ...(await extraHeaders()),
      // The document's own bytes and validator: no compressed variant (CloudFront may weaken
      // the ETag of a body it compresses).
      'accept-encoding': 'identity',
    };
    const etag = stale?.document?.etag;
    if (etag) headers['if-none-match'] = etag;
    let response: Response;
    try {
      response = await fetchFn(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error: unknown) {
      throw new DocumentReadError(
        `GET ${url} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const cacheControl = response.headers.get('cache-control');
    const entryFor = (document: PublishedDocument | undefined): Entry => {
      const freshUntil = now() + freshnessMs(cacheControl, response.headers.get('age'));
      return { document, freshUntil, staleUntil: freshUntil + (document ? staleIfErrorMs(cacheControl) : 0) };
    };
    if (response.status === 304 && stale?.document) {
      await response.body?.cancel();
      remember(key, entryFor(stale.document));
      return stale.document;
    }
    if (response.status === 404) {
      await response.body?.cancel();
      remember(key, entryFor(undefined));
      return undefined;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new DocumentReadError(`GET ${url} answered ${response.status}`);
    }
    const document: PublishedDocument = {
      body: await response.text(),
      etag: response.headers.get('etag') ?? '',
      lastModified: response.headers.get('last-modified') ?? new Date(0).toUTCString(),
      contentType: response.headers.get('content-type') ?? 'application/json',
      cacheControl: response.headers.get('cache-control') ?? 'no-cache',
    };
    remember(key, entryFor(document));
    return document;
  }

  async function get(key: string): Promise<PublishedDocument | undefined> {
    const entry = cache.get(key);
    if (entry && !options.revalidateAlways && now() < entry.freshUntil) return entry.document;
    // Concurrent reads of one document share one request.
    const pending = reading.get(key);
    if (pending) return pending;
    const started = read(key, entry)
      .catch((error: unknown) => {
        if (entry?.document && now() < entry.staleUntil) return entry.document;
        throw error;
      })
      .finally(() => reading.delete(key));
    reading.set(key, started);
    return started;
  }

  return {
    get,
    async exists(key) {
      return (await get(key)) !== undefined;
    },
    async put() {
      throw new Error('documents read from the CDN are read-only: the publisher writes them to the bucket');
    },
  };
}
