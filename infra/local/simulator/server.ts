/**
 * The feed simulator on loopback: CBP's `bwt.xml` and `api/bwtnew`, CBSA's `bwt-eng.csv` and
 * `bwt-fra.csv`, built for the simulator's clock, with strong ETags and conditional GET, and
 * injectable faults for the ingest's failure tests. `npm run demo` feeds the local runtime from it.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimulatorClock } from './clock.ts';
import {
  type CbsaLanguage,
  cbpGraph,
  cbpJson,
  cbpXml,
  cbsaCsv,
  type DocumentOptions,
  portOfGraphId,
} from './documents.ts';
import { CBSA_PORTS, cbsaRowView } from './model.ts';

export { createFastClock, type FastClockOptions, type SimulatorClock } from './clock.ts';

/** A failure the simulator answers with, per feed, until cleared. */
export type Fault =
  /** That HTTP status, with a small HTML error page. */
  | { kind: 'status'; status: number }
  /** Never answers (until the simulator stops). */
  | { kind: 'hang' }
  /** The document cut in half (a consistent `Content-Length` of the half). */
  | { kind: 'truncated' }
  /** 200 with an empty body. */
  | { kind: 'empty' }
  /** A valid document with only that many ports (CBP) or offices (CBSA). */
  | { kind: 'few-ports'; ports: number }
  /** 200 with an HTML error page under that content type. */
  | { kind: 'content-type'; contentType: string }
  /** 200 with a body of that many bytes, streamed without a length. */
  | { kind: 'oversized'; bytes: number }
  /** The connection destroyed without an answer. */
  | { kind: 'down' }
  /**
   * 200 with a hostile XML document under the feed's content type: a billion-laughs entity bomb
   * (nested internal entities that would expand to gigabytes) in the shape of `bwt.xml`.
   */
  | { kind: 'entity-bomb' }
  /**
   * The feed's document as it was `ageMs` earlier (with that document's own ETag and
   * Last-Modified): an older document replayed, as a stale CDN node or a feed rollback serves it.
   */
  | { kind: 'older'; ageMs: number };

/** The feeds: `cbp` (XML and JSON), `cbsa` (both CSVs) and `graph` (CBP's hourly graphs). */
export type SimulatedFeed = 'cbp' | 'cbsa' | 'graph';

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  /** TCP port (default 0: any free port). */
  port?: number;
  /** Interface (default 127.0.0.1). */
  host?: string;
  /** Where simulated time comes from (default the system clock); `setClock` replaces it. */
  clock?: SimulatorClock;
  /** Only these port ids in every document (default: the whole catalogue). */
  ports?: readonly string[];
}

/** A running simulator. */
export interface Simulator {
  /** `http://127.0.0.1:<port>` */
  url: string;
  cbpXmlUrl: string;
  cbpJsonUrl: string;
  cbsaEnUrl: string;
  cbsaFrUrl: string;
  /** CBP's hourly graph as a CBP_GRAPH_URL template (`{bwtId}`, `{date}`). */
  cbpGraphUrl: string;
  /** Graph documents served so far (a test checks the fetch is polite). */
  graphRequests(): number;
  /** Freezes simulated time at `ms` (epoch ms): every document is built for that instant. */
  setClock(ms: number): void;
  /** Makes a feed fail in the given way until `setFault(feed, null)`. */
  setFault(feed: SimulatedFeed, fault: Fault | null): void;
  /** Ends pending (hanging or streaming) requests and closes the server. */
  stop(): Promise<void>;
}

interface Route {
  feed: SimulatedFeed;
  contentType: string;
  /** The document's text at an instant and its bytes. */
  build(atMs: number, options: DocumentOptions): Buffer;
  /** `Last-Modified` of the document at an instant. */
  lastModified(atMs: number): number;
}

/** The newest CBSA row time: the CSV only changes when a row does. */
function cbsaLastModified(atMs: number): number {
  return Math.max(...CBSA_PORTS.map((port) => cbsaRowView(port, atMs).updatedAtMs));
}

function csvRoute(language: CbsaLanguage): Route {
  return {
    feed: 'cbsa',
    contentType: 'text/csv; charset=utf-8',
    build: (atMs, options) => Buffer.from(cbsaCsv(atMs, language, options), 'utf8'),
    lastModified: cbsaLastModified,
  };
}

