/**
 * The published documents read from the CDN (the mcp function's document store), against a real
 * HTTP server on loopback standing in for the CDN: the document's own bytes and headers, the
 * in-memory cache that honours max-age (less Age) and revalidates with If-None-Match, the 404 as
 * a missing document, and every other failure as a rejection that is never remembered.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCdnDocumentStore,
  DocumentReadError,
  freshnessMs,
} from '../../../functions/adapters/cdn/documents.ts';

interface Served {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** A CDN stand-in: `answer` decides each response; every request is recorded. */
async function cdn(answer: (path: string, headers: IncomingHttpHeaders) => Served) {
  const requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers });
    const served = answer(path, req.headers);
    setTimeout(() => {
      res.writeHead(served.status, served.headers ?? {});
      res.end(served.body ?? '');
    }, served.delayMs ?? 0);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const BODY = '{"generatedAt":"2026-11-18T20:10:00Z","ports":["é"]}';
const HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'public, max-age=30, s-maxage=60',
  etag: '"abc"',
  'last-modified': 'Wed, 18 Nov 2026 20:10:00 GMT',
};

/** Serves BODY with HEADERS, and 304 to a matching If-None-Match. */
const document =
  (extra: Record<string, string> = {}) =>
  (_path: string, headers: IncomingHttpHeaders) =>
    headers['if-none-match'] === HEADERS.etag
      ? { status: 304, headers: { etag: HEADERS.etag, 'cache-control': HEADERS['cache-control'], ...extra } }
      : { status: 200, headers: { ...HEADERS, ...extra }, body: BODY };

