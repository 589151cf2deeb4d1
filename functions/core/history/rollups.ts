/**
 * Hour x day-of-week averages, bucketed in the port's local time.
 *
 * Design for idempotence without transactions: each bucket (port lane, local day of week, local
 * hour) holds one contribution per local date, `{ sum, count }`, recomputed from all of that
 * date-hour's observations and written with an absolute SET. Writing a contribution twice, or
 * rerunning after a crash at any step, leaves the same value; the average is computed on read.
 * Cost per ingest follows the buckets the new observations touch, not the history length.
 */
import type { Direction, HourlyAverage, Lane, Mode, Observation } from '../model.ts';
import { type LocalDateTime, utcToZoned, zonedToUtc } from '../time.ts';

/** Observations older than this (at ingest) no longer change a rollup: their date is closing. */
export const ROLLUP_MAX_AGE_DAYS = 13;
/**
 * Dates older than this are settled: folded into a bucket's running total, so a bucket's size (and
 * the cost of reading the averages) stays bounded however long the history. Comfortably past
 * {@link ROLLUP_MAX_AGE_DAYS}, so no contribution is ever written for a settled date.
 */
export const SETTLE_AFTER_DAYS = 16;

/** The port-local date (`YYYY-MM-DD`) before which dates are settled at `nowMs`. */
export function settledBefore(nowMs: number): string {
  return new Date(nowMs - SETTLE_AFTER_DAYS * 86_400_000).toISOString().slice(0, 10);
}

export interface RollupContribution {
  portId: string;
  direction: Direction;
  mode: Mode;
  lane: Lane;
  /** Port-local date `YYYY-MM-DD`. */
  localDate: string;
  dayOfWeek: number;
  hour: number;
  sum: number;
  count: number;
  /** How many observations had each delay (whole minutes as keys): medians stay exact. */
  histogram: Histogram;
}

/** Delay in minutes (as a string key) -> number of observations. */
export type Histogram = Record<string, number>;

/** Sum of histograms. */
export function mergeHistograms(histograms: readonly Histogram[]): Histogram {
  const out: Histogram = {};
  for (const histogram of histograms) {
    for (const [value, count] of Object.entries(histogram)) out[value] = (out[value] ?? 0) + count;
  }
  return out;
}

/** The exact median of the values a histogram counts (the mean of the middle two for an even count). */
export function medianOf(histogram: Histogram): number | null {
  const entries = Object.entries(histogram)
    .map(([value, count]) => [Number(value), count] as const)
    .filter(([, count]) => count > 0)
    .sort((a, b) => a[0] - b[0]);
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const valueAt = (rank: number): number => {
    let seen = 0;
    for (const [value, count] of entries) {
      seen += count;
      if (rank < seen) return value;
    }
    return entries.at(-1)?.[0] ?? 0;
  };
  return (valueAt(Math.floor((total - 1) / 2)) + valueAt(Math.floor(total / 2))) / 2;
}

/**
 * What a port's rollups hold, per bucket (`<dayOfWeek>#<hour>`): each unsettled date's part
 * (`direction#mode#lane|YYYY-MM-DD` -> sum and count) and the newest settled date, at or before
 * which no part is ever written again (its total holds it).
 */
export type StoredParts = Map<
  string,
  { settledThrough: string | null; parts: Map<string, { sum: number; count: number }> }
>;

export interface RollupStore {
  /** Absolute writes of each date's contribution (idempotent). */
  putContributions(contributions: readonly RollupContribution[]): Promise<void>;
  /** Every bucket of a port, summed over its dates. */
  averages(portId: string): Promise<HourlyAverage[]>;
}

const pad = (n: number) => String(n).padStart(2, '0');

export function localDateOf(local: Pick<LocalDateTime, 'year' | 'month' | 'day'>): string {
  return `${local.year}-${pad(local.month)}-${pad(local.day)}`;
}

/** Day of week (0 = Sunday) of a calendar date. */
export function dayOfWeekOf(localDate: string): number {
  return new Date(`${localDate}T00:00:00Z`).getUTCDay();
}

/** The UTC range [start, end) of a port-local calendar date (23 or 25 hours on DST days). */
export function localDayRange(localDate: string, timeZone: string): { startMs: number; endMs: number } {
  const [year, month, day] = localDate.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(year, month - 1, day + 1));
  return {
    startMs: zonedToUtc({ year, month, day, hour: 0, minute: 0 }, timeZone),
    endMs: zonedToUtc(
      {
        year: next.getUTCFullYear(),
        month: next.getUTCMonth() + 1,
        day: next.getUTCDate(),
        hour: 0,
        minute: 0,
      },
      timeZone,
    ),
  };
}

