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
 * Half-life, in weeks, of the recency-weighted profile: a date's readings weigh
 * 2^(-weeks older than the newest settled date / half-life), so a regime of two months ago counts
 * half and one of a year ago about 1%. The issue's own baseline window (an 8-week hour-of-week
 * median); a lane's record then says whether the recent or the all-history centre fits it better.
 */
export const RECENT_HALF_LIFE_WEEKS = 8;
/** Decayed counts and sums are kept to this precision; a histogram entry that decays below it goes. */
const DECAYED_PRECISION = 1e-4;

/**
 * A lane's settled dates with weights that decay by age: `s` (weighted sum), `n` (weighted count)
 * and `h` (weighted histogram), each date weighed by its age in weeks before `at`, the newest
 * settled date (weight 1). Kept beside the undecayed total; absent (older items), the undecayed
 * total stands for it.
 */
export interface DecayedTotal {
  s: number;
  n: number;
  h: Histogram;
  /** Port-local `YYYY-MM-DD` the weights are relative to (the newest date folded in). */
  at: string;
}

const DAY_MS = 86_400_000;
const roundDecayed = (value: number) => Math.round(value / DECAYED_PRECISION) / (1 / DECAYED_PRECISION);

/** The weight of readings `fromDate` has, seen from `toDate` (both `YYYY-MM-DD`; 1 when not older). */
export function decayWeight(fromDate: string, toDate: string): number {
  const days = (Date.parse(`${toDate}T00:00:00Z`) - Date.parse(`${fromDate}T00:00:00Z`)) / DAY_MS;
  return Number.isFinite(days) && days > 0 ? 2 ** (-days / 7 / RECENT_HALF_LIFE_WEEKS) : 1;
}

/**
 * Folds dated parts into a decayed total (a new object): the total is aged to the newest of its
 * date and the parts' dates, and each part is weighed by its own age then. Folding dates one by one
 * or together gives the same total (up to {@link DECAYED_PRECISION}), so a replay that folds at
 * other moments than the service agrees with it.
 */
export function foldDecayed(
  total: DecayedTotal | undefined,
  parts: readonly { date: string; s: number; n: number; h: Histogram }[],
): DecayedTotal | undefined {
  let at = total?.at ?? '';
  for (const part of parts) if (part.date > at) at = part.date;
  if (at === '') return total;
  let sum = 0;
  let n = 0;
  const h: Histogram = {};
  const add = (weight: number, part: { s: number; n: number; h: Histogram }) => {
    sum += weight * Number(part.s);
    n += weight * Number(part.n);
    for (const value in part.h) h[value] = (h[value] ?? 0) + weight * Number(part.h[value] ?? 0);
  };
  if (total) add(decayWeight(total.at, at), total);
  for (const part of parts) add(decayWeight(part.date, at), part);
  for (const value in h) {
    const rounded = roundDecayed(h[value] ?? 0);
    if (rounded > 0) h[value] = rounded;
    else delete h[value];
  }
  return { s: roundDecayed(sum), n: roundDecayed(n), h, at };
}

/**
 * The median of a histogram of weighted counts: the smallest value whose cumulative weight reaches
 * half the total (the mean of it and the next value when it is exactly half). With whole counts it
 * is {@link medianOf}.
 */
export function weightedMedianOf(histogram: Histogram): number | null {
  const entries: [number, number][] = [];
  let total = 0;
  for (const value in histogram) {
    const weight = Number(histogram[value] ?? 0);
    if (!(weight > 0)) continue;
    entries.push([Number(value), weight]);
    total += weight;
  }
  if (total === 0) return null;
  entries.sort((a, b) => a[0] - b[0]);
  const half = total / 2;
  let seen = 0;
  for (let i = 0; i < entries.length; i++) {
    const [value, weight] = entries[i] as [number, number];
    seen += weight;
    if (seen > half) return value;
    if (seen === half) return (value + (entries[i + 1]?.[0] ?? value)) / 2;
  }
  return entries.at(-1)?.[0] ?? null;
}

/** The recency-weighted centres of a lane's bucket: mean and median, or null without samples. */
export interface RecentCentres {
  mean: number;
  median: number | null;
}

/**
 * The recency-weighted centres of one lane's bucket: its decayed settled total with the unsettled
 * dates (younger than the settle cutoff) at weight 1.
 */
export function recentCentresOf(
  total: DecayedTotal | undefined,
  parts: readonly { s: number; n: number; h: Histogram }[],
): RecentCentres | null {
  let sum = total ? Number(total.s) : 0;
  let count = total ? Number(total.n) : 0;
  const h: Histogram = { ...(total?.h ?? {}) };
  for (const part of parts) {
    sum += Number(part.s);
    count += Number(part.n);
    for (const value in part.h) h[value] = (h[value] ?? 0) + Number(part.h[value] ?? 0);
  }
  if (!(count > 0)) return null;
  // The mean to 0.01 minute: the summaries keep it so, and the backtest reads what they would.
  return { mean: Math.round((sum / count) * 100) / 100, median: weightedMedianOf(h) };
}

/** An hourly average as the rollups hold it, with its recency-weighted centres (never published). */
export type ProfileAverage = HourlyAverage & { recent?: RecentCentres };

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
  /**
   * Every bucket of a port, summed over its dates, with its recency-weighted centres where kept
   * (`recent`: internal, the published averages documents leave it out).
   */
  averages(portId: string): Promise<ProfileAverage[]>;
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
