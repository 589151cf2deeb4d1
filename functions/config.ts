/**
 * Configuration of each function: one zod schema, parsed once per cold start from the environment,
 * failing with every bad key listed. Adapters never read `process.env`.
 *
 * Written with `zod/mini` (the tree-shakeable functional API): the ingest function and the
 * authorizers need no other part of zod, and mini costs them about 25 KB of bundle instead of 90.
 */
import * as z from 'zod/mini';
import { BUCKETS, DEFAULT_PUSH_SERVICE_HOSTS, LIMITS, SECRETS, TABLES } from './contract.ts';
import { SITE_ORIGIN } from './core/site.ts';

/**
 * `build()`, called where a schema is declared. The calls are marked pure: a bundle that never
 * reads a schema drops it, the zod code only it needs and its construction at cold start (the
 * authorizers do not carry the mcp function's schema). The helpers below are marked the same way.
 */
const built = <T>(build: () => T): T => build();

const URL_MESSAGE = 'must be a URL';
/** A URL, `fallback` when unset. */
// @__NO_SIDE_EFFECTS__
const url = (fallback: string) => z._default(z.url(URL_MESSAGE), fallback);
const optionalUrl = z.optional(z.url(URL_MESSAGE));
/** A string of at least `min` characters, `fallback` when unset. */
// @__NO_SIDE_EFFECTS__
const text = (fallback: string, min = 1) =>
  z._default(z.string().check(z.minLength(min, `must be at least ${min} characters`)), fallback);
const requiredText = /* @__PURE__ */ built(() =>
  z.string('is required').check(z.minLength(1, 'must not be empty')),
);
/** A whole number, at least `min`, `fallback` when unset. */
// @__NO_SIDE_EFFECTS__
const wholeNumber = (fallback: number, min: number) =>
  z._default(
    z.pipe(
      z.coerce.number(`must be a whole number >= ${min}`),
      z.int(`must be a whole number >= ${min}`).check(z.gte(min, `must be a whole number >= ${min}`)),
    ),
    fallback,
  );
// @__NO_SIDE_EFFECTS__
const positiveInt = (fallback: number) => wholeNumber(fallback, 1);

/** Endpoints of local stand-ins; unset in AWS. The SDK also honours these names itself. */
const EndpointsSchema = z.object({
  AWS_ENDPOINT_URL_DYNAMODB: optionalUrl,
  AWS_ENDPOINT_URL_S3: optionalUrl,
  AWS_REGION: text('us-east-1'),
});

const tableNames = {
  [TABLES.observations.envVar]: text(TABLES.observations.name, 3),
  [TABLES.latest.envVar]: text(TABLES.latest.name, 3),
  [TABLES.rollups.envVar]: text(TABLES.rollups.name, 3),
  [TABLES.health.envVar]: text(TABLES.health.name, 3),
  [TABLES.keys.envVar]: text(TABLES.keys.name, 3),
  [TABLES.limits.envVar]: text(TABLES.limits.name, 3),
  [TABLES.alerts.envVar]: text(TABLES.alerts.name, 3),
  [TABLES.forecasts.envVar]: text(TABLES.forecasts.name, 3),
  [TABLES.pushAlerts.envVar]: text(TABLES.pushAlerts.name, 3),
  [BUCKETS.data.envVar]: text(BUCKETS.data.name, 3),
} as const;

/** Where a function's stores are: the endpoints and the physical table and bucket names. */
export const StoreConfigSchema = /* @__PURE__ */ built(() => z.extend(EndpointsSchema, tableNames));
export type StoreConfig = z.infer<typeof StoreConfigSchema>;

export type TableKey = keyof typeof TABLES;

/**
 * The typed store settings of a parsed configuration: `tables.keys` instead of an index by the
 * manifest's environment variable names. What `createStores` and the adapter factories take.
 */
export function storeSettingsOf(config: StoreConfig) {
  const tables = Object.fromEntries(
    (Object.keys(TABLES) as TableKey[]).map((key) => [key, config[TABLES[key].envVar]]),
  ) as Record<TableKey, string>;
  return {
    region: config.AWS_REGION,
    dynamodbEndpoint: config.AWS_ENDPOINT_URL_DYNAMODB,
    s3Endpoint: config.AWS_ENDPOINT_URL_S3,
    tables,
    buckets: { data: config[BUCKETS.data.envVar] },
  };
}

export const IngestConfigSchema = /* @__PURE__ */ built(() =>
  z.extend(StoreConfigSchema, {
    CBP_FEED_URL: url('https://bwt.cbp.gov/xml/bwt.xml'),
    CBSA_FEED_URL: url('https://www.cbsa-asfc.gc.ca/bwt-taf/bwt-eng.csv'),
    FEED_TIMEOUT_MS: positiveInt(15_000),
    FEED_MAX_BYTES: positiveInt(5 * 1024 * 1024),
  }),
);

