import { FeedFetchError } from '../../core/errors.ts';
import type { GraphSource } from '../../core/typical/typical-waits.ts';
import { createHttpFeedSource } from './source.ts';

export interface HttpGraphOptions {
  /** URL template with `{bwtId}` and `{date}` (CBP_GRAPH_URL). */
  template: string;
  timeoutMs?: number;
  maxBytes?: number;
}

/** The URL of one graph document: the template with the port's `bwtId` and the date filled in. */
export function graphUrl(template: string, bwtId: string, date: string): string {
  return template.replaceAll('{bwtId}', encodeURIComponent(bwtId)).replaceAll('{date}', date);
}

/**
 * CBP's hourly graph over HTTP(S), one plain GET per port and date with the feeds' timeout, size
 * cap and content-type check (a graph is a few tens of kilobytes: 1 MiB by default).
 */
export function createHttpGraphSource(options: HttpGraphOptions): GraphSource {
  return {
    async fetch(bwtId, date) {
      const url = graphUrl(options.template, bwtId, date);
      const result = await createHttpFeedSource({
        source: 'cbp',
        url,
        timeoutMs: options.timeoutMs ?? 10_000,
        maxBytes: options.maxBytes ?? 1024 * 1024,
        userAgent: 'border-waits-typical/1 (+https://github.com/)',
      }).fetch({ etag: null, lastModified: null });
      if (result.kind !== 'document')
        throw new FeedFetchError(`graph answered 304 without a request validator (${url})`);
      return result.body;
    },
  };
}
