/**
 * The publisher writes RSS itself; `@astrojs/rss` (the site's library, a dev dependency) is the
 * oracle: for the same events, every feed must be byte-identical to what it writes.
 */
import { getRssString } from '@astrojs/rss';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRssDocuments, RSS_KEYS } from '../../../../functions/core/alerts/rss.ts';
import { EVENT_TYPES, type ServiceEvent, SOURCES } from '../../../../functions/core/model.ts';
import { SITE_ORIGIN } from '../../../../functions/core/site.ts';

const PORTS = [
  { id: '250401', slug: 'san-ysidro', name: 'San Ysidro' },
  { id: '070801', slug: 'lewiston-bridge', name: 'Lewiston "Queenston" Bridge & Co' },
  { id: 'l24501', slug: 'l24501', name: "Saint-Armand/Philipsburg <O'Neill>" },
];

/** What the publisher wrote with `@astrojs/rss` before it wrote RSS itself. */
async function oracle(
  title: string,
  description: string,
  link: string,
  events: readonly ServiceEvent[],
): Promise<string> {
  const slugs = new Map(PORTS.map((port) => [port.id, port.slug]));
  return getRssString({
    title,
    description,
    site: link,
    trailingSlash: true,
    customData: '<language>en</language><ttl>5</ttl>',
    items: events.slice(0, 100).map((event) => {
      const slug = event.portId ? slugs.get(event.portId) : undefined;
      return {
        title: event.title,
        description: event.description,
        pubDate: new Date(event.at),
        link: slug ? `${SITE_ORIGIN}/ports/${slug}/` : `${SITE_ORIGIN}/status/`,
        categories: [event.type, event.source],
        customData: `<guid isPermaLink="false">${event.id}</guid>`,
      };
    }),
  });
}

const event = (overrides: Partial<ServiceEvent>): ServiceEvent => ({
  id: '0f1e2d3c4b5a69788796a5b4',
  type: 'port-closed',
  at: '2026-11-01T06:30:00.000Z',
  source: 'cbp',
  portId: '250401',
  title: 'San Ysidro closed',
  description: 'CBP reports the port closed.',
  ...overrides,
});

const TABLE: [string, ServiceEvent[]][] = [
  ['no events', []],
  ['one port event', [event({})]],
  [
    'markup and quotes in titles and descriptions',
    [
      event({
        portId: '070801',
        type: 'notice-changed',
        title: 'Lewiston "Queenston" Bridge & Co: notice <changed>',
        description: "Lanes 1 & 2 closed; use O'Neill Rd > 3 km",
      }),
    ],
  ],
  [
    'a feed event (no port) and non-ASCII text',
    [
      event({
        portId: null,
        type: 'feed-outage',
        source: 'cbsa',
        title: 'CBSA (into Canada): feed down',
        description: 'Délai — no answer in 15 s',
      }),
    ],
  ],
  [
    'an event of an unknown port, and one with an empty description',
    [event({ portId: '999999' }), event({ id: 'aaaaaaaaaaaaaaaaaaaaaaaa', description: '' })],
  ],
  [
    'more events than a feed keeps',
    Array.from({ length: 130 }, (_, i) =>
      event({
        id: `e${i.toString(16).padStart(23, '0')}`,
        at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      }),
    ),
  ],
];

describe('RSS documents', () => {
  it.each(TABLE)('match @astrojs/rss byte for byte: %s', async (_name, events) => {
    const documents = buildRssDocuments(events, PORTS);
    expect(documents.map((d) => d.key)).toEqual([
      RSS_KEYS.all,
      ...PORTS.flatMap((port) => [RSS_KEYS.port(port.id), RSS_KEYS.port(port.slug)]),
    ]);
    const [all, ...perPort] = documents;
    expect(all?.body).toBe(
      await oracle(
        'Border wait times: crossings and feeds',
        'Ports of entry closing and reopening, notices, and outages of the CBP and CBSA feeds.',
        `${SITE_ORIGIN}/`,
        events,
      ),
    );
    for (const [index, port] of PORTS.entries()) {
      const own = events.filter((e) => e.portId === port.id);
      const expected = await oracle(
        `Border wait times: ${port.name}`,
        `${port.name}: closing, reopening and notices.`,
        `${SITE_ORIGIN}/ports/${port.slug}/`,
        own,
      );
      expect(perPort[index * 2]?.body).toBe(expected);
      expect(perPort[index * 2 + 1]?.body).toBe(expected);
    }
  });

  it('keeps an all-digit event id as it is (the library read it as a number: 000…42 became 42)', () => {
    const [all] = buildRssDocuments([event({ id: '000000000000000000000042' })], PORTS);
    expect(all?.body).toContain('<guid isPermaLink="false">000000000000000000000042</guid>');
  });

  it('matches @astrojs/rss for arbitrary event text', async () => {
    const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((s) => s.trim() === s);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          title: text,
          description: text,
          type: fc.constantFrom(...EVENT_TYPES),
          source: fc.constantFrom(...SOURCES),
          portId: fc.constantFrom(null, ...PORTS.map((port) => port.id)),
          at: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        }),
        async (fields) => {
          const events = [event({ ...fields, at: fields.at.toISOString() })];
          const [all] = buildRssDocuments(events, PORTS);
          expect(all?.body).toBe(
            await oracle(
              'Border wait times: crossings and feeds',
              'Ports of entry closing and reopening, notices, and outages of the CBP and CBSA feeds.',
              `${SITE_ORIGIN}/`,
              events,
            ),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
