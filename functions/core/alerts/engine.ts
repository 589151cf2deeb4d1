/**
 * The alert engine: what every kind of alert shares. After each ingest the latest readings are
 * read once and handed to each kind (the Pro alerts with their webhooks, the travellers' push
 * alerts), which run side by side under one delivery deadline; one rule says which readings may
 * alert at all (open, with a wait and its own time, fresh: stale data never alerts).
 */
import { freshnessOf } from '../freshness.ts';
import type { LatestReading } from '../model.ts';
import type { LatestStore } from '../stores.ts';

/** The key of a port lane in the readings map. */
export function laneKey(r: Pick<LatestReading, 'portId' | 'direction' | 'mode' | 'lane'>): string {
  return `${r.portId}|${r.direction}|${r.mode}|${r.lane}`;
}

/** The latest reading of every lane, by {@link laneKey}. */
export async function latestByLane(latest: LatestStore): Promise<Map<string, LatestReading>> {
  const { readings } = await latest.all();
  return new Map(readings.map((r) => [laneKey(r), r]));
}

/** Why `reading` may not alert now, or null when it may (open, a wait, its own time, fresh). */
export function readingProblem(reading: LatestReading | undefined, nowMs: number): string | null {
  if (!reading) return 'no reading for this lane';
  if (reading.status !== 'open' || reading.delayMinutes === null) return `lane ${reading.status}`;
  if (!reading.observedAt) return 'reading without its own time';
  if (freshnessOf(reading.source, Date.parse(reading.observedAt), nowMs) !== 'fresh')
    return 'reading not fresh';
  return null;
}
