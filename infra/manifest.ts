/**
 * The one description of the service's resources, read by the CDK stack (infra/app.ts) and by
 * the local runtime (infra/local/), so the two cannot drift. Plain data: no CDK, no SDK.
 */
import { COUNTER_PREFIXES, INGEST_TIMEOUT_SECONDS, LIMITS } from '../functions/contract.ts';
import { RETENTION_HOURS } from '../functions/core/model.ts';
import { PROBLEMS, type ProblemKind, problemType } from '../functions/core/problems.ts';
import { SITE_URL } from '../functions/core/site.ts';
import { EXPORTS_PREFIX } from '../functions/core/stores.ts';
import {
  KEY_REQUESTS_PATH,
  OPENAPI_PATH,
  PUSH_PATHS,
  VIEW_PATHS,
} from '../functions/core/views/view-paths.ts';

export type { BucketSpec, TableSpec } from '../functions/contract.ts';
export { BUCKETS, INGEST_TIMEOUT_SECONDS, LIMITS, SECRETS, TABLES } from '../functions/contract.ts';

/** DynamoDB item actions a function may be granted one by one (least privilege). */
export type DynamoAction = 'GetItem' | 'Query' | 'Scan' | 'PutItem' | 'UpdateItem' | 'DeleteItem';

export interface FunctionSpec {
  readonly name: string;
  /** Module exporting `handler`, relative to the project root. */
  readonly entry: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  /** Concurrent executions reserved (and capped); unset: the account's shared pool. */
  readonly reservedConcurrency?: number;
  /** A table's grant: read, write, both, or exactly these DynamoDB actions (`Query`, `PutItem` ...). */
  readonly tables: { readonly [table: string]: 'read' | 'write' | 'readWrite' | readonly DynamoAction[] };
  readonly buckets: { readonly [bucket: string]: 'read' | 'write' | 'readWrite' };
  /**
   * Writes narrower than a table grant: PutItem only on items whose partition key starts with the
   * prefix (IAM condition `dynamodb:LeadingKeys`).
   */
  readonly tableWritesUnder?: { readonly [table: string]: string };
  /** Writes narrower than a bucket grant: PutObject only on keys under the prefix. */
  readonly bucketWritesUnder?: { readonly [bucket: string]: string };
  /**
   * A table's items this function reads and writes, and no other: GetItem, PutItem and UpdateItem
   * on items whose partition key starts with one of the prefixes (`dynamodb:LeadingKeys`). The
   * table's name reaches the function as with `tables`.
   */
  readonly tableItemsUnder?: { readonly [table: string]: readonly string[] };
  /**
   * A bucket's objects this function reads, and no other: GetObject under the prefixes, and no
   * listing (S3 then answers 403 for a missing key). The name reaches the function as with `buckets`.
   */
  readonly bucketReadsUnder?: { readonly [bucket: string]: readonly string[] };
  readonly description: string;
}

export interface RouteSpec {
  /** Path pattern as API Gateway REST writes it (`{proxy+}` for a greedy tail). */
  readonly path: string;
  readonly methods: readonly string[];
  readonly function: string;
  /**
   * A precomputed view: without `x-api-key`, the edge serves its document from the data bucket
   * (the stack gives each such path a cache behaviour on the data origin).
   */
  readonly static?: boolean;
}

/**
 * A route of the HTTP API (payload format 2.0), not of the REST API: REST proxy integrations rename
 * a function's `WWW-Authenticate` to `x-amzn-Remapped-WWW-Authenticate`, which breaks the MCP
 * OAuth challenge. CloudFront sends these paths (a behaviour each) straight to the HTTP API.
 */
export interface HttpRouteSpec {
  /** Exact path, or a prefix ending in `*` (CloudFront path pattern). */
  readonly path: string;
  readonly methods: readonly string[];
  readonly function: string;
}

export interface ScheduleSpec {
  readonly name: string;
  readonly function: string;
  readonly rateSeconds: number;
  readonly description: string;
}

