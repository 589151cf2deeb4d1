import { describe, expect, it } from 'vitest';
import { createDocumentStore } from '../../functions/adapters/s3/documents.ts';
import { PORTS } from '../../functions/core/catalogue/catalogue.ts';
import type { DocumentStore } from '../../functions/core/stores.ts';
import {
  createPortDirectory,
  PORTS_RECHECK_MS,
  PORTS_TTL_MS,
  UnknownPortError,
} from '../../functions/core/views/port-directory.ts';
import { DOCUMENT_KEYS } from '../../functions/core/views/view-paths.ts';
import type { PublishedPort } from '../../functions/core/views/views.ts';
import { BUCKETS } from '../../infra/manifest.ts';
import { useLocalS3 } from './s3-support.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');

const s3 = useLocalS3('ports');
let prefix = 0;

const catalogued = (id: string): PublishedPort => {
  const port = PORTS.find((p) => p.id === id);
  if (!port) throw new Error(`no catalogued port ${id}`);
  return { ...port, catalogued: true };
};

/** A port a feed showed that the catalogue lacks. */
const UNCATALOGUED: PublishedPort = {
  ...catalogued('250401'),
  id: '259901',
  slug: 'new-crossing',
  name: 'New Crossing',
  catalogued: false,
};

/** A document store of its own (each test its own key space), and a clock the test moves. */
function world() {
  const base = createDocumentStore(s3.client(), BUCKETS.data.name);
  const space = `t${++prefix}/`;
  const documents: DocumentStore = {
    get: (key) => base.get(space + key),
    exists: (key) => base.exists(space + key),
    put: (key, body, meta) => base.put(space + key, body, meta),
  };
  let now = AT;
  const clock = { now: () => now };
  return {
    documents,
    clock,
    advance: (ms: number) => {
      now += ms;
    },
    publish: (ports: readonly PublishedPort[]) =>
      documents.put(
        DOCUMENT_KEYS.ports('all'),
        JSON.stringify({ generatedAt: '', count: ports.length, ports }),
        {
          contentType: 'application/json',
          cacheControl: 'no-cache',
          contentHash: String(Math.random()),
        },
      ),
  };
}

describe('resolving a port', () => {
  const spellings: [string, string | number, string][] = [
    ['an id', '250401', '250401'],
    ['an id sent as a number', 250401, '250401'],
    ['an id with spaces around', ' 250401 ', '250401'],
    ['a slug', 'san-ysidro', '250401'],
    ['a slug in capitals', 'SAN-YSIDRO', '250401'],
    ['a slug in mixed case', 'San-Ysidro', '250401'],
    ['an id with a letter', 'l24501', 'l24501'],
    ['an id with a letter in capitals', 'L24501', 'l24501'],
    ['a CBSA-only office', 'CBSA-North-Portal', 'cbsa-north-portal'],
    ['a port only the published list has', 'new-crossing', '259901'],
    ['the same, in capitals', 'NEW-CROSSING', '259901'],
  ];
  it.each(spellings)('finds it by %s (%s)', async (_what, idOrSlug, id) => {
    const w = world();
    await w.publish([...PORTS.map((p) => ({ ...p, catalogued: true })), UNCATALOGUED]);
    const directory = createPortDirectory(w);
    expect((await directory.resolve(idOrSlug)).id).toBe(id);
  });

  const unknown: (string | number)[] = ['no-such-port', '', '   ', 0, '250401x', 'san_ysidro'];
  it.each(unknown)('answers %j with an UnknownPortError naming the fix', async (idOrSlug) => {
    const w = world();
    await w.publish(PORTS.map((p) => ({ ...p, catalogued: true })));
    const error = await createPortDirectory(w)
      .resolve(idOrSlug)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownPortError);
    expect((error as UnknownPortError).idOrSlug).toBe(String(idOrSlug));
    expect((error as Error).message).toContain('GET /api/v1/ports lists them');
  });
});

describe('the port list', () => {
  it('is the catalogue before the first publish, and the published list once there is one', async () => {
    const w = world();
    const directory = createPortDirectory(w);
    expect((await directory.list()).map((p) => p.id)).toEqual(PORTS.map((p) => p.id));
    expect(await directory.find('new-crossing')).toBeUndefined();
    await w.publish([catalogued('250401'), UNCATALOGUED]);
    // The catalogue is never cached: the first publish is seen at once.
    expect((await directory.list()).map((p) => p.id)).toEqual(['250401', '259901']);
  });

  it('finds a port listed after the cache was filled once the list is older than the recheck interval', async () => {
    const w = world();
    await w.publish([catalogued('250401')]);
    const directory = createPortDirectory(w);
    expect(await directory.find('250401')).toBeDefined();
    await w.publish([catalogued('250401'), UNCATALOGUED]);
    expect(await directory.find('259901')).toBeUndefined();
    w.advance(PORTS_RECHECK_MS + 1);
    expect((await directory.find('259901'))?.slug).toBe('new-crossing');
  });

  it('keeps the list for the TTL, then reads it again', async () => {
    const w = world();
    await w.publish([catalogued('250401'), UNCATALOGUED]);
    const directory = createPortDirectory(w);
    expect(await directory.list()).toHaveLength(2);
    await w.publish([catalogued('250401')]);
    w.advance(PORTS_TTL_MS - 1);
    expect(await directory.list()).toHaveLength(2);
    w.advance(2);
    expect(await directory.list()).toHaveLength(1);
  });

  it('keeps answering from the last list read when the store fails', async () => {
    const w = world();
    await w.publish([catalogued('250401'), UNCATALOGUED]);
    let failing = false;
    // Fault: the store is down (mocks only to inject faults).
    const documents: DocumentStore = {
      ...w.documents,
      get: (key) => (failing ? Promise.reject(new Error('injected: S3 down')) : w.documents.get(key)),
    };
    const directory = createPortDirectory({ documents, clock: w.clock });
    expect(await directory.list()).toHaveLength(2);
    failing = true;
    w.advance(PORTS_TTL_MS + 1);
    expect((await directory.resolve('NEW-CROSSING')).id).toBe('259901');
    expect(await directory.list()).toHaveLength(2);
  });

  it('answers from the catalogue when the store fails before any list was read', async () => {
    const w = world();
    const documents: DocumentStore = {
      ...w.documents,
      get: () => Promise.reject(new Error('injected: S3 down')),
    };
    const directory = createPortDirectory({ documents, clock: w.clock });
    expect((await directory.resolve('san-ysidro')).id).toBe('250401');
  });

  it('shares one read among concurrent lookups', async () => {
    const w = world();
    await w.publish([catalogued('250401')]);
    let reads = 0;
    const documents: DocumentStore = {
      ...w.documents,
      get: (key) => {
        reads += 1;
        return w.documents.get(key);
      },
    };
    const directory = createPortDirectory({ documents, clock: w.clock });
    await Promise.all(Array.from({ length: 10 }, () => directory.resolve('250401')));
    expect(reads).toBe(1);
  });
});
