import { FeedFetchError } from '../../core/errors.ts';
import type { Source } from '../../core/model.ts';
import type { FeedFetchResult, FeedSource } from '../../core/stores.ts';

export interface HttpFeedOptions {
  source: Source;
  url: string;
  timeoutMs?: number;
  maxBytes?: number;
  userAgent?: string;
}

/** Content types a feed may answer with; anything else (an HTML error page, say) is refused. */
const ACCEPTED_TYPES =
  /^(application|text)\/(xml|json|csv|plain|octet-stream|rss\+xml|x-csv|vnd\.ms-excel)\b/i;

/**
 * A feed over HTTP(S): conditional GET, a timeout covering headers and body, a size cap enforced
 * while streaming, and a content-type check. Every failure is a `FeedFetchError` with the reason.
 */
export function createHttpFeedSource(options: HttpFeedOptions): FeedSource {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  return {
    source: options.source,
    url: options.url,
    async fetch(validators): Promise<FeedFetchResult> {
      const headers: Record<string, string> = {
        accept: 'application/xml, application/json, text/csv, text/plain;q=0.8, */*;q=0.1',
        'user-agent': options.userAgent ?? 'border-waits-ingest/1 (+https://github.com/)',
      };
      if (validators.etag) headers['if-none-match'] = validators.etag;
      if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
      const signal = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await fetch(options.url, { headers, signal, redirect: 'follow' });
      } catch (error: unknown) {
        throw new FeedFetchError(
          signal.aborted
            ? `${options.source} feed timed out after ${timeoutMs} ms (${options.url})`
            : `${options.source} feed unreachable: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)} (${options.url})`,
        );
      }
      if (response.status === 304) {
        await response.body?.cancel();
        return { kind: 'unchanged' };
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new FeedFetchError(`${options.source} feed answered HTTP ${response.status} (${options.url})`);
      }
      const contentType = response.headers.get('content-type');
      if (contentType && !ACCEPTED_TYPES.test(contentType)) {
        await response.body?.cancel();
        throw new FeedFetchError(
          `${options.source} feed answered with content type "${contentType}", not a feed document`,
        );
      }
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      if (declared > maxBytes) {
        await response.body?.cancel();
        throw new FeedFetchError(
          `${options.source} feed body of ${declared} bytes exceeds the ${maxBytes}-byte cap`,
        );
      }
      const body = await readCapped(response, maxBytes, options.source, timeoutMs, signal);
      return {
        kind: 'document',
        body,
        contentType,
        etag: response.headers.get('etag'),
        lastModified: response.headers.get('last-modified'),
      };
    },
  };
}

async function readCapped(
  response: Response,
  maxBytes: number,
  source: Source,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw new FeedFetchError(`${source} feed body exceeds the ${maxBytes}-byte cap`);
      }
      parts.push(value);
    }
  } catch (error: unknown) {
    if (error instanceof FeedFetchError) throw error;
    throw new FeedFetchError(
      signal.aborted
        ? `${source} feed timed out after ${timeoutMs} ms while reading the body`
        : `${source} feed body could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.byteLength;
  }
  return body;
}
