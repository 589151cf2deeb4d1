/**
 * Which published documents are per-port leaves (written before every index that lists ports)
 * follows from the folders the key builders write into.
 */
import { describe, expect, it } from 'vitest';
import { RSS_KEYS } from '../../../../functions/core/alerts/rss.ts';
import { PORTS } from '../../../../functions/core/catalogue/catalogue.ts';
import {
  DOCUMENT_KEYS,
  portDocumentName,
  portDocumentNames,
  VIEW_PATHS,
} from '../../../../functions/core/views/view-paths.ts';
import { isPortDocument } from '../../../../functions/core/views/views.ts';

const names = PORTS.flatMap((port) => [port.id, port.slug]);

describe('per-port documents', () => {
  it.each([
    ['hourly averages', DOCUMENT_KEYS.averages],
    ['forecast', DOCUMENT_KEYS.forecast],
    ['RSS', RSS_KEYS.port],
  ])('every port’s %s document, by id and by slug, is a leaf', (_name, key) => {
    for (const name of names) expect(isPortDocument(key(name)), key(name)).toBe(true);
  });

  it.each(PORTS.map((port) => [port.id, port] as const))(
    'port %s: every spelling of its id or slug reads a name its documents are published under',
    (_id, port) => {
      const published = portDocumentNames(port);
      for (const name of [
        port.id,
        port.id.toLowerCase(),
        port.id.toUpperCase(),
        port.slug,
        port.slug.toUpperCase(),
      ]) {
        expect(published).toContain(portDocumentName(name));
        expect(VIEW_PATHS.averages.document({ port_id: name })).toBe(
          DOCUMENT_KEYS.averages(port.id.toLowerCase()),
        );
      }
      // One copy per spelling of the id, none under the slug.
      expect(published).not.toContain(port.slug);
    },
  );

  it('a name outside the catalogue reads itself in lower case', () => {
    expect(portDocumentName('Z99901')).toBe('z99901');
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
