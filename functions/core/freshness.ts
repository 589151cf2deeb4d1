/**
 * Freshness of a reading from its age, with thresholds published per source (DESIGN.md section 3):
 * CBP manual ports update about hourly and automated ones every few minutes; CBSA about hourly.
 */
import type { Freshness, Source } from './model.ts';

export interface FreshnessPolicy {
  /** At most this old (minutes) is `fresh`. */
  freshMinutes: number;
  /** At most this old (minutes) is `stale`; older is `expired`. */
  staleMinutes: number;
}

/** The published thresholds, also served in `port-current` and the OpenAPI document. */
export const FRESHNESS_POLICY: Readonly<Record<Source, FreshnessPolicy>> = {
  cbp: { freshMinutes: 75, staleMinutes: 180 },
  cbsa: { freshMinutes: 75, staleMinutes: 180 },
};

/** `fresh`, `stale` or `expired` for a reading of `source` taken at `observedAtMs`, seen at `nowMs`. */
export function freshnessOf(source: Source, observedAtMs: number, nowMs: number): Freshness {
  const ageMinutes = (nowMs - observedAtMs) / 60_000;
  const policy = FRESHNESS_POLICY[source];
  if (ageMinutes <= policy.freshMinutes) return 'fresh';
  if (ageMinutes <= policy.staleMinutes) return 'stale';
  return 'expired';
}