export const FUNCTIONS = {
  ingest: {
    name: 'ingest',
    entry: 'functions/handlers/ingest.ts',
    memoryMb: 512,
    timeoutSeconds: INGEST_TIMEOUT_SECONDS,
    // One cycle at a time: cycles read-modify-write feed health and latest. The lease in DynamoDB
    // covers what this cannot (a retried event queued behind a running cycle, a local run).
    reservedConcurrency: 1,
    tables: {
      observations: 'readWrite',
      latest: 'readWrite',
      rollups: 'readWrite',
      health: 'readWrite',
      alerts: 'readWrite',
      // Evaluation: every alert (Scan), its dip state (UpdateItem), a gone subscription's alerts
      // (Query, DeleteItem). It never creates one.
      pushAlerts: ['Scan', 'Query', 'UpdateItem', 'DeleteItem'],
    },
    buckets: { data: 'readWrite' },
    description:
      'One ingest cycle per source: fetch, parse, store, roll up, publish, evaluate alerts, record health',
  },
  forecast: {
    name: 'forecast',
    entry: 'functions/handlers/forecast.ts',
    memoryMb: 512,
    timeoutSeconds: 60,
    // One run at a time: runs of one slot are idempotent, but a second would only redo the first.
    reservedConcurrency: 1,
    tables: {
      observations: 'read',
      latest: 'read',
      rollups: 'read',
      forecasts: 'readWrite',
    },
    buckets: { data: 'readWrite' },
    description:
      'Once per 15-minute slot: score the forecasts that came due, issue the next, publish them and the skill summary',
  },
  api: {
    name: 'api',
    entry: 'functions/handlers/api.ts',
    memoryMb: 512,
    timeoutSeconds: 10,
    tables: {
      observations: 'read',
      latest: 'read',
      rollups: 'read',
      health: 'read',
      keys: 'read',
      // Travellers' push alerts: created (Query for a free slot, PutItem), renewed (UpdateItem)
      // and deleted (DeleteItem) by their token holders; never listed (no Scan).
      pushAlerts: ['Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    },
    // Reads keys; writes only key requests (REQUEST#<id> items: functions/adapters/dynamo/keys.ts).
    tableWritesUnder: { keys: 'REQUEST#' },
    // Its own rate counters only: per key, per client IP, per key-request sender.
    tableItemsUnder: { limits: Object.values(COUNTER_PREFIXES.api) },
    buckets: { data: 'read' },
    description: 'The /api/v1 views for keyed and dynamic requests',
  },
  mcp: {
    name: 'mcp',
    entry: 'functions/handlers/mcp.ts',
    memoryMb: 512,
    timeoutSeconds: 15,
    tables: {
      observations: 'read',
      latest: 'read',
      rollups: 'read',
      alerts: 'readWrite',
    },
    // Its own rate counters (per user, per client IP) and the alert caps only.
    tableItemsUnder: { limits: Object.values(COUNTER_PREFIXES.mcp) },
    // Reads only its exports (to sign their download links): the published views it reads from
    // the CDN, as any client does (functions/adapters/cdn/documents.ts). Lists nothing, so no
    // caller can enumerate other users' exports; writes only exports.
    buckets: {},
    bucketReadsUnder: { data: [EXPORTS_PREFIX] },
    bucketWritesUnder: { data: EXPORTS_PREFIX },
    description: 'The /mcp endpoint (MCP Streamable HTTP, stateless) and its OAuth resource metadata',
  },
} as const satisfies Record<string, FunctionSpec>;

/** The function manifest, typed loosely for code that iterates it. */
export const FUNCTION_SPECS: Readonly<Record<keyof typeof FUNCTIONS, FunctionSpec>> = FUNCTIONS;

/**
 * The api function's REST routes: every read view of the view table, then the rest. Built by a
 * call marked pure, so a bundle that imports the manifest but not ROUTES (every function) drops
 * it and the view table with it.
 */
export const ROUTES: readonly RouteSpec[] = /* @__PURE__ */ apiRoutes();

function apiRoutes(): RouteSpec[] {
  // ANY on every path: a method a path does not take reaches the api function, which answers 405
  // problem+json with Allow, instead of API Gateway's MISSING_AUTHENTICATION_TOKEN (a 404 naming
  // the stage). The edge answers those first (infra/edge/viewer-request.js); this is the origin's
  // own answer. The root catch-all makes any other path the function's problem+json 404.
  return [
    ...Object.values(VIEW_PATHS).map(
      (view): RouteSpec => ({
        path: view.path,
        methods: ['ANY'],
        function: 'api',
        static: view.document !== null,
      }),
    ),
    { path: OPENAPI_PATH, methods: ['ANY'], function: 'api' },
    { path: '/api/v1/{proxy+}', methods: ['ANY'], function: 'api' },
    // The request-a-key form (outside the read-only /api/v1): POST, and 405 for the rest.
    { path: KEY_REQUESTS_PATH, methods: ['ANY'], function: 'api' },
    // Web Push: the VAPID public key and travellers' push alerts (outside /api/v1 too); the
    // function answers 405 to the methods each does not take.
    { path: PUSH_PATHS.publicKey, methods: ['ANY'], function: 'api' },
    { path: PUSH_PATHS.subscriptions, methods: ['ANY'], function: 'api' },
    { path: `${PUSH_PATHS.subscriptions}/{id}`, methods: ['ANY'], function: 'api' },
    { path: '/{proxy+}', methods: ['ANY'], function: 'api' },
  ];
}

export interface CorsRouteSpec {
  /** Exact path, or a prefix ending in `/`. */
  readonly path: string;
  /** The methods the path takes (and OPTIONS, the preflight). */
  readonly methods: readonly string[];
  /** Request headers a page may send there, besides the CORS-safelisted ones. */
  readonly requestHeaders: readonly string[];
}

/**
 * What a browser may send where (CORS), by path: an exact path, or a prefix ending in `/`; the
 * first row that matches counts, and `/` matches every path. The CloudFront function answers every
 * preflight (`OPTIONS`) from this table at the edge, for the REST API, the HTTP API (`/mcp`) and
 * the buckets alike, and refuses a method a path does not take with 405 (except on the HTTP API's
 * paths, whose function answers that itself). `npm run edge:slugs` writes the table into the
 * function; test/infra/edge.test.ts keeps the two equal. A new endpoint (`/push/`) is one more row.
 *
 * Each header is named: the `*` wildcard of `Access-Control-Allow-Headers` never covers
 * `Authorization` (Fetch standard, CORS-preflight fetch).
 */
export const CORS_ROUTES: readonly CorsRouteSpec[] = [
  {
    path: '/mcp',
    methods: ['POST'],
    requestHeaders: [
      'authorization',
      'content-type',
      'mcp-protocol-version',
      'mcp-session-id',
      'mcp-method',
      'mcp-name',
      'last-event-id',
    ],
  },
  { path: KEY_REQUESTS_PATH, methods: ['POST'], requestHeaders: ['content-type'] },
  { path: PUSH_PATHS.subscriptions, methods: ['POST'], requestHeaders: ['content-type'] },
  {
    path: `${PUSH_PATHS.subscriptions}/`,
    methods: ['PUT', 'DELETE'],
    requestHeaders: ['authorization', 'content-type'],
  },
  {
    path: '/api/',
    methods: ['GET', 'HEAD'],
    requestHeaders: ['x-api-key', 'if-none-match', 'if-modified-since'],
  },
  { path: '/', methods: ['GET', 'HEAD'], requestHeaders: ['if-none-match', 'if-modified-since'] },
];

/** How long a browser may keep a preflight's answer, in seconds (browsers cap it lower). */
export const CORS_MAX_AGE_SECONDS = 86_400;

/** `RateLimit-Policy` of API Gateway's own responses (401 from the authorizer, 5xx): a static header. */
export const GATEWAY_RATELIMIT_POLICY = /* @__PURE__ */ (() =>
  `"key";q=${LIMITS.keyPerMinute};w=60, "ip";q=${LIMITS.publicPerMinute};w=60`)();

/**
 * Headers of every answer API Gateway gives itself (the gateway responses), besides its type and
 * `Retry-After`: CORS, the limit policy and the attribution link every response carries.
 */
export const GATEWAY_RESPONSE_HEADERS: Readonly<Record<string, string>> = /* @__PURE__ */ (() => ({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After, RateLimit-Policy, Link',
  'ratelimit-policy': GATEWAY_RATELIMIT_POLICY,
  link: `<${SITE_URL}>; rel="author"`,
}))();

/**
 * `Retry-After` of the 503 API Gateway answers when the authorizer cannot decide (the key or
 * secret store is unreachable): the stack's AUTHORIZER_FAILURE response and the local gateway.
 */
export const AUTHORIZER_RETRY_AFTER_SECONDS = 5;

/**
 * API Gateway's own answers (gateway responses), as problem+json from the catalogue. `fixedStatus`:
 * the response sets its status and the body says it; otherwise the status is the gateway's own
 * (DEFAULT_4XX, DEFAULT_5XX) and the body has no `status` member. The stack configures these and
 * the local gateway answers with them.
 */
export const GATEWAY_RESPONSES = {
  Default4xx: { responseType: 'DEFAULT_4XX', kind: 'client-error', fixedStatus: false },
  Default5xx: { responseType: 'DEFAULT_5XX', kind: 'server-error', fixedStatus: false },
  Throttled: { responseType: 'THROTTLED', kind: 'rate-limited', fixedStatus: true },
  QuotaExceeded: { responseType: 'QUOTA_EXCEEDED', kind: 'quota-exceeded', fixedStatus: true },
  Unauthorized: { responseType: 'UNAUTHORIZED', kind: 'invalid-key', fixedStatus: true },
  AccessDenied: { responseType: 'ACCESS_DENIED', kind: 'access-denied', fixedStatus: true },
  // The authorizer could not decide (key or secret store unreachable): 503, Retry-After.
  AuthorizerFailure: { responseType: 'AUTHORIZER_FAILURE', kind: 'unavailable', fixedStatus: true },
  AuthorizerConfigurationError: {
    responseType: 'AUTHORIZER_CONFIGURATION_ERROR',
    kind: 'unavailable',
    fixedStatus: true,
  },
  MissingToken: { responseType: 'MISSING_AUTHENTICATION_TOKEN', kind: 'not-found', fixedStatus: true },
  // A body over API Gateway's payload limit: 413, as the local gateway answers one over 6 MB.
  RequestTooLarge: { responseType: 'REQUEST_TOO_LARGE', kind: 'too-large', fixedStatus: true },
} as const satisfies Record<string, { responseType: string; kind: ProblemKind; fixedStatus: boolean }>;

export type GatewayResponseName = keyof typeof GATEWAY_RESPONSES;

/** The REST API's one stage: the first segment of every execute-api path (`$context.path`). */
export const API_STAGE = 'prod';

/**
 * The body of a gateway response with `detail` as given: a `$context` variable in the stack's
 * mapping template, a value locally. It has no `instance` (optional in RFC 9457): a gateway
 * response's template is not run by Velocity but only substitutes variables, and no variable holds
 * the path as the client asked it (`$context.path` carries the `/prod` stage, CloudFront's origin
 * path; `$context.resourcePath` is the matched template, `/api/v1/{proxy+}`).
 */
export function gatewayProblemBody(name: GatewayResponseName, detailJson: string): string {
  const { kind, fixedStatus } = GATEWAY_RESPONSES[name];
  const { status, title } = PROBLEMS[kind];
  const statusMember = fixedStatus ? `,"status":${status}` : '';
  return `{"type":${JSON.stringify(problemType(kind))},"title":${JSON.stringify(title)}${statusMember},"detail":${detailJson}}`;
}

/** Served by the HTTP API (see `HttpRouteSpec`); the edge sends them there before its function runs. */
export const HTTP_ROUTES: readonly HttpRouteSpec[] = [
  // ANY: the function answers a method it does not take (405, Allow: POST).
  { path: '/mcp', methods: ['ANY'], function: 'mcp' },
  { path: '/.well-known/oauth-protected-resource*', methods: ['GET', 'HEAD'], function: 'mcp' },
];

/** Whether `pathname` belongs to an HTTP API route (CloudFront path-pattern semantics). */
export function isHttpRoutePath(pathname: string): boolean {
  return HTTP_ROUTES.some((route) =>
    route.path.endsWith('*') ? pathname.startsWith(route.path.slice(0, -1)) : pathname === route.path,
  );
}

/** Exports written by the mcp function live under this prefix of the data bucket (expired by a lifecycle rule). */
export { EXPORTS_PREFIX };

export const SCHEDULES = {
  ingest: {
    name: 'ingest',
    function: 'ingest',
    rateSeconds: 60,
    description: 'Both feeds every minute; conditional GET makes an unchanged feed cheap',
  },
  forecast: {
    name: 'forecast',
    function: 'forecast',
    // Three runs per 15-minute slot: the first does the slot, the others find it done (one read)
    // or finish what a failed or cut-short run left.
    rateSeconds: 300,
    description: 'Forecasts every 15-minute slot, a few minutes into it (the slot is done once)',
  },
} as const satisfies Record<string, ScheduleSpec>;

/** Raw observations are kept this long (DESIGN.md section 6): a domain rule, owned by the core. */
export { RETENTION_HOURS };

/** Paths that always go to API Gateway (origin id `api`, the id the edge function selects). */
export const API_PATTERNS = ['/api/*', '/keys/*', '/.well-known/*'];
/** The Web Push endpoints: to API Gateway too, through their own cache policy (the stack's). */
export const PUSH_PATTERNS = ['/push/*'];

/** Paths the CDN serves from the data bucket (the rest of the keyless site comes from the site bucket). */
export const DATA_PATH_PREFIXES = ['/v1/', '/rss.xml', '/rss/'] as const;

/**
 * Headers the CDN adds to every response it serves from S3 (a CloudFront response headers policy),
 * beside the security headers of every behaviour (infra/security-headers.ts).
 * Built in a call marked pure, like GATEWAY_RATELIMIT_POLICY: the functions' bundles, which never
 * read them, leave them out.
 */
export const EDGE_RESPONSE_HEADERS: Readonly<Record<string, string>> = /* @__PURE__ */ (() => ({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, Last-Modified, Retry-After, RateLimit, RateLimit-Policy, Link',
  // The WAF's per-IP rule that covers everything the CDN serves (IETF draft syntax).
  'ratelimit-policy': `"edge";q=${LIMITS.edgePerMinute};w=60`,
  link: `<${SITE_URL}>; rel="author"`,
}))();
