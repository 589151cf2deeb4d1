/**
 * What the service counts, as CloudWatch metrics (embedded metric format, written by the
 * functions' log lines). The stack's alarms read these names, so they are written once.
 */
export const METRICS_NAMESPACE = 'BorderWaits';

export const METRIC_NAMES = {
  /** Feed documents that failed (fetch, parse) or were refused by the sanity check, per cycle. */
  feedFailures: 'FeedFailures',
  /** Observations stored for the first time, per cycle. */
  newObservations: 'NewObservations',
  /** Readings a parser rejected (with reasons), per cycle. */
  rejects: 'Rejects',
} as const;