describe('documents read from the CDN', () => {
  it("gives the document's own bytes and headers, asked uncompressed, with the extra headers", async () => {
    const server = await cdn(document());
    const store = createCdnDocumentStore({
      origin: `${server.origin}/`,
      headers: async () => ({ 'x-origin-verify': 's3cret' }),
    });
    expect(await store.get('v1/port-current/all.json')).toEqual({
      body: BODY,
      etag: '"abc"',
      lastModified: HEADERS['last-modified'],
      contentType: HEADERS['content-type'],
      cacheControl: HEADERS['cache-control'],
    });
    expect(server.requests[0]?.path).toBe('/v1/port-current/all.json');
    expect(server.requests[0]?.headers['x-origin-verify']).toBe('s3cret');
    expect(server.requests[0]?.headers['accept-encoding']).toBe('identity');
  });

  it('keeps a document for its max-age less its Age, then revalidates it with If-None-Match', async () => {
    const server = await cdn(document({ age: '10' }));
    let now = 1_000_000;
    const store = createCdnDocumentStore({ origin: server.origin, now: () => now });
    const first = await store.get('v1/ports.json');
    now += 19_000; // 30 s max-age, 10 s old at the CDN: fresh for 20 s
    expect(await store.get('v1/ports.json')).toBe(first);
    expect(server.requests).toHaveLength(1);
    now += 2_000;
    expect(await store.get('v1/ports.json')).toEqual(first);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers['if-none-match']).toBe('"abc"');
    // The 304 made it fresh again.
    expect(await store.get('v1/ports.json')).toEqual(first);
    expect(server.requests).toHaveLength(2);
  });

  it('reads a changed document after its max-age', async () => {
    let body = BODY;
    const server = await cdn(() => ({
      status: 200,
      headers: { ...HEADERS, etag: `"${body.length}"` },
      body,
    }));
    let now = 0;
    const store = createCdnDocumentStore({ origin: server.origin, now: () => now });
    await store.get('v1/ports.json');
    body = '{"changed":true}';
    expect((await store.get('v1/ports.json'))?.body).toBe(BODY);
    now += 30_000;
    expect((await store.get('v1/ports.json'))?.body).toBe(body);
  });

  it('revalidates every read with no-cache, or when told to (the local runtime)', async () => {
    const noCache = await cdn(document({ 'cache-control': 'no-cache' }));
    const store = createCdnDocumentStore({ origin: noCache.origin, now: () => 0 });
    for (let i = 0; i < 3; i += 1) expect((await store.get('v1/x.json'))?.body).toBe(BODY);
    expect(noCache.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, '"abc"', '"abc"']);

    const always = await cdn(document());
    const local = createCdnDocumentStore({ origin: always.origin, now: () => 0, revalidateAlways: true });
    for (let i = 0; i < 3; i += 1) await local.get('v1/x.json');
    expect(always.requests).toHaveLength(3);
  });

  it('reads a 404 as a missing document, remembered for the max-age the CDN gave it', async () => {
    const server = await cdn(() => ({
      status: 404,
      headers: { 'content-type': 'application/problem+json', 'cache-control': 'public, max-age=60' },
      body: '{"status":404}',
    }));
    let now = 0;
    const store = createCdnDocumentStore({ origin: server.origin, now: () => now });
    expect(await store.get('v1/port-forecast/250401.json')).toBeUndefined();
    expect(await store.exists('v1/port-forecast/250401.json')).toBe(false);
    expect(server.requests).toHaveLength(1);
    now += 60_000;
    expect(await store.get('v1/port-forecast/250401.json')).toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  it.each([403, 429, 500, 503])('rejects a %i, and tries again on the next read', async (status) => {
    let failing = true;
    const server = await cdn((path, headers) =>
      failing ? { status, body: 'no' } : document()(path, headers),
    );
    const store = createCdnDocumentStore({ origin: server.origin, now: () => 0 });
    await expect(store.get('v1/ports.json')).rejects.toThrow(DocumentReadError);
    await expect(store.get('v1/ports.json')).rejects.toThrow(`answered ${status}`);
    failing = false;
    expect((await store.get('v1/ports.json'))?.body).toBe(BODY);
  });

  it('serves the stale copy while stale-if-error allows when revalidating fails, then rejects', async () => {
    let failing = false;
    const server = await cdn((path, headers) =>
      failing
        ? { status: 503, body: 'down' }
        : document({ 'cache-control': 'public, max-age=30, stale-if-error=600' })(path, headers),
    );
    let now = 0;
    const store = createCdnDocumentStore({ origin: server.origin, now: () => now });
    const first = await store.get('v1/ports.json');
    failing = true;
    now += 31_000; // stale, within stale-if-error
    expect(await store.get('v1/ports.json')).toBe(first);
    expect(server.requests).toHaveLength(2);
    now += 600_000; // beyond it
    await expect(store.get('v1/ports.json')).rejects.toThrow('answered 503');
    // Without stale-if-error (HEADERS), a failed revalidation rejects at once.
    failing = false;
    const plain = await cdn((path, headers) => (failing ? { status: 500 } : document()(path, headers)));
    const strict = createCdnDocumentStore({ origin: plain.origin, now: () => now });
    await strict.get('v1/ports.json');
    failing = true;
    now += 31_000;
    await expect(strict.get('v1/ports.json')).rejects.toThrow('answered 500');
  });

  it('rejects a read the CDN does not answer in time, or an origin that refuses connections', async () => {
    const slow = await cdn(() => ({ status: 200, headers: HEADERS, body: BODY, delayMs: 2_000 }));
    const store = createCdnDocumentStore({ origin: slow.origin, timeoutMs: 100 });
    const started = Date.now();
    await expect(store.get('v1/ports.json')).rejects.toThrow(DocumentReadError);
    expect(Date.now() - started).toBeLessThan(1_500);
    const closed = createCdnDocumentStore({ origin: 'http://127.0.0.1:9' });
    await expect(closed.get('v1/ports.json')).rejects.toThrow(
      /GET http:\/\/127\.0\.0\.1:9\/v1\/ports\.json failed/,
    );
  });

  it('shares one request among concurrent reads, and reads without the extra headers when they fail', async () => {
    const server = await cdn(() => ({ status: 200, headers: HEADERS, body: BODY, delayMs: 50 }));
    const store = createCdnDocumentStore({
      origin: server.origin,
      headers: () => Promise.reject(new Error('secret store down')),
    });
    const bodies = await Promise.all([1, 2, 3].map(() => store.get('v1/ports.json')));
    expect(bodies.map((d) => d?.body)).toEqual([BODY, BODY, BODY]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers['x-origin-verify']).toBeUndefined();
  });

  it('is read-only', async () => {
    const store = createCdnDocumentStore({ origin: 'http://127.0.0.1:9' });
    await expect(
      store.put('v1/x.json', '{}', { contentType: '', cacheControl: '', contentHash: '' }),
    ).rejects.toThrow(/read-only/);
  });
});

describe('freshnessMs', () => {
  it.each([
    ['public, max-age=300, s-maxage=300', null, 300_000],
    ['public, max-age=30, s-maxage=60', '25', 5_000],
    ['public, max-age=30', '90', 0],
    ['no-cache', null, 0],
    ['private, no-store, max-age=60', null, 0],
    [null, null, 0],
    ['public, s-maxage=60', null, 0],
  ])('%s with Age %s: %i ms', (cacheControl, age, ms) => {
    expect(freshnessMs(cacheControl, age)).toBe(ms);
  });
});
