/**
 * One ingest at a time. EventBridge delivers a schedule at least once and Lambda retries a failed
 * asynchronous invocation twice, so two cycles can overlap even with a reserved concurrency of 1
 * (a retry queued behind a slow cycle, or `npm run ingest` beside `npm start`). A cycle first takes
 * a lease: an item written only if no unexpired lease exists. A cycle that finds one exits at once
 * and says who holds it until when. The lease expires by itself, so a crashed cycle blocks the
 * next ones only until its expiry.
 */

export type LeaseResult = { acquired: true } | { acquired: false; holder: string; expiresAt: string };

export interface LeaseStore {
  /** Takes the lease `name` for `holder` until `expiresAtMs`, unless another holder's lease is unexpired at `nowMs`. */
  acquire(name: string, holder: string, nowMs: number, expiresAtMs: number): Promise<LeaseResult>;
  /** Gives the lease back, only if `holder` still holds it. */
  release(name: string, holder: string): Promise<void>;
}

export type LeasedRun<T> = { ran: true; result: T } | { ran: false; reason: string };

/**
 * Runs `work` under the lease `name`, or returns why it did not run. The lease is released
 * afterwards whatever happens; `ttlMs` must outlast the longest run (the function's timeout).
 */
export async function withLease<T>(
  store: LeaseStore,
  options: { name: string; holder: string; ttlMs: number; now: () => number },
  work: () => Promise<T>,
): Promise<LeasedRun<T>> {
  const nowMs = options.now();
  const lease = await store.acquire(options.name, options.holder, nowMs, nowMs + options.ttlMs);
  if (!lease.acquired) {
    return {
      ran: false,
      reason: `another ${options.name} cycle (${lease.holder}) holds the lease until ${lease.expiresAt}`,
    };
  }
  try {
    return { ran: true, result: await work() };
  } finally {
    await store.release(options.name, options.holder);
  }
}
