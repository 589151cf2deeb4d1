/**
 * The deployment contract: the names, limits and timeouts that the deployed functions and the CDK
 * stack (through infra/manifest.ts) both read. Plain data, so the functions depend on it without
 * reaching into the deployment code.
 */

export interface TableSpec {
  /** Logical name; locally also the physical name. */
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  /** Epoch-seconds attribute DynamoDB expires items by (queries filter on it too). */
  readonly ttlAttribute?: string;
  /** Environment variable that carries the physical table name to functions. */
  readonly envVar: string;
}

export interface BucketSpec {
  readonly name: string;
  readonly envVar: string;
}

export const TABLES = {
  /** Raw observations, 14 days: pk = port id, sk = h#<UTC hour>, one map entry per reading. */
  observations: {
    name: 'observations',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'ttl',
    envVar: 'TABLE_OBSERVATIONS',
  },
  /** Latest reading per port lane and latest port state per source. */
  latest: {
    name: 'latest',
    partitionKey: 'pk',
    sortKey: 'sk',
    envVar: 'TABLE_LATEST',
  },
  /**
   * Per port and port-local hour of week: per-date sums and histograms, settled totals, averages
   * summaries; kept past 14 days.
   */
  rollups: {
    name: 'rollups',
    partitionKey: 'pk',
    sortKey: 'sk',
    envVar: 'TABLE_ROLLUPS',
  },
  /** Feed health per source: last attempt, success, change, error, validators. */
  health: {
    name: 'feed-health',
    partitionKey: 'pk',
    envVar: 'TABLE_HEALTH',
  },
  /** API keys (hashes only), accounts and key requests. */
  keys: {
    name: 'api-keys',
    partitionKey: 'pk',
    sortKey: 'sk',
    envVar: 'TABLE_KEYS',
  },
  /** Fixed-window request counters per key and per client IP. */
  limits: {
    name: 'rate-limits',
    partitionKey: 'pk',
    ttlAttribute: 'ttl',
    envVar: 'TABLE_LIMITS',
  },
  /** MCP Pro alerts: pk = owner (token subject), sk = alert id; recent firings inside. */
  alerts: {
    name: 'alerts',
    partitionKey: 'pk',
    sortKey: 'sk',
    envVar: 'TABLE_ALERTS',
  },
  /**
   * Travellers' push alerts: pk = EP#<hash of the browser's push endpoint>, sk = slot#<0-9> (one
   * slot per alert, so the cap per subscription is exact); expire 90 days after the last renewal.
   */
  pushAlerts: {
    name: 'push-alerts',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'ttl',
    envVar: 'TABLE_PUSH_ALERTS',
  },
  /**
   * Forecasts per port and 15-minute slot until scored (P#port/issuedAt), the track record per port
   * and target date (S#port/date), finished slots (CYCLE/slot).
   */
  forecasts: {
    name: 'forecasts',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'ttl',
    envVar: 'TABLE_FORECASTS',
  },
} as const satisfies Record<string, TableSpec>;

export const BUCKETS = {
  /** Published JSON views (v1/...), RSS and exports. */
  data: {
    name: 'border-waits-data',
    envVar: 'BUCKET_DATA',
  },
  /** The static status site. */
  site: {
    name: 'border-waits-site',
    envVar: 'BUCKET_SITE',
  },
} as const satisfies Record<string, BucketSpec>;

/**
 * The ingest function's time limit, which its lease must outlast (functions/handlers/ingest.ts).
 * A constant of its own, so the ingest bundle does not carry the whole FUNCTIONS table.
 */
export const INGEST_TIMEOUT_SECONDS = 50;

/**
 * How long the ingest's lease lasts: the function's time limit and a margin (a crashed cycle blocks
 * the next ones this long). Another writer of the history waits about this long for it.
 */
export const INGEST_LEASE_MS = INGEST_TIMEOUT_SECONDS * 1000 + 10_000;

/**
 * Default request limits (DESIGN.md section 5). The api function reads the first three from
 * KEY_RATE_LIMIT_PER_MINUTE, PUBLIC_RATE_LIMIT_PER_MINUTE and KEY_REQUESTS_PER_HOUR; the edge
 * limit is the WAF rate rule (the local edge reads EDGE_RATE_LIMIT_PER_MINUTE).
 */
export const LIMITS = {
  keyPerMinute: 60,
  publicPerMinute: 120,
  keyRequestsPerHour: 5,
  edgePerMinute: 300,
  /** `POST /push/subscriptions` per client IP per hour (PUSH_SUBSCRIPTIONS_PER_HOUR). */
  pushSubscriptionsPerHour: 20,
} as const;

/**
 * Partition-key prefixes of the counter items each function keeps in the limits table (followed by
 * the subject, and for a rate window its start). Each function may read and write its own only (IAM
 * condition `dynamodb:LeadingKeys`): the api function cannot touch the MCP counters or the alert
 * caps, nor the mcp function the API's.
 */
export const COUNTER_PREFIXES = {
  api: { key: 'KEY#', ip: 'IP#', keyRequests: 'KEYREQ#', pushSubscriptions: 'PUSHSUB#' },
  mcp: { user: 'MCPUSER#', ip: 'MCPIP#', alerts: 'ALERTS#' },
} as const;

/**
 * Secrets read at run time (Secrets Manager in AWS, files under DATA_DIR/secrets locally): the
 * name each has locally, and the environment variable that hands its ARN to a function.
 */
export const SECRETS = {
  originVerify: { name: 'origin-verify', envVar: 'ORIGIN_VERIFY_SECRET' },
  webhookSigningKey: { name: 'webhook-signing-key', envVar: 'WEBHOOK_SIGNING_KEY_SECRET' },
  /** The random string the VAPID key pair of Web Push is derived from (`vapidKeysOf`). */
  vapidKey: { name: 'vapid-key', envVar: 'VAPID_KEY_SECRET' },
} as const;

/**
 * The browsers' push services, where a Web Push endpoint may be (PUSH_SERVICE_HOSTS): Chrome and
 * Android (FCM), Firefox (Mozilla autopush), Safari and installed iOS web apps (Apple), Edge
 * (WNS). `*.` admits every subdomain; `host:port` a port other than 443 (a local stand-in).
 */
export const DEFAULT_PUSH_SERVICE_HOSTS = [
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  'web.push.apple.com',
  '*.push.apple.com',
  '*.notify.windows.com',
] as const;
