/**
 * The cap on alerts per user (MAX_ALERTS_PER_OWNER), enforced atomically: a counter per owner is
 * raised by a conditional update that fails at the cap, before the alert is written, and lowered
 * when an alert is deleted (or its write fails). Listing the alerts and then writing one would let
 * concurrent calls interleave past the cap.
 */
export interface AlertQuota {
  /**
   * Takes one of the owner's `max` slots: true when taken, false when all are in use. `existing`
   * counts the owner's alerts when no counter exists yet (alerts made before the counter).
   */
  reserve(owner: string, max: number, existing: () => Promise<number>): Promise<boolean>;
  /** Gives a slot back (an alert deleted, or a reserved write that failed). Never below zero. */
  release(owner: string): Promise<void>;
}
