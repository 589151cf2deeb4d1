/**
 * Fixed-window rate limits (DESIGN.md section 5). A window is `windowSeconds` long and aligned to
 * the epoch (a 60-second window starts at each full UTC minute). Each request adds one to the
 * counter of its window, atomically in the store; a request is admitted iff the count after its
 * own increment is at most the quota. Rejected requests count too, so hammering does not help, and
 * every counter starts over at the next window. Header syntax: draft-ietf-httpapi-ratelimit-headers.
 */

/** A named quota: `q` requests per `w` seconds, counted per key or per client IP. */
export interface LimitPolicy {
  /** Policy name in the headers (`key`, `ip`, `key-requests`). */
  name: string;
  quota: number;
  windowSeconds: number;
}

/** Counts requests; owned by the core, implemented in adapters/dynamo/limits.ts. */
export interface LimitStore {
  /**
   * Adds `amount` (one request, or every message of an MCP batch) to the counter `subject` in the
   * window starting at `windowStartSeconds` and returns the count after the increment. Atomic:
   * concurrent calls each see a distinct count.
   */
  hit(subject: string, windowStartSeconds: number, expiresAtSeconds: number, amount: number): Promise<number>;
}

export interface LimitDecision {
  admitted: boolean;
  policy: LimitPolicy;
  /** Requests left in this window after this one (never negative). */
  remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  resetSeconds: number;
}

/** Start (epoch seconds) of the window holding `nowMs`. */
export function windowStart(nowMs: number, windowSeconds: number): number {
  const nowSeconds = Math.floor(nowMs / 1000);
  return nowSeconds - (nowSeconds % windowSeconds);
}

/** Whole seconds from `nowMs` to the end of its window, at least 1. */
export function secondsToReset(nowMs: number, windowSeconds: number): number {
  const end = (windowStart(nowMs, windowSeconds) + windowSeconds) * 1000;
  return Math.max(1, Math.ceil((end - nowMs) / 1000));
}

/**
 * Counts `amount` requests of `subject` under `policy` at `nowMs` (an MCP batch counts each of its
 * messages): admitted only when all of them fit in the quota.
 */
export async function consume(
  store: LimitStore,
  policy: LimitPolicy,
  subject: string,
  nowMs: number,
  amount = 1,
): Promise<LimitDecision> {
  if (!Number.isInteger(amount) || amount < 1)
    throw new RangeError(`amount must be a positive integer, got ${amount}`);
  const start = windowStart(nowMs, policy.windowSeconds);
  // Kept one window past its end, then DynamoDB's TTL may drop it.
  const count = await store.hit(subject, start, start + 2 * policy.windowSeconds, amount);
  return {
    admitted: count <= policy.quota,
    policy,
    remaining: Math.max(0, policy.quota - count),
    resetSeconds: secondsToReset(nowMs, policy.windowSeconds),
  };
}

/** `RateLimit-Policy` field value: `"key";q=60;w=60` (several policies joined by commas). */
export function policyHeader(...policies: LimitPolicy[]): string {
  return policies.map((p) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`).join(', ');
}

/** `RateLimit` field value: `"key";r=12;t=41`. */
export function rateLimitHeader(decision: LimitDecision): string {
  return `"${decision.policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`;
}

/** The headers for a counted response: policy, counter, and `Retry-After` when refused. */
export function limitHeaders(decision: LimitDecision): Record<string, string> {
  return {
    'ratelimit-policy': policyHeader(decision.policy),
    ratelimit: rateLimitHeader(decision),
    ...(decision.admitted ? {} : { 'retry-after': String(decision.resetSeconds) }),
  };
}
