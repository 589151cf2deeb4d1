/**
 * One ingest at a time. EventBridge delivers a schedule at least once and Lambda retries a failed
 * asynchronous invocation twice, so two cycles can overlap even with a reserved concurrency of 1
 * (a retry queued behind a slow cycle, or `npm run ingest` beside `npm start`). A cycle first takes
 * a lease: an item written only if no unexpired lease exists. A cycle that finds one exits at once
 * and says who holds it until when. The lease expires by itself, so a crashed cycle blocks the
 * next ones only until its expiry.
 *
 * Every writer of the observations and the rollups takes it (the ingest, `npm run import`, the
 * migration), and each says which process it is (`writer`); the lease keeps the last writer when
 * given back. A process that takes it and finds itself the last writer knows that nothing was
 * written since its own writes, so what it holds of them is still the stored state (see
 * `sole-writer.ts`).
 */

export type LeaseResult =
  | {
      acquired: true;
      /** The process that held the lease last (its `writer`), or null if none ever did. */
      previousWriter: string | null;
    }
  | { acquired: false; holder: string; expiresAt: string };

export interface LeaseStore {
  /**
   * Takes the lease `name` for `holder` (of process `writer`) until `expiresAtMs`, unless another
   * holder's lease is unexpired at `nowMs`.
   */
  acquire(
    name: string,
    holder: string,
    writer: string,
    nowMs: number,
    expiresAtMs: number,
  ): Promise<LeaseResult>;
  /** Gives the lease back, only if `holder` still holds it; the last writer stays recorded. */
  release(name: string, holder: string): Promise<void>;
}

export type LeasedRun<T> = { ran: true; result: T } | { ran: false; reason: string };

export interface LeaseOptions {
  name: string;
  /** This run (unique). */
  holder: string;
  /** This process (one per cold start): the same for all its runs. */
  writer: string;
  ttlMs: number;
  now: () => number;
}

/**
 * Runs `work` under the lease `name`, or returns why it did not run. `work` learns whether this
 * process was the lease's last writer (`continued`). The lease is released afterwards whatever
 * happens; `ttlMs` must outlast the longest run (the function's timeout).
 */
export async function withLease<T>(
  store: LeaseStore,
  options: LeaseOptions,
  work: (lease: { continued: boolean }) => Promise<T>,
): Promise<LeasedRun<T>> {
  const nowMs = options.now();
  const lease = await store.acquire(
    options.name,
    options.holder,
    options.writer,
    nowMs,
    nowMs + options.ttlMs,
  );
  if (!lease.acquired) {
    return {
      ran: false,
      reason: `another ${options.name} cycle (${lease.holder}) holds the lease until ${lease.expiresAt}`,
    };
  }
  try {
    return { ran: true, result: await work({ continued: lease.previousWriter === options.writer }) };
  } finally {
    await store.release(options.name, options.holder);
  }
}

/**
 * {@link withLease}, waiting for the lease while another holds it (an import or a migration
 * waits for the cycle in progress), up to `waitMs`; then an error that says who holds it.
 */
export async function whenLeased<T>(
  store: LeaseStore,
  options: LeaseOptions & { waitMs: number; pollMs?: number },
  work: (lease: { continued: boolean }) => Promise<T>,
): Promise<T> {
  const deadline = options.now() + options.waitMs;
  for (;;) {
    const run = await withLease(store, options, work);
    if (run.ran) return run.result;
    if (options.now() >= deadline)
      throw new Error(`${run.reason}; waited ${Math.round(options.waitMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
  }
}

/**
 * Runs pieces of work of a writer other than the ingest (an import, a migration), each under the
 * ingest's lease, waiting for a cycle in progress: the ingest then knows another writer came
 * between its cycles. `ttlMs` must outlast the longest piece.
 */
export function asAnotherWriter(
  store: LeaseStore,
  /** `waitMs`: how long to wait for the lease (the ingest's lease term and a margin). */
  options: { writer: string; ttlMs: number; waitMs: number; now?: () => number },
): <T>(work: () => Promise<T>) => Promise<T> {
  let runs = 0;
  return (work) =>
    whenLeased(
      store,
      {
        name: 'ingest',
        holder: `${options.writer}/${++runs}`,
        writer: options.writer,
        ttlMs: options.ttlMs,
        now: options.now ?? Date.now,
        waitMs: options.waitMs,
      },
      work,
    );
}
