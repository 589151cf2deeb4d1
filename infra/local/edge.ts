/**
 * The local edge (CloudFront): runs the viewer-request function from infra/edge/, then serves the
 * rewritten key from the S3 stand-in (forwarding conditional headers) or hands the request to the
 * gateway, as the distribution's behaviours do. A missing data object is a problem+json 404, as
 * the distribution's custom error response makes it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  consume,
  type LimitPolicy,
  type LimitStore,
  limitHeaders,
} from '../../functions/core/access/limits.ts';
import { PROBLEM_CONTENT_TYPE, problem } from '../../functions/core/problems.ts';
import { type Clock, systemClock } from '../../functions/core/stores.ts';
import { isNotModified } from '../../functions/http/conditional.ts';
import { ORIGIN_VERIFY_HEADER } from '../../functions/http/origin-verify.ts';
import { MCP_RESPONSE_HEADERS } from '../../functions/mcp/response-headers.ts';
import { loadViewerRequest, toCfRequest } from '../edge/load.ts';
import { BUCKETS, DATA_PATH_PREFIXES, EDGE_RESPONSE_HEADERS, isHttpRoutePath, LIMITS } from '../manifest.ts';
import { behaviourKindOf, securityHeadersOf, siteContentSecurityPolicy } from '../security-headers.ts';
import { send } from './send.ts';

/**
 * In-memory fixed-window counters for the local edge's per-IP limit on what it serves itself
 * (static views, their 400s). In AWS the WAF rate rule on the distribution does this (by IP, 60 s
 * windows, approximately), so the service needs no shared store for it.
 */
export function createMemoryLimitStore(): LimitStore {
  const counts = new Map<string, number>();
  let window = 0;
  return {
    async hit(subject, windowStartSeconds, _expiresAtSeconds, amount) {
      if (windowStartSeconds !== window) {
        counts.clear();
        window = windowStartSeconds;
      }
      const count = (counts.get(subject) ?? 0) + amount;
      counts.set(subject, count);
      return count;
    },
  };
}

// Conditional headers are not forwarded: the edge compares validators itself, as CloudFront does
// against its cached copy. (s3rver also leaves the object's file open on every 304 it answers.)
const FORWARDED_REQUEST_HEADERS = ['range'];

/** RFC 9110 section 13.1: If-None-Match (weak comparison) decides, else If-Modified-Since. */
export function notModified(request: IncomingMessage['headers'], response: Headers): boolean {
  const ifNoneMatch = request['if-none-match'];
  return isNotModified(
    {
      ifNoneMatch: typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined,
      ifModifiedSince: request['if-modified-since'],
    },
    { etag: response.get('etag'), lastModified: response.get('last-modified') },
  );
}
const KEPT_RESPONSE_HEADERS = [
  'content-type',
  'cache-control',
  'etag',
  'last-modified',
  'content-length',
  'content-range',
];

export interface EdgeDeps {
  s3Endpoint: string;
  /** Handles requests the function sends to the API origin. */
  api: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  /**
   * Handles the paths of the HTTP API (`/mcp`, OAuth resource metadata): CloudFront has a
   * behaviour for each, so neither the viewer-request function nor the REST API sees them.
   */
  http?: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  /**
   * The origin secret CloudFront adds to every request it sends to the APIs (a custom origin
   * header), without which their authorizers refuse the request.
   */
  originSecret?: () => Promise<string>;
  /** Serves a site path when the site bucket has no such object (local builds, for example). */
  log: (line: string) => void;
  /** Requests per client IP per minute the edge serves itself (the WAF rule's limit in AWS). */
  edgePerMinute?: number;
  clock?: Clock;
  /** The site's Content-Security-Policy (`siteContentSecurityPolicy` of the uploaded build). */
  siteContentSecurityPolicy?: string;
}

