/**
 * Bounded-memory accounting for the soak: responses counted by class and status, and latencies in
 * a log-scale histogram (1 % wide buckets), so a 30-minute run holds no growing arrays that would
 * show up as the service's own memory growth.
 */

const GROWTH = 1.01;
const MIN_MS = 0.01;
const BUCKETS = Math.ceil(Math.log(1e7) / Math.log(GROWTH)) + 1; // 0.01 ms .. 100 s

/** A latency histogram: constant memory, percentiles within 1 %. */
export class LatencyHistogram {
  readonly #counts = new Uint32Array(BUCKETS);
  #total = 0;

  record(ms: number): void {
    const index =
      ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / MIN_MS) / Math.log(GROWTH)));
    this.#counts[index] = (this.#counts[index] ?? 0) + 1;
    this.#total += 1;
  }

  get count(): number {
    return this.#total;
  }

  /** The upper bound of the bucket holding the p-th percentile (NaN when empty). */
  percentile(p: number): number {
    if (this.#total === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.#total));
    let seen = 0;
    for (let index = 0; index < BUCKETS; index += 1) {
      seen += this.#counts[index] ?? 0;
      if (seen >= rank) return MIN_MS * GROWTH ** index;
    }
    return MIN_MS * GROWTH ** (BUCKETS - 1);
  }

  merge(other: LatencyHistogram): void {
    for (let index = 0; index < BUCKETS; index += 1) {
      this.#counts[index] = (this.#counts[index] ?? 0) + (other.#counts[index] ?? 0);
    }
    this.#total += other.#total;
  }
}

/** What a request ended as: an HTTP status, or a client-side failure. */
export type Outcome = number | 'timeout' | 'network';

/** Responses of one traffic class. */
export interface ClassTally {
  statuses: Map<Outcome, number>;
  latency: LatencyHistogram;
  /** Tool results with `isError: true`, by tool (MCP classes only). */
  toolErrors: Map<string, number>;
  /** JSON-RPC error answers, by code (MCP classes only). */
  rpcErrors: Map<number, number>;
  /** The first few failures, for the report. */
  samples: string[];
}

export class Tally {
  readonly classes = new Map<string, ClassTally>();

  of(name: string): ClassTally {
    let tally = this.classes.get(name);
    if (!tally) {
      tally = {
        statuses: new Map(),
        latency: new LatencyHistogram(),
        toolErrors: new Map(),
        rpcErrors: new Map(),
        samples: [],
      };
      this.classes.set(name, tally);
    }
    return tally;
  }

  record(name: string, outcome: Outcome, ms: number, failure?: string): void {
    const tally = this.of(name);
    tally.statuses.set(outcome, (tally.statuses.get(outcome) ?? 0) + 1);
    tally.latency.record(ms);
    if (failure && tally.samples.length < 5) tally.samples.push(failure);
  }

  /** Requests that answered 5xx or never answered. */
  failures(): number {
    let total = 0;
    for (const tally of this.classes.values()) {
      for (const [outcome, count] of tally.statuses) {
        if (typeof outcome !== 'number' || outcome >= 500) total += count;
      }
    }
    return total;
  }

  total(): number {
    let total = 0;
    for (const tally of this.classes.values()) total += tally.latency.count;
    return total;
  }

  overall(): LatencyHistogram {
    const all = new LatencyHistogram();
    for (const tally of this.classes.values()) all.merge(tally.latency);
    return all;
  }
}

export const increment = <K>(map: Map<K, number>, key: K): void => {
  map.set(key, (map.get(key) ?? 0) + 1);
};