/**
 * The UTC range [start, end) of one port-local hour of a date: one UTC hour, two for the repeated
 * autumn hour, and shifted for zones with half-hour offsets. The observations of a rollup bucket
 * are all inside it, so a rebuild reads one or two hours of observations, never the whole day.
 */
export function localHourRange(
  localDate: string,
  hour: number,
  timeZone: string,
): { startMs: number; endMs: number } {
  const [year, month, day] = localDate.split('-').map(Number) as [number, number, number];
  const around = zonedToUtc({ year, month, day, hour, minute: 0 }, timeZone);
  const step = 15 * 60_000;
  let startMs = Number.POSITIVE_INFINITY;
  let endMs = Number.NEGATIVE_INFINITY;
  for (let t = around - 3 * 3_600_000; t <= around + 3 * 3_600_000; t += step) {
    const bucket = localBucketOf(t, timeZone);
    if (bucket.localDate !== localDate || bucket.hour !== hour) continue;
    startMs = Math.min(startMs, t);
    endMs = Math.max(endMs, t + step);
  }
  return Number.isFinite(startMs) ? { startMs, endMs } : { startMs: around, endMs: around + 3_600_000 };
}

/** Port-local date and hour of an instant. */
export function localBucketOf(epochMs: number, timeZone: string): { localDate: string; hour: number } {
  const local = utcToZoned(epochMs, timeZone);
  return { localDate: localDateOf(local), hour: local.hour };
}

/**
 * The contributions of one port-local date from all of that date's observations of a port.
 * Only observations with a number count (a closed lane is not a zero wait).
 * `only` restricts the result to the buckets touched by new data (`direction#mode#lane#hour`).
 */
export function contributionsOfDay(
  portId: string,
  localDate: string,
  timeZone: string,
  observations: readonly Observation[],
  only?: ReadonlySet<string>,
): RollupContribution[] {
  const buckets = new Map<string, RollupContribution>();
  const dayOfWeek = dayOfWeekOf(localDate);
  for (const observation of observations) {
    if (observation.delayMinutes === null) continue;
    const bucket = localBucketOf(Date.parse(observation.observedAt), timeZone);
    if (bucket.localDate !== localDate) continue;
    const key = bucketKey(observation, bucket.hour);
    if (only && !only.has(key)) continue;
    const entry = buckets.get(key) ?? {
      portId,
      direction: observation.direction,
      mode: observation.mode,
      lane: observation.lane,
      localDate,
      dayOfWeek,
      hour: bucket.hour,
      sum: 0,
      count: 0,
      histogram: {},
    };
    entry.sum += observation.delayMinutes;
    entry.count += 1;
    const value = String(observation.delayMinutes);
    entry.histogram[value] = (entry.histogram[value] ?? 0) + 1;
    buckets.set(key, entry);
  }
  return [...buckets.values()];
}

export function bucketKey(lane: { direction: string; mode: string; lane: string }, hour: number): string {
  return `${lane.direction}#${lane.mode}#${lane.lane}#${hour}`;
}

/** Averages from per-date contributions, rounded to 0.1 minute, in a stable order. */
export function averagesFromContributions(
  portId: string,
  buckets: readonly {
    direction: Direction;
    mode: Mode;
    lane: Lane;
    dayOfWeek: number;
    hour: number;
    dates: readonly { sum: number; count: number; histogram: Histogram }[];
  }[],
): HourlyAverage[] {
  const result: HourlyAverage[] = [];
  for (const bucket of buckets) {
    let sum = 0;
    let samples = 0;
    for (const date of bucket.dates) {
      sum += date.sum;
      samples += date.count;
    }
    if (samples === 0) continue;
    result.push({
      portId,
      direction: bucket.direction,
      mode: bucket.mode,
      lane: bucket.lane,
      dayOfWeek: bucket.dayOfWeek,
      hour: bucket.hour,
      averageDelayMinutes: Math.round((sum / samples) * 10) / 10,
      medianDelayMinutes: medianOf(mergeHistograms(bucket.dates.map((date) => date.histogram))),
      samples,
    });
  }
  return result.sort(compareAverages);
}

/** The order of an averages document: lane, then day of week, then hour. */
export function compareAverages(a: HourlyAverage, b: HourlyAverage): number {
  return (
    a.direction.localeCompare(b.direction) ||
    a.mode.localeCompare(b.mode) ||
    a.lane.localeCompare(b.lane) ||
    a.dayOfWeek - b.dayOfWeek ||
    a.hour - b.hour
  );
}
