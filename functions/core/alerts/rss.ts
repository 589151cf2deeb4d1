/**
 * RSS 2.0 feeds of the service events, built by the publisher: `/rss.xml` for everything,
 * `/rss/ports/{slug}.xml` (and by id) per port. Written directly, so the ingest carries no feed
 * library; the output is byte for byte what `@astrojs/rss` (the site's library) writes for the
 * same items, which a test checks.
 */
import { createHash } from 'node:crypto';
import type { ServiceEvent } from '../model.ts';
import { SITE_ORIGIN } from '../site.ts';
import { RSS_PORT_FOLDER } from '../views/view-paths.ts';
import type { BuiltDocument } from '../views/views.ts';

export const RSS_CONTENT_TYPE = 'application/rss+xml; charset=utf-8';
const RSS_CACHE_CONTROL = 'public, max-age=300, s-maxage=60';
/** Items per feed. */
const MAX_ITEMS = 100;

export const RSS_KEYS = {
  all: 'rss.xml',
  port: (idOrSlug: string) => `${RSS_PORT_FOLDER}${idOrSlug}.xml`,
} as const;

/** XML text and attribute escaping, the five predefined entities. */
function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const element = (name: string, text: string) => `<${name}>${escapeXml(text)}</${name}>`;

function item(event: ServiceEvent, slugOf: (portId: string) => string | undefined): string {
  const slug = event.portId ? slugOf(event.portId) : undefined;
  const link = slug ? `${SITE_ORIGIN}/ports/${slug}/` : `${SITE_ORIGIN}/status/`;
  return [
    '<item>',
    element('title', event.title),
    element('link', link),
    // The event id, not the link: several events share a port page.
    `<guid isPermaLink="false">${escapeXml(event.id)}</guid>`,
    event.description ? element('description', event.description) : '',
    element('pubDate', new Date(event.at).toUTCString()),
    element('category', event.type),
    element('category', event.source),
    '</item>',
  ].join('');
}

function feed(
  key: string,
  title: string,
  description: string,
  link: string,
  events: readonly ServiceEvent[],
  slugOf: (portId: string) => string | undefined,
): BuiltDocument {
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>',
    element('title', title),
    element('description', description),
    element('link', link),
    '<language>en</language><ttl>5</ttl>',
    ...events.slice(0, MAX_ITEMS).map((event) => item(event, slugOf)),
    '</channel></rss>',
  ].join('');
  return {
    key,
    body,
    contentHash: createHash('sha256').update(body).digest('hex'),
    cacheControl: RSS_CACHE_CONTROL,
    contentType: RSS_CONTENT_TYPE,
  };
}

/** The site-wide feed and one feed per port (under its id and its slug), from the event log. */
export function buildRssDocuments(
  events: readonly ServiceEvent[],
  ports: readonly { id: string; slug: string; name: string }[],
): BuiltDocument[] {
  const slugs = new Map(ports.map((port) => [port.id, port.slug]));
  const slugOf = (portId: string) => slugs.get(portId);
  const documents = [
    feed(
      RSS_KEYS.all,
      'Border wait times: crossings and feeds',
      'Ports of entry closing and reopening, notices, and outages of the CBP and CBSA feeds.',
      `${SITE_ORIGIN}/`,
      events,
      slugOf,
    ),
  ];
  for (const port of ports) {
    const own = events.filter((event) => event.portId === port.id);
    for (const name of [port.id, port.slug]) {
      documents.push(
        feed(
          RSS_KEYS.port(name),
          `Border wait times: ${port.name}`,
          `${port.name}: closing, reopening and notices.`,
          `${SITE_ORIGIN}/ports/${port.slug}/`,
          own,
          slugOf,
        ),
      );
    }
  }
  return documents;
}