const ROUTES: Readonly<Record<string, Route>> = {
  '/xml/bwt.xml': {
    feed: 'cbp',
    contentType: 'text/xml; charset=ISO-8859-1',
    // Declared ISO-8859-1: every character of the document is below U+0100.
    build: (atMs, options) => Buffer.from(cbpXml(atMs, options), 'latin1'),
    lastModified: (atMs) => atMs,
  },
  '/api/bwtnew': {
    feed: 'cbp',
    contentType: 'application/json; charset=utf-8',
    build: (atMs, options) => Buffer.from(cbpJson(atMs, options), 'utf8'),
    lastModified: (atMs) => atMs,
  },
  '/bwt-taf/bwt-eng.csv': csvRoute('en'),
  '/bwt-taf/bwt-fra.csv': csvRoute('fr'),
};

/** `/api/bwtwaittimegraph/{bwtId}/{YYYY-MM-DD}` of a simulated port, else undefined (404). */
function graphRoute(path: string, world: DocumentOptions): Route | undefined {
  const match = /^\/api\/bwtwaittimegraph\/([^/]+)\/(\d{4}-\d{2}-\d{2})$/.exec(path);
  const port = match ? portOfGraphId(decodeURIComponent(match[1] as string), world) : undefined;
  if (!match || !port) return undefined;
  const date = match[2] as string;
  return {
    feed: 'graph',
    contentType: 'application/json; charset=utf-8',
    build: () => Buffer.from(cbpGraph(port, date), 'utf8'),
    lastModified: (atMs) => Math.floor(atMs / 86_400_000) * 86_400_000,
  };
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** True when `If-None-Match` lists the ETag (or `*`); weak comparison, as RFC 9110 asks for GET. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}

function notModifiedSince(header: string | undefined, lastModifiedMs: number): boolean {
  if (header === undefined) return false;
  const since = Date.parse(header);
  return Number.isFinite(since) && Math.floor(lastModifiedMs / 1000) * 1000 <= since;
}

/** A billion-laughs document: ten levels of ten references each (10^9 copies of "lol"). */
export const ENTITY_BOMB = [
  '<?xml version="1.0" encoding="ISO-8859-1"?>',
  '<!DOCTYPE border_wait_time [',
  '  <!ENTITY lol "lol">',
  ...Array.from(
    { length: 9 },
    (_, level) => `  <!ENTITY lol${level + 1} "${`&lol${level === 0 ? '' : level};`.repeat(10)}">`,
  ),
  ']>',
  '<border_wait_time><last_updated_date>&lol9;</last_updated_date><port><port_number>250401</port_number><port_name>&lol9;</port_name></port></border_wait_time>',
  '',
].join('\n');

const ERROR_PAGE = (status: number, text: string): string =>
  `<!DOCTYPE html><html><head><title>${status} ${text}</title></head><body><h1>${text}</h1><p>The service is temporarily unavailable. Please try again later.</p></body></html>`;