export const ForecastConfigSchema = /* @__PURE__ */ built(() =>
  z.extend(StoreConfigSchema, {
    /** Time the forecast step may spend starting ports in one run; ports not reached wait for the next. */
    FORECAST_BUDGET_MS: positiveInt(40_000),
    /** CBP's hourly graph (its typical waits): a URL template with `{bwtId}` and `{date}`. */
    CBP_GRAPH_URL: z._default(
      z
        .url(URL_MESSAGE)
        .check(
          z.refine(
            (value) => value.includes('{bwtId}') && value.includes('{date}'),
            'must hold {bwtId} and {date}, e.g. https://bwt.cbp.gov/api/bwtwaittimegraph/{bwtId}/{date}',
          ),
        ),
      'https://bwt.cbp.gov/api/bwtwaittimegraph/{bwtId}/{date}',
    ),
    /** Per graph request: headers and body. */
    GRAPH_TIMEOUT_MS: positiveInt(10_000),
  }),
);

const commaList = /* @__PURE__ */ built(() =>
  z.pipe(
    z._default(z.string(), ''),
    z.transform((value: string) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ),
);

/**
 * Where Web Push endpoints may be: comma-separated host names (`*.` for every subdomain,
 * `host:port` for another port than 443), the browsers' push services when unset.
 */
const PUSH_SERVICE_HOSTS = /* @__PURE__ */ built(() =>
  z.pipe(
    z._default(z.string(), DEFAULT_PUSH_SERVICE_HOSTS.join(',')),
    z.transform((value: string) =>
      value
        .split(',')
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean),
    ),
  ),
);

/** Where the random string the VAPID key pair derives from is: a Secrets Manager ARN in AWS, a file name locally. */
const VAPID_KEY_SECRET = text(SECRETS.vapidKey.name);

export const ApiConfigSchema = /* @__PURE__ */ built(() =>
  z.extend(StoreConfigSchema, {
    KEY_RATE_LIMIT_PER_MINUTE: positiveInt(LIMITS.keyPerMinute),
    PUBLIC_RATE_LIMIT_PER_MINUTE: positiveInt(LIMITS.publicPerMinute),
    /** Key requests (the request-a-key form) per client IP per hour. */
    KEY_REQUESTS_PER_HOUR: positiveInt(LIMITS.keyRequestsPerHour),
    /** `POST /push/subscriptions` per client IP per hour. */
    PUSH_SUBSCRIPTIONS_PER_HOUR: positiveInt(LIMITS.pushSubscriptionsPerHour),
    PUSH_SERVICE_HOSTS,
    VAPID_KEY_SECRET,
  }),
);

/** The local edge's per-IP limit (in AWS the WAF rate rule, configured by the stack). */
export const EdgeConfigSchema = /* @__PURE__ */ built(() =>
  z.object({
    EDGE_RATE_LIMIT_PER_MINUTE: positiveInt(LIMITS.edgePerMinute),
  }),
);

const flag = /* @__PURE__ */ built(() =>
  z.pipe(
    z._default(z.enum(['true', 'false', '1', '0'], 'must be true, false, 1 or 0'), 'false'),
    z.transform((value: 'true' | 'false' | '1' | '0') => value === 'true' || value === '1'),
  ),
);

/**
 * Where the service's webhook signing key is (each alert's webhook secret is derived from it and
 * the alert id, so no secret is stored): a Secrets Manager ARN in AWS, read at run time and
 * cached; a file name under DATA_DIR locally. The key itself is never in the environment.
 */
const WEBHOOK_SIGNING_KEY_SECRET = text(SECRETS.webhookSigningKey.name);

/** Webhook delivery of alert firings (ingest function). */
const WebhookSchema = /* @__PURE__ */ built(() =>
  z.object({
    WEBHOOK_SIGNING_KEY_SECRET,
    /** Test-only: lets webhooks reach loopback and private addresses over plain HTTP. */
    ALERT_WEBHOOK_ALLOW_PRIVATE: flag,
    ALERT_WEBHOOK_ATTEMPTS: positiveInt(4),
    /** First retry delay; each further retry doubles it. */
    ALERT_WEBHOOK_BACKOFF_MS: wholeNumber(1_000, 0),
    ALERT_WEBHOOK_TIMEOUT_MS: positiveInt(5_000),
    /**
     * Total time the deliveries of one cycle may take, well inside the ingest's 50 s; deliveries
     * still due then are retried in the next cycle.
     */
    ALERT_DELIVERY_DEADLINE_MS: positiveInt(15_000),
    /** Webhook deliveries in flight at once. */
    ALERT_DELIVERY_CONCURRENCY: positiveInt(8),
    VAPID_KEY_SECRET,
    PUSH_SERVICE_HOSTS,
    /** Upper bound of one push message's request to a push service. */
    PUSH_TIMEOUT_MS: positiveInt(5_000),
  }),
);

