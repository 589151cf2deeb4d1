/**
 * Whether this process is, for now, the only writer of the observations and the rollups: true
 * while it runs an ingest cycle under the lease (`lease.ts`), which every writer of those tables
 * takes. Within that, a process that was also the lease's last writer (`continued`) knows that
 * nothing was written since its own writes, so what it holds of them is the stored state; taken
 * after another writer, the stores drop what they hold, and the era of this process starts again.
 *
 * The stores use it to write without a condition what they know in full: an observation hour that
 * began after the era started and that this process has not written (nobody else can have), a
 * rollup bucket read in this cycle, a summary item held since the era started. Outside a cycle
 * (an import, a test, the API) every write stays conditional, as it must with other writers about.
 */
export interface SoleWriter {
  /** When the era of this process started (service clock), while it is the sole writer; else null. */
  readonly since: number | null;
  /** Called under the lease: `continued` when this process was its last writer. */
  begin(continued: boolean, nowMs: number): void;
  /** Called before the lease is given back. */
  end(): void;
  /** Registers what a store holds of its writes, to drop when another writer may have written. */
  onForget(forget: () => void): void;
}

export function createSoleWriter(): SoleWriter {
  const forgets: (() => void)[] = [];
  let era: number | null = null;
  let active = false;
  return {
    get since() {
      return active ? era : null;
    },
    begin(continued, nowMs) {
      if (!continued || era === null) {
        for (const forget of forgets) forget();
        era = nowMs;
      }
      active = true;
    },
    end() {
      active = false;
    },
    onForget(forget) {
      forgets.push(forget);
    },
  };
}