export function createEdge(deps: EdgeDeps) {
  const viewerRequest = loadViewerRequest();

  const clock = deps.clock ?? systemClock;
  const sitePolicy = deps.siteContentSecurityPolicy ?? siteContentSecurityPolicy(undefined);
  const limits = createMemoryLimitStore();
  const policy: LimitPolicy = {
    name: 'edge',
    quota: deps.edgePerMinute ?? LIMITS.edgePerMinute,
    windowSeconds: 60,
  };

  async function fromS3(
    req: IncomingMessage,
    res: ServerResponse,
    uri: string,
    limit: Record<string, string>,
    forwarded: Record<string, { value: string }>,
  ): Promise<void> {
    const data = DATA_PATH_PREFIXES.some((prefix) => uri.startsWith(prefix));
    const bucket = data ? BUCKETS.data.name : BUCKETS.site.name;
    const key = uri;
    const headers: Record<string, string> = {};
    // As the function left them: it drops a Range header that is not one satisfiable-looking range.
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = forwarded[name]?.value;
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(`${deps.s3Endpoint}/${bucket}${encodeURI(key)}`, {
      method: req.method === 'HEAD' ? 'HEAD' : 'GET',
      headers,
    });
    const content = Buffer.from(await upstream.arrayBuffer());
    const out: Record<string, string> = { ...EDGE_RESPONSE_HEADERS, ...limit };
    if (upstream.status === 404 || upstream.status === 403) {
      const body = JSON.stringify(
        problem(
          'not-found',
          data ? 'No such port or document; GET /api/v1/ports lists the ports' : `No such page: ${uri}`,
          uri,
        ),
      );
      send(
        res,
        req.method,
        404,
        { ...out, 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'public, max-age=60' },
        body,
      );
      return;
    }
    if (upstream.status === 416) {
      // S3's InvalidRange is XML; the distribution's custom error response makes it problem+json.
      const body = JSON.stringify(
        problem('range-not-satisfiable', `The range ${headers.range ?? ''} is outside the document`, uri),
      );
      send(
        res,
        req.method,
        416,
        { ...out, 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'public, max-age=60' },
        body,
      );
      return;
    }
    for (const name of KEPT_RESPONSE_HEADERS) {
      const value = upstream.headers.get(name);
      if (value !== null) out[name] = value;
    }
    if (!upstream.ok) {
      deps.log(`edge: S3 answered ${upstream.status} for ${bucket}${key}`);
    }
    if (upstream.status === 200 && notModified(req.headers, upstream.headers)) {
      delete out['content-type'];
      delete out['content-length'];
      res.writeHead(304, out);
      res.end();
      return;
    }
    send(res, req.method, upstream.status, out, content);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://edge.local');
    // On every path, before any routing: CloudFront sets CloudFront-Viewer-Address itself
    // (replacing any value a client sent; the origin request policy forwards it) and adds the
    // origin secret as a custom origin header (replacing a viewer header of that name).
    const ip = req.socket.remoteAddress ?? 'unknown';
    req.headers['cloudfront-viewer-address'] = `${ip}:${req.socket.remotePort ?? 0}`;
    const presented = req.headers[ORIGIN_VERIFY_HEADER];
    delete req.headers[ORIGIN_VERIFY_HEADER];
    const originSecret = deps.originSecret ? await deps.originSecret() : undefined;
    if (originSecret !== undefined) req.headers[ORIGIN_VERIFY_HEADER] = originSecret;
    // The mcp function reads the views through the edge with the origin secret; the WAF's rule
    // leaves such requests uncounted (its scope-down statement), and so does this limit.
    const exempt = originSecret !== undefined && presented === originSecret;
    // Every behaviour's response headers policy: the security headers on every answer, errors and
    // the APIs' included (the origin's own values of these names give way, as with `override`).
    for (const [name, value] of Object.entries(securityHeadersOf(behaviourKindOf(url.pathname), sitePolicy)))
      res.setHeader(name, value);
    const outcome = viewerRequest(
      toCfRequest(req.method ?? 'GET', url, req.headers),
      req.socket.remoteAddress,
    );
    // The HTTP API's behaviours run the function too (it answers their preflights), and it hands
    // every other request there on unchanged.
    if (deps.http && outcome.kind === 'request' && isHttpRoutePath(url.pathname)) {
      // Their headers policy: CORS and Link without override. The answers the HTTP API gives
      // itself (its origin authorizer's 401 and 403, a throttle's 429, a 413) gain them; the
      // function's own values win (writeHead's headers take precedence over setHeader's).
      for (const [name, value] of Object.entries(MCP_RESPONSE_HEADERS)) res.setHeader(name, value);
      await deps.http(req, res, url);
      return;
    }
    const servedHere =
      outcome.kind === 'response' ||
      (outcome.originId !== 'api' &&
        DATA_PATH_PREFIXES.some((prefix) => outcome.request.uri.startsWith(prefix)));
    let limit: Record<string, string> = {};
    if (servedHere && !exempt) {
      const decision = await consume(limits, policy, `IP#${ip}`, clock.now());
      limit = limitHeaders(decision);
      if (!decision.admitted) {
        send(
          res,
          req.method,
          429,
          {
            ...EDGE_RESPONSE_HEADERS,
            ...limit,
            'content-type': PROBLEM_CONTENT_TYPE,
            'cache-control': 'no-store',
          },
          JSON.stringify(
            problem(
              'rate-limited',
              `More than ${policy.quota} requests in 60 seconds from this address; retry after ${decision.resetSeconds} s.`,
              url.pathname,
              { 'violated-policies': [policy.name] },
            ),
          ),
        );
        return;
      }
    }
    if (outcome.kind === 'response') {
      const headers: Record<string, string> = { ...EDGE_RESPONSE_HEADERS, ...limit };
      for (const [name, value] of Object.entries(outcome.response.headers ?? {})) headers[name] = value.value;
      send(res, req.method, outcome.response.statusCode, headers, outcome.response.body ?? '');
      return;
    }
    if (outcome.originId === 'api') {
      await deps.api(req, res, url);
      return;
    }
    await fromS3(req, res, outcome.request.uri, limit, outcome.request.headers);
  };
}
