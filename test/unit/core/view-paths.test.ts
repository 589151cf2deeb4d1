/**
 * Which published documents are per-port leaves (written before every index that lists ports)
 * follows from the folders the key builders write into.
 */
import { describe, expect, it } from 'vitest';
import { PORTS } from '../../../functions/core/catalogue.ts';
import { RSS_KEYS } from '../../../functions/core/rss.ts';
import { DOCUMENT_KEYS } from '../../../functions/core/view-paths.ts';
import { isPortDocument } from '../../../functions/core/views.ts';

const names = PORTS.flatMap((port) => [port.id, port.slug]);

describe('per-port documents', () => {
  it.each([
    ['hourly averages', DOCUMENT_KEYS.averages],
    ['forecast', DOCUMENT_KEYS.forecast],
    ['RSS', RSS_KEYS.port],
  ])('every port’s %s document, by id and by slug, is a leaf', (_name, key) => {
    for (const name of names) expect(isPortDocument(key(name)), key(name)).toBe(true);
  });

  it('no index is a leaf', () => {
    const indexes = [
      ...(['all', 'mx', 'ca'] as const).map(DOCUMENT_KEYS.ports),
      DOCUMENT_KEYS.current(false),
      DOCUMENT_KEYS.current(true),
      DOCUMENT_KEYS.feedHealth,
      DOCUMENT_KEYS.events,
      DOCUMENT_KEYS.forecastSkill,
      RSS_KEYS.all,
    ];
    for (const key of indexes) expect(isPortDocument(key), key).toBe(false);
  });
});
