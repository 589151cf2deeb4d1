/**
 * RSS 2.0 feeds of the service events, built by the publisher with `@astrojs/rss` (the same
 * library the site uses): `/rss.xml` for everything, `/rss/ports/{slug}.xml` (and by id) per port.
 */
import { createHash } from 'node:crypto';
import { getRssString } from '@astrojs/rss';
import type { ServiceEvent } from './events.ts';
import type { BuiltDocument } from './views.ts';

/** Where the site lives (links in the feeds). */
export const SITE_ORIGIN = 'https://border-waits.dev';

export const RSS_CONTENT_TYPE = 'application/rss+xml; charset=utf-8';
const RSS_CACHE_CONTROL = 'public, max-age=300, s-maxage=60';
/** Items per feed. */
const MAX_ITEMS = 100;

export const RSS_KEYS = {
  all: 'rss.xml',
  port: (idOrSlug: string) => `rss/ports/${idOrSlug}.xml`,
} as const;

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

async function feed(
  key: string,
  title: string,
  description: string,
  link: string,
  events: readonly ServiceEvent[],
  slugOf: (portId: string) => string | undefined,
): Promise<BuiltDocument> {
  const body = await getRssString({
    title,
    description,
    site: link,
    trailingSlash: true,
    customData: `<language>en</language><ttl>5</ttl>`,
    items: events.slice(0, MAX_ITEMS).map((event) => {
      const slug = event.portId ? slugOf(event.portId) : undefined;
      return {
        title: event.title,
        description: event.description,
        pubDate: new Date(event.at),
        link: slug ? `${SITE_ORIGIN}/ports/${slug}/` : `${SITE_ORIGIN}/status/`,
        categories: [event.type, event.source],
        customData: `<guid isPermaLink="false">${escapeXml(event.id)}</guid>`,
      };
    }),
  });
  return {
    key,
    body,
    contentHash: createHash('sha256').update(body).digest('hex'),
    cacheControl: RSS_CACHE_CONTROL,
    contentType: RSS_CONTENT_TYPE,
  };
}

/** The site-wide feed and one feed per port (under its id and its slug), from the event log. */
export async function buildRssDocuments(
  events: readonly ServiceEvent[],
  ports: readonly { id: string; slug: string; name: string }[],
): Promise<BuiltDocument[]> {
  const slugs = new Map(ports.map((port) => [port.id, port.slug]));
  const slugOf = (portId: string) => slugs.get(portId);
  const documents = [
    await feed(
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
        await feed(
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