export const IngestWithAlertsConfigSchema = /* @__PURE__ */ built(() =>
  z.extend(IngestConfigSchema, WebhookSchema.shape),
);

export const McpConfigSchema = /* @__PURE__ */ built(() =>
  z.extend(StoreConfigSchema, {
    /** The public URL of the MCP endpoint: the OAuth resource, the default audience. */
    MCP_RESOURCE_URL: url('http://127.0.0.1:3000/mcp'),
    /** The authorization server (issuer) of the access tokens. */
    MCP_OAUTH_ISSUER: url('http://127.0.0.1:3001'),
    /** Expected `aud`; defaults to MCP_RESOURCE_URL. */
    MCP_OAUTH_AUDIENCE: z.optional(requiredText),
    /** JWKS of the issuer; discovered from its metadata when unset. */
    MCP_OAUTH_JWKS_URL: optionalUrl,
    /** Claim carrying the user's plan (`pro`, `business`); a token without it gets no paid tool. */
    MCP_TIER_CLAIM: text('tier'),
    /** Host names a request may name in `Host` (empty: no check, as behind CloudFront). */
    MCP_ALLOWED_HOSTS: commaList,
    MCP_MAX_BODY_BYTES: positiveInt(256 * 1024),
    /** tools/call per minute per client IP without a token (the spec: rate limit tool invocations). */
    MCP_RATE_LIMIT_PER_MINUTE: positiveInt(120),
    /** tools/call per minute per signed-in user. */
    MCP_USER_RATE_LIMIT_PER_MINUTE: positiveInt(240),
    MCP_UPGRADE_URL: url(`${SITE_ORIGIN}/plans`),
    /** Exports at most this large are returned inline; larger ones as a short-lived S3 link. */
    EXPORT_INLINE_MAX_BYTES: positiveInt(16 * 1024),
    EXPORT_URL_TTL_SECONDS: positiveInt(900),
    /** Test-only: lets alerts name loopback and private webhook URLs over plain HTTP. */
    ALERT_WEBHOOK_ALLOW_PRIVATE: flag,
    WEBHOOK_SIGNING_KEY_SECRET,
    /**
     * The public origin the tools read the published views from (the CDN, as any client reads
     * them); defaults to MCP_RESOURCE_URL's origin, which is the CDN's by definition.
     */
    MCP_DOCUMENTS_URL: optionalUrl,
    /** A view read from the CDN taking longer fails (the tool answers "store unavailable"). */
    MCP_DOCUMENTS_TIMEOUT_MS: positiveInt(3000),
    /** Revalidate every view read, whatever its max-age (the local runtime, whose edge keeps no cache). */
    MCP_DOCUMENTS_REVALIDATE: flag,
    /**
     * The CDN's origin secret, sent with the view reads so that the WAF's per-IP rule leaves them
     * uncounted (Lambda's egress addresses are shared): a Secrets Manager ARN in AWS, a file name
     * under DATA_DIR locally.
     */
    [SECRETS.originVerify.envVar]: text(SECRETS.originVerify.name),
  }),
);

/**
 * The API Gateway REQUEST authorizer: the key table and the two usage keys the stack sets (no
 * fall-back: an authorizer without them would meter every request under a key that does not exist).
 */
export const AuthorizerConfigSchema = /* @__PURE__ */ built(() =>
  z.extend(StoreConfigSchema, {
    PUBLIC_USAGE_KEY: requiredText,
    KEYED_USAGE_KEY: requiredText,
    /** Where the CDN's origin secret is: a Secrets Manager ARN in AWS, a file name locally. */
    [SECRETS.originVerify.envVar]: text(SECRETS.originVerify.name),
  }),
);

/** The HTTP API's origin authorizer: only where the origin secret is. */
export const OriginAuthorizerConfigSchema = /* @__PURE__ */ built(() =>
  z.object({
    [SECRETS.originVerify.envVar]: text(SECRETS.originVerify.name),
  }),
);

export type McpConfig = z.infer<typeof McpConfigSchema>;
export type AuthorizerConfig = z.infer<typeof AuthorizerConfigSchema>;
export type IngestConfig = z.infer<typeof IngestConfigSchema>;
export type ForecastConfig = z.infer<typeof ForecastConfigSchema>;
export type ApiConfig = z.infer<typeof ApiConfigSchema>;

/** Parses `env` with `schema`, or throws one error listing every bad key. */
export function parseConfig<T extends z.ZodMiniType>(
  schema: T,
  env: Record<string, string | undefined>,
): z.infer<T> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`invalid configuration:\n${lines.join('\n')}`);
}