function send(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): void {
  response.writeHead(status, { ...headers, 'content-length': String(body.length) });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Streams `total` bytes of repeated `sample`, honouring backpressure, until done or the client leaves. */
function streamOversized(response: ServerResponse, sample: Buffer, total: number): void {
  const chunkSize = 64 * 1024;
  const repeats = Math.max(1, Math.ceil(chunkSize / Math.max(1, sample.length)));
  const chunk = Buffer.concat(Array.from({ length: repeats }, () => sample)).subarray(0, chunkSize);
  let sent = 0;
  const pump = (): void => {
    while (sent < total) {
      if (response.destroyed) return;
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      if (!response.write(piece)) {
        response.once('drain', pump);
        return;
      }
    }
    response.end();
  };
  pump();
}

/**
 * Starts the simulator on `host:port` (default 127.0.0.1, any free port).
 *
 * Routes: `/xml/bwt.xml` (`text/xml; charset=ISO-8859-1`, Latin-1 bytes), `/api/bwtnew`
 * (`application/json`), `/bwt-taf/bwt-eng.csv` and `/bwt-taf/bwt-fra.csv` (`text/csv; charset=utf-8`),
 * GET and HEAD, each with a strong `ETag` (hash of the body) and `Last-Modified`, answering
 * `If-None-Match` (and `If-Modified-Since`) with 304.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  let clock: SimulatorClock = options.clock ?? { now: () => Date.now() };
  const faults = new Map<SimulatedFeed, Fault>();
  const world: DocumentOptions = options.ports ? { onlyPorts: new Set(options.ports) } : {};

  let graphs = 0;
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const path = new URL(request.url ?? '/', 'http://simulator').pathname;
    const route = ROUTES[path] ?? graphRoute(path, world);
    if (route?.feed === 'graph') graphs++;
    if (route === undefined) {
      send(
        request,
        response,
        404,
        { 'content-type': 'text/plain; charset=utf-8' },
        Buffer.from('Not Found\n'),
      );
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(
        request,
        response,
        405,
        { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' },
        Buffer.from('Method Not Allowed\n'),
      );
      return;
    }
    const atMs = clock.now();
    const fault = faults.get(route.feed);
    const html = { 'content-type': 'text/html; charset=utf-8' };
    switch (fault?.kind) {
      case 'down':
        request.socket.destroy();
        return;
      case 'hang':
        // Left unanswered: `stop()` destroys the connection.
        return;
      case 'status':
        send(
          request,
          response,
          fault.status,
          html,
          Buffer.from(ERROR_PAGE(fault.status, 'Service Unavailable')),
        );
        return;
      case 'content-type':
        send(
          request,
          response,
          200,
          { 'content-type': fault.contentType },
          Buffer.from(ERROR_PAGE(200, 'Error')),
        );
        return;
      case 'empty':
        send(request, response, 200, { 'content-type': route.contentType }, Buffer.alloc(0));
        return;
      case 'truncated': {
        const body = route.build(atMs, world);
        send(
          request,
          response,
          200,
          { 'content-type': route.contentType },
          body.subarray(0, Math.floor(body.length / 2)),
        );
        return;
      }
      case 'entity-bomb':
        send(
          request,
          response,
          200,
          { 'content-type': route.contentType },
          Buffer.from(ENTITY_BOMB, 'latin1'),
        );
        return;
      case 'oversized':
        response.writeHead(200, { 'content-type': route.contentType });
        if (request.method === 'HEAD') {
          response.end();
          return;
        }
        streamOversized(response, route.build(atMs, world), fault.bytes);
        return;
      default:
        break;
    }
    const builtAt = fault?.kind === 'older' ? atMs - fault.ageMs : atMs;
    const body = route.build(
      builtAt,
      fault?.kind === 'few-ports' ? { ...world, maxPorts: fault.ports } : world,
    );
    const etag = etagOf(body);
    const lastModified = route.lastModified(builtAt);
    const headers = {
      'content-type': route.contentType,
      etag,
      'last-modified': new Date(lastModified).toUTCString(),
      'cache-control': 'no-cache',
    };
    const ifNoneMatch = request.headers['if-none-match'];
    const notModified =
      ifNoneMatch !== undefined
        ? matchesEtag(ifNoneMatch, etag)
        : notModifiedSince(request.headers['if-modified-since'], lastModified);
    if (notModified) {
      response.writeHead(304, {
        etag,
        'last-modified': headers['last-modified'],
        'cache-control': 'no-cache',
      });
      response.end();
      return;
    }
    send(request, response, 200, headers, body);
  };

  const server = createServer((request, response) => {
    try {
      handle(request, response);
    } catch (error: unknown) {
      const message = error instanceof Error ? error.message : String(error);
      if (!response.headersSent) {
        send(
          request,
          response,
          500,
          { 'content-type': 'text/plain; charset=utf-8' },
          Buffer.from(`simulator error: ${message}\n`),
        );
      } else {
        response.destroy();
      }
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  let stopping: Promise<void> | undefined;
  return {
    url,
    cbpXmlUrl: `${url}/xml/bwt.xml`,
    cbpJsonUrl: `${url}/api/bwtnew`,
    cbsaEnUrl: `${url}/bwt-taf/bwt-eng.csv`,
    cbsaFrUrl: `${url}/bwt-taf/bwt-fra.csv`,
    cbpGraphUrl: `${url}/api/bwtwaittimegraph/{bwtId}/{date}`,
    graphRequests: () => graphs,
    setClock(ms: number) {
      clock = { now: () => ms };
    },
    setFault(feed: SimulatedFeed, fault: Fault | null) {
      if (fault === null) faults.delete(feed);
      else faults.set(feed, fault);
    },
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hanging and streaming requests never finish on their own.
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}
