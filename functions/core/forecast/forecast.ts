/**
 * The forecaster (DESIGN.md section 9), pure: for each lane of a port, the expected wait at
 * +15/+30/+45/+60 minutes and then hourly to +24 hours (a day ahead), each with an 80% interval,
 * next to the two baselines (persistence and profile) it is scored against.
 *
 * Method ("model"), per lane and target time T, issued at `issuedAt` from what was known then:
 * 1. If the lane's update cadence (median gap of its recent readings) says no new reading is due
 *    before T, the reading in force at T is the current one: the forecast is that reading.
 * 2. Otherwise: the port-local hour-of-week profile of T (its mean or its median, over all the
 *    lane's history or recency-weighted, each week weighing half as much every
 *    `RECENT_HALF_LIFE_WEEKS` (8) weeks back: whichever of the four the lane's record scores best
 *    ({@link Centre}); blended with a prior profile such as CBP's typical wait where the lane's
 *    own hour has few samples), plus a learned combination of three anomalies (a
 *    reading minus its own hour's profile): today's (the last hour's readings), its change over
 *    the hour before (the trend), and the one at T a day earlier. The weights are fitted per lane
 *    and horizon by least squares on the lane's past pairs, shrunk toward the port's lanes pooled
 *    and, before any pair, toward a fading anomaly ({@link ANOMALY_DECAY_MINUTES}); the caller
 *    hands them in ({@link LearnedHorizon}). Never below 0. On a public holiday of the port's
 *    countries (`date-holidays`' public days, tabled by `npm run holidays`: US and MX, or US and
 *    CA) the hour's profile is a blend of Sunday's and the weekday's, weighed by which fitted the
 *    holiday's readings so far (half each before any). The recency-weighted centres come from the
 *    rollups' decayed settled totals with the unsettled dates at weight 1 (history/rollups.ts,
 *    `foldDecayed`, `recentCentresOf`); the backtest keeps the same state as its readings arrive.
 * Intervals (and the model's median correction): the 10th, 50th and 90th percentiles of the
 * method's own past relative errors on the lane, horizon and level band of the forecast
 * ({@link LEVEL_BANDS}, {@link intervalFor}), so a long wait gets the wider band it needs.
 */

import { openAt, openHoursOf } from '../catalogue/port-hours.ts';
import type { ProfileAverage } from '../history/rollups.ts';
import { type Border, type Direction, type Lane, METHODS, type Method, type Mode } from '../model.ts';
import { utcToZoned } from '../time.ts';
import type { ReasonPart } from '../views/reason-codes.ts';
import { publicHolidayOn } from './holidays.ts';

/** Lead times of the published points, minutes. */
export const HORIZONS_MINUTES = [
  15, 30, 45, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 660, 720, 780, 840, 900, 960, 1020, 1080, 1140,
  1200, 1260, 1320, 1380, 1440,
] as const;
/** The longest lead: a day ahead. */
export const MAX_HORIZON_MINUTES: number = HORIZONS_MINUTES[HORIZONS_MINUTES.length - 1] as number;
/** How far back a lane's readings are needed: the day-earlier anomaly of the furthest target. */
export const HISTORY_MS = 25 * 3_600_000;
/** Forecasts are issued on this grid (so targets fall on it too, and a rerun keys the same slot). */
export const SLOT_MS = 15 * 60_000;
/** A slot is issued once this long after it starts, so on-the-hour readings have arrived. */
export const SLOT_DELAY_MS = 5 * 60_000;
/** The latest reading must be at most this old to forecast from (CBP's `stale` limit). */
export const MAX_READING_AGE_MS = 3 * 3_600_000;
/** A profile hour needs at least this many samples (about two weeks of an hourly port). */
export const PROFILE_MIN_SAMPLES = 2;
/**
 * Before a lane or its port has any scored pair: today's departure from the typical week fades
 * with this time constant (the learned weights replace it as pairs accrue).
 */
export const ANOMALY_DECAY_MINUTES = 60;
/** Upper edges (minutes) of the forecast level bands that intervals and coverage are kept by. */
export const LEVEL_BANDS = [5, 15, 45] as const;
/** Names of the level bands, in order: under 5, 5-15, 15-45, 45 and more minutes. */
export const LEVEL_BAND_NAMES = ['0-5', '5-15', '15-45', '45+'] as const;

/** The level band (index into {@link LEVEL_BAND_NAMES}) of a forecast. */
export function levelBand(forecast: number): number {
  let band = 0;
  while (band < LEVEL_BANDS.length && forecast >= (LEVEL_BANDS[band] as number)) band++;
  return band;
}

/**
 * Which profile centre a lane's model starts from: the mean or the median of its hour-of-week,
 * over all its history or recency-weighted (`recent-`: each week weighs less with age, see
 * `RECENT_HALF_LIFE_WEEKS` in history/rollups.ts).
 */
export type Centre = 'mean' | 'median' | 'recent-mean' | 'recent-median';

/** The centres in the order the record scores them (`PointBasis.centres`, a tally's `ctr`). */
export const CENTRES: readonly Centre[] = ['mean', 'median', 'recent-mean', 'recent-median'];

/** What a lane has learned for one horizon (from its record: see skill.ts `learnedFrom`). */
export interface LearnedHorizon {
  /** Weights of [today's anomaly, its change over the hour before, the anomaly at T a day earlier]. */
  weights: readonly [number, number, number];
  centre: Centre;
  /** Whether the median correction scored better than none on the lane's record (else it is left out). */
  corrected?: boolean;
}

/** The weights before anything is learned: a fading anomaly, no trend, no day-earlier term. */
export function defaultWeights(horizonMinutes: number): [number, number, number] {
  return [Math.exp(-horizonMinutes / ANOMALY_DECAY_MINUTES), 0, 0];
}

export { METHODS, type Method };

export interface LaneId {
  direction: Direction;
  mode: Mode;
  lane: Lane;
}

export const laneKeyOf = (lane: LaneId): string => `${lane.direction}#${lane.mode}#${lane.lane}`;

export function laneOfKey(key: string): LaneId {
  const [direction, mode, lane] = key.split('#') as [Direction, Mode, Lane];
  return { direction, mode, lane };
}

/** One reading of a lane: its own time and the minutes (null when the lane gave no number). */
export interface LaneReading {
  atMs: number;
  delayMinutes: number | null;
}

// ---------------------------------------------------------------------------------------------
// Profile: port-local hour-of-week medians from the rollups

export interface LaneProfile {
  /** Index `dayOfWeek * 24 + hour`: median (or mean where no median was kept), NaN when too thin. */
  values: Float64Array;
  /** Same index: the mean, NaN when too thin (absent: the model uses `values`). */
  means?: Float64Array;
  /** Same index: the recency-weighted median, NaN when too thin (absent: `values` stands for it). */
  recent?: Float64Array;
  /** Same index: the recency-weighted mean, NaN when too thin (absent: `means` stands for it). */
  recentMeans?: Float64Array;
  /** Same index: the samples behind each value (0 where none); absent for a prior. */
  samples?: Float64Array;
}

/** A lane's profile with every centre and no hour yet: NaN values, no samples. */
export function emptyLaneProfile(): LaneProfile {
  return {
    values: new Float64Array(168).fill(Number.NaN),
    means: new Float64Array(168).fill(Number.NaN),
    recent: new Float64Array(168).fill(Number.NaN),
    recentMeans: new Float64Array(168).fill(Number.NaN),
    samples: new Float64Array(168),
  };
}

/**
 * How many of our own samples CBP's typical wait counts for in the blend: an hour with n own
 * samples is (n * own + PRIOR_WEIGHT_SAMPLES * CBP) / (n + PRIOR_WEIGHT_SAMPLES), so our own
 * profile takes over as samples accrue (an automated port passes it in about a week, a manual one
 * in about 12 weeks).
 */
export const PRIOR_WEIGHT_SAMPLES = 12;

/**
 * The prior profile of each lane from CBP's typical waits (`port-typical-waits`): its average per
 * port-local weekday and hour, keyed like {@link profileFromAverages}.
 */
export function profileFromTypical(
  typical: readonly (LaneId & { dayOfWeek: number; hour: number; averageMinutes: number })[],
): Map<string, LaneProfile> {
  const out = new Map<string, LaneProfile>();
  for (const t of typical) {
    const key = laneKeyOf(t);
    let profile = out.get(key);
    if (!profile) {
      profile = { values: new Float64Array(168).fill(Number.NaN) };
      out.set(key, profile);
    }
    if (Number.isFinite(t.averageMinutes)) profile.values[t.dayOfWeek * 24 + t.hour] = t.averageMinutes;
  }
  return out;
}

/**
 * Per lane key, the hour-of-week profile of a port from its hourly averages, with their
 * recency-weighted centres where the rollups kept them (else the all-history ones stand for them).
 */
export function profileFromAverages(averages: readonly ProfileAverage[]): Map<string, LaneProfile> {
  const out = new Map<string, LaneProfile>();
  // Averages come lane by lane: the lane's key is made and looked up when the lane changes.
  let last: ProfileAverage | undefined;
  // Assigned at the first average (`last` is undefined then).
  let profile!: LaneProfile;
  for (const a of averages) {
    if (!last || a.direction !== last.direction || a.mode !== last.mode || a.lane !== last.lane) {
      const key = laneKeyOf(a);
      const known = out.get(key);
      if (known) profile = known;
      else {
        profile = emptyLaneProfile();
        out.set(key, profile);
      }
      last = a;
    }
    const index = a.dayOfWeek * 24 + a.hour;
    if (profile.samples) profile.samples[index] = a.samples;
    if (a.samples >= PROFILE_MIN_SAMPLES) {
      const median = a.medianDelayMinutes ?? a.averageDelayMinutes;
      profile.values[index] = median;
      if (profile.means) profile.means[index] = a.averageDelayMinutes;
      if (profile.recent) profile.recent[index] = a.recent ? (a.recent.median ?? a.recent.mean) : median;
      if (profile.recentMeans) profile.recentMeans[index] = a.recent?.mean ?? a.averageDelayMinutes;
    }
  }
  return out;
}

/** The profile values of a centre (its all-history counterpart where the profile lacks it). */
function centreArray(profile: LaneProfile, centre: Centre): Float64Array | undefined {
  switch (centre) {
    case 'mean':
      return profile.means;
    case 'median':
      return profile.values;
    case 'recent-mean':
      return profile.recentMeans ?? profile.means;
    case 'recent-median':
      return profile.recent ?? profile.values;
  }
}

// ---------------------------------------------------------------------------------------------
// Local time and holidays

export interface LocalSlot {
  /** Port-local `YYYY-MM-DD`. */
  date: string;
  dayOfWeek: number;
  hour: number;
}

const pad = (n: number) => String(n).padStart(2, '0');

export function localSlotOf(epochMs: number, timeZone: string): LocalSlot {
  const t = utcToZoned(epochMs, timeZone);
  const date = `${t.year}-${pad(t.month)}-${pad(t.day)}`;
  return { date, dayOfWeek: new Date(`${date}T00:00:00Z`).getUTCDay(), hour: t.hour };
}

/** The countries whose public holidays move traffic at a port of that border. */
export const HOLIDAY_COUNTRIES: Readonly<Record<Border, readonly string[]>> = {
  mx: ['US', 'MX'],
  ca: ['US', 'CA'],
};

/**
 * The public holiday on a port-local date in any country of the border, or null. From the table
 * `npm run holidays` writes from `date-holidays` (type `public`; see holidays.ts).
 */
export function holidayOn(localDate: string, border: Border): string | null {
  // Asked for every reading and target of every slot: the answer of a date is kept.
  const key = `${border}|${localDate}`;
  const known = holidayByDate.get(key);
  if (known !== undefined) return known;
  const found = holidayOfDate(localDate, border);
  if (holidayByDate.size >= 10_000) holidayByDate.clear();
  holidayByDate.set(key, found);
  return found;
}

const holidayByDate = new Map<string, string | null>();

function holidayOfDate(localDate: string, border: Border): string | null {
  const names = HOLIDAY_COUNTRIES[border]
    .map((country) => {
      const name = publicHolidayOn(country, localDate);
      return name === undefined ? undefined : `${name} (${country})`;
    })
    .filter((name): name is string => name !== undefined);
  return names.length === 0 ? null : names.join(', ');
}

// ---------------------------------------------------------------------------------------------
// Intervals from the record

/** Relative error of a forecast: (actual - forecast) / (forecast + 5), in bins of 0.05. */
export const RELATIVE_BIN = 0.05;
export const RELATIVE_OFFSET_MINUTES = 5;
/** Below this many scored forecasts, the interval pools the port's lanes, then uses the default. */
export const MIN_INTERVAL_N = 30;
/** Until any record exists: a wide interval, 10th/50th/90th relative error. */
export const DEFAULT_RELATIVE_QUANTILES: readonly [number, number, number] = [-0.5, 0, 0.6];

/**
 * Histogram of relative-error bins: `[bin, count, bin, count, ...]`, bins ascending, counts above 0
 * (a flat array of numbers: summed and walked without parsing keys, and stored as a list).
 */
export type ErrorHistogram = number[];
/** A histogram as a stored record holds it: pairs, or the `{ bin: count }` object of records kept before. */
export type StoredHistogram = ErrorHistogram | Readonly<Record<string, number>>;

const NO_BINS: readonly number[] = [];

/** A stored histogram as pairs (itself when it is pairs; a new array for a record kept before). */
export function pairsOf(histogram: StoredHistogram | undefined): readonly number[] {
  if (histogram === undefined) return NO_BINS;
  if (Array.isArray(histogram)) return histogram;
  const bins = Object.keys(histogram)
    .map(Number)
    .sort((a, b) => a - b);
  const out: number[] = [];
  for (const bin of bins) {
    const count = (histogram as Record<string, number>)[String(bin)] ?? 0;
    if (count !== 0) out.push(bin, count);
  }
  return out;
}

export function relativeBin(actual: number, forecast: number): number {
  return Math.round((actual - forecast) / (forecast + RELATIVE_OFFSET_MINUTES) / RELATIVE_BIN);
}

/** The 10th, 50th and 90th percentiles of a relative-error histogram, or null if it has fewer than `minN`. */
export function quantilesOf(
  histogram: StoredHistogram,
  minN = MIN_INTERVAL_N,
): [number, number, number] | null {
  single[0] = histogram;
  return quantilesOfAll(single, minN);
}

const single: StoredHistogram[] = [[]];

/**
 * {@link quantilesOf} of the sum of histograms of non-negative counts (as stored records hold),
 * without building the sum.
 */
export function quantilesOfAll(
  histograms: readonly StoredHistogram[],
  minN = MIN_INTERVAL_N,
  /** How many of `histograms` count (the first ones; default all): a buffer may be reused. */
  count = histograms.length,
): [number, number, number] | null {
  // Hot path (every lane, horizon, method and band of every slot, and every hour of a backtest):
  // the counts are summed into one dense array by bin, so no sum is built and nothing is sorted.
  // Relative errors are above -1 (waits are not negative), so bins start at -20; a bin outside
  // the array's range takes the general path.
  let total = 0;
  let lo = DENSE_BINS;
  let hi = -1;
  let outside = false;
  for (let h = 0; h < count; h++) {
    const pairs = pairsOf(histograms[h]);
    for (let p = 0; p < pairs.length; p += 2) {
      const n = pairs[p + 1] as number;
      if (n <= 0) continue;
      const i = (pairs[p] as number) - DENSE_FIRST_BIN;
      if (!(i >= 0 && i < DENSE_BINS && Number.isInteger(i))) {
        outside = true;
        continue;
      }
      dense[i] = (dense[i] as number) + n;
      if (i < lo) lo = i;
      if (i > hi) hi = i;
      total += n;
    }
  }
  if (outside || total < minN) {
    if (hi >= 0) dense.fill(0, lo, hi + 1);
    return outside ? sortedQuantiles(histograms.slice(0, count), minN) : null;
  }
  const low = Math.ceil(0.1 * total);
  const mid = Math.ceil(0.5 * total);
  const high = Math.ceil(0.9 * total);
  let seen = 0;
  let q10: number | null = null;
  let q50: number | null = null;
  let last = 0;
  for (let i = lo; i <= hi; i++) {
    const n = dense[i] as number;
    if (n === 0) continue;
    dense[i] = 0;
    last = (i + DENSE_FIRST_BIN) * RELATIVE_BIN;
    seen += n;
    if (q10 === null && seen >= low) q10 = last;
    if (q50 === null && seen >= mid) q50 = last;
    if (seen >= high) {
      dense.fill(0, i, hi + 1);
      return [q10 ?? last, q50 ?? last, last];
    }
  }
  return [q10 ?? last, q50 ?? last, last];
}

/** The first bin of the dense sum, and how many bins it holds (bins from -20 up to +2027: a relative error of 100). */
const DENSE_FIRST_BIN = -20;
const DENSE_BINS = 2048;
const dense = new Float64Array(DENSE_BINS);

/** {@link quantilesOfAll} for bins of any range: sorted, not summed by index. */
function sortedQuantiles(
  histograms: readonly StoredHistogram[],
  minN: number,
): [number, number, number] | null {
  // The bins and their counts are packed into one number each (bin * 2^24 + count: counts stay
  // far below 2^24), so a typed array's numeric sort orders them by bin without a comparator. A
  // bin found in several histograms sorts as neighbours, so the running count below is that of
  // their sum.
  const packed: number[] = [];
  let total = 0;
  for (const histogram of histograms) {
    const pairs = pairsOf(histogram);
    for (let p = 0; p < pairs.length; p += 2) {
      const count = pairs[p + 1] as number;
      if (count <= 0) continue;
      packed.push((pairs[p] as number) * COUNT_SPAN + count);
      total += count;
    }
  }
  if (total < minN) return null;
  const sorted = Float64Array.from(packed).sort();
  const low = Math.ceil(0.1 * total);
  const mid = Math.ceil(0.5 * total);
  const high = Math.ceil(0.9 * total);
  let seen = 0;
  let q10: number | null = null;
  let q50: number | null = null;
  let last = 0;
  for (const value of sorted) {
    const bin = Math.floor(value / COUNT_SPAN);
    last = bin * RELATIVE_BIN;
    seen += value - bin * COUNT_SPAN;
    if (q10 === null && seen >= low) q10 = last;
    if (q50 === null && seen >= mid) q50 = last;
    if (seen >= high) return [q10 ?? last, q50 ?? last, last];
  }
  return [q10 ?? last, q50 ?? last, last];
}

const COUNT_SPAN = 2 ** 24;

/** Rounds to 0.1 minute. */
export const round1 = (value: number): number => Math.round(value * 10) / 10;

/**
 * `[forecast, low, high]` for a point forecast and relative quantiles `[q10, q90]` or
 * `[q10, q50, q90]`. With `centred`, the point moves to the median of the errors (the forecast the
 * record says is as often under as over: it lowers the absolute error of a skewed lane).
 */
export function intervalFor(
  forecast: number,
  quantiles: readonly number[],
  centred = false,
): [number, number, number] {
  const scale = forecast + RELATIVE_OFFSET_MINUTES;
  const q10 = quantiles[0] ?? 0;
  const q90 = quantiles.at(-1) ?? 0;
  const q50 = quantiles.length === 3 ? (quantiles[1] ?? 0) : 0;
  const point = centred ? Math.max(0, forecast + q50 * scale) : forecast;
  const low = Math.min(point, Math.max(0, forecast + q10 * scale));
  return [round1(point), round1(low), round1(Math.max(point, forecast + q90 * scale))];
}

// ---------------------------------------------------------------------------------------------
// Issuing

/** `[forecast, low, high]` of one method at one point. */
export type Triple = [number, number, number];

/** What the model's point was made of, kept with the issue so scoring can learn from it. */
export interface PointBasis {
  /** The model's value before the median correction (its errors shape the intervals). */
  raw: number;
  /** The profile value the anomalies were added to. */
  base: number;
  /** The three anomalies (see {@link LearnedHorizon}); null when the cadence rule gave the point. */
  x: [number, number, number] | null;
  /**
   * The lane's own profile centres at T, in {@link CENTRES} order: mean, median, and their
   * recency-weighted counterparts (absent on issues stored before they were kept); null when the
   * mean or the median is missing.
   */
  centres: [number, number] | [number, number, number, number] | null;
  /** The model's value with the median correction (published when the record says it helps). */
  corrected?: number;
}

export interface IssuedPoint {
  horizonMinutes: number;
  /** The model's makings (absent on issues stored before it was kept). */
  basis?: PointBasis;
  /** The model started from the prior profile (CBP's typical wait): alone, or blended with ours. */
  prior?: 'typical' | 'blend';
  model: Triple | null;
  persistence: Triple | null;
  profile: Triple | null;
  /** The method published for this point (the champion of its lane and horizon), or null. */
  champion: Method | null;
  /** Holiday on the target's local date, when the model treated it as a Sunday. */
  holiday?: string;
}

export interface IssuedLane {
  direction: Direction;
  mode: Mode;
  lane: Lane;
  /** The reading forecast from, with its own time. */
  reading: { delayMinutes: number; observedAt: string } | null;
  /** Why the lane (or some of its points) has no model forecast, or what the model started from; empty when neither needs saying. */
  reasons: ReasonPart[];
  /**
   * What the model started from where it is not our own profile alone: CBP's typical wait
   * (`cbp-typical`) or its blend with our profile by sample count (`blend`); absent otherwise.
   */
  base?: 'cbp-typical' | 'blend';
  points: IssuedPoint[];
}

export interface IssuedPort {
  portId: string;
  issuedAt: string;
  lanes: IssuedLane[];
}

export interface LaneForecastInput {
  lane: LaneId;
  /** The lane's readings up to `issuedAtMs` (oldest first), at least the last 3 hours. */
  readings: readonly LaneReading[];
  /**
   * Readings up to this time count (default `issuedAtMs`): for a lane whose first reading came
   * after the slot started (a fresh service), so its first slot forecasts from it.
   */
  readUntilMs?: number;
}

export interface PortForecastInput {
  portId: string;
  timeZone: string;
  border: Border;
  /** The port's opening hours as CBP publishes them (`6 am-10 pm`; absent or unknown: always open). */
  hours?: string | null;
  issuedAtMs: number;
  profile: ReadonlyMap<string, LaneProfile>;
  /**
   * Optional prior per lane (CBP's typical waits): where our own profile lacks samples the model
   * starts from it, blended toward our own as samples accrue ({@link PRIOR_WEIGHT_SAMPLES}).
   */
  prior?: ReadonlyMap<string, LaneProfile>;
  lanes: readonly LaneForecastInput[];
  /**
   * Relative-error quantiles (`[q10, q90]` or `[q10, q50, q90]`) of a method at a lane, horizon
   * and level band of the forecast ({@link levelBand}), from the record (or a default).
   */
  quantiles: (laneKey: string, horizonMinutes: number, method: Method, band: number) => readonly number[];
  /** What the lane learned for a horizon (absent: the defaults, {@link defaultWeights} and the median). */
  learned?: (laneKey: string, horizonMinutes: number) => LearnedHorizon;
  /** The champion of a lane and horizon among the methods that have a point. */
  champion: (laneKey: string, horizonMinutes: number, available: readonly Method[]) => Method | null;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Median gap between a lane's recent readings (its update cadence), default an hour. */
export function cadenceOf(readings: readonly LaneReading[]): number {
  const recent = readings.slice(-7);
  const gaps: number[] = [];
  for (let i = 1; i < recent.length; i++) {
    gaps.push((recent[i]?.atMs ?? 0) - (recent[i - 1]?.atMs ?? 0));
  }
  return gaps.length === 0 ? 3_600_000 : Math.max(60_000, median(gaps));
}

/** Port-local hours by time zone, kept across issues (consecutive slots ask for the same hours). */
const localSlots = new Map<string, Map<number, LocalSlot>>();
/** Hours kept per zone: the 50 hours a slot reads (25 back, 25 ahead) for a few days of slots. */
const LOCAL_SLOTS_KEPT = 4096;

function localSlotsOf(timeZone: string): Map<number, LocalSlot> {
  let cache = localSlots.get(timeZone);
  if (!cache) {
    cache = new Map();
    localSlots.set(timeZone, cache);
  }
  return cache;
}

/**
 * Forecasts of every lane of one port issued at `issuedAtMs` (pure and deterministic). With the
 * port's `hours`, no point at a time it is closed, and a lane of a port closed now is forecast from
 * its profile for the hours it opens.
 */
export function issuePort(input: PortForecastInput): IssuedPort {
  const { issuedAtMs, timeZone } = input;
  const localCache = localSlotsOf(timeZone);
  const local = (ms: number): LocalSlot => {
    const hourMs = Math.floor(ms / 3_600_000) * 3_600_000;
    let slot = localCache.get(hourMs);
    if (!slot) {
      slot = localSlotOf(hourMs, timeZone);
      // Slots move on by the hour: an old hour is not asked for again, so a full cache starts over.
      if (localCache.size >= LOCAL_SLOTS_KEPT) localCache.clear();
      localCache.set(hourMs, slot);
    }
    return slot;
  };
  const hours = openHoursOf(input.hours);
  /**
   * Whether the port's published hours say it is open at `ms` (unknown hours: open). The minute
   * of the port-local hour is UTC's: US zones are whole hours from UTC.
   */
  const openThen = (ms: number) => openAt(hours, local(ms).hour * 60 + Math.floor((ms % 3_600_000) / 60_000));
  const targets = HORIZONS_MINUTES.map((h) => {
    const atMs = issuedAtMs + h * 60_000;
    const slot = local(atMs);
    return { h, atMs, slot, holiday: holidayOn(slot.date, input.border), open: openThen(atMs) };
  });
  const closedNow = !openThen(issuedAtMs);
  const lanes: IssuedLane[] = [];
  for (const laneInput of input.lanes) {
    const key = laneKeyOf(laneInput.lane);
    const untilMs = Math.max(issuedAtMs, laneInput.readUntilMs ?? issuedAtMs);
    const numeric = laneInput.readings.filter(
      (r): r is { atMs: number; delayMinutes: number } =>
        r.delayMinutes !== null && r.atMs <= untilMs && r.atMs >= issuedAtMs - MAX_READING_AGE_MS,
    );
    const lastNumeric = numeric.at(-1);
    const lastAny = laneInput.readings.filter((r) => r.atMs <= untilMs).at(-1);
    // The reading forecast from: the last one, if it has a wait.
    const latest = lastNumeric && !(lastAny && lastAny.atMs > lastNumeric.atMs) ? lastNumeric : undefined;
    // The lane's own readings overrule the published hours: a wait read when they say closed
    // means they are out of date, and no point is held back by them.
    const hoursHold = !(latest && !openThen(latest.atMs));
    // A port closed now by its hours has no wait to read: its forecasts for the hours it opens
    // start from the profile alone (no anomaly), so tomorrow morning has an answer tonight.
    const fromProfile = !latest && closedNow && hours !== null;
    if (!latest && !fromProfile) {
      lanes.push({
        ...laneInput.lane,
        reading: null,
        reasons: [
          lastNumeric
            ? {
                code: 'no-wait-now',
                text: 'the lane reports no wait now (closed or not reported): nothing to forecast from',
              }
            : {
                code: 'no-recent-reading',
                text: 'no reading with a wait in the last 3 hours: nothing to forecast from',
              },
        ],
        points: [],
      });
      continue;
    }
    const profile = input.profile.get(key);
    const prior = input.prior?.get(key);
    const learned = (h: number): LearnedHorizon =>
      input.learned?.(key, h) ?? { weights: defaultWeights(h), centre: 'median' };
    // The centre the lane's record prefers (the +1 h horizon's choice serves every point).
    const centre = learned(60).centre;
    const centreValues = profile && centreArray(profile, centre);
    const ownAt = (index: number): number => centreValues?.[index] ?? profile?.values[index] ?? Number.NaN;
    /** The profile value of an hour-of-week, blended with the prior where the own hour is thin. */
    const blendAt = (index: number): { value: number; prior: 'typical' | 'blend' | null } => {
      const own = ownAt(index);
      const p = prior?.values[index] ?? Number.NaN;
      if (!Number.isFinite(p)) return { value: own, prior: null };
      if (!Number.isFinite(own)) return { value: p, prior: 'typical' };
      const n = profile?.samples?.[index] ?? Number.POSITIVE_INFINITY;
      if (!Number.isFinite(n)) return { value: own, prior: null };
      return { value: (n * own + PRIOR_WEIGHT_SAMPLES * p) / (n + PRIOR_WEIGHT_SAMPLES), prior: 'blend' };
    };
    const profileAt = (slot: LocalSlot): number => blendAt(slot.dayOfWeek * 24 + slot.hour).value;
    // On a holiday, does the lane run like a Sunday? Today's readings so far say (null: none yet).
    const holidayFit = sundayFit(numeric, local, profileAt, input.border);
    /** The typical wait of a local hour: the profile, or on a holiday its blend with Sunday's. */
    const typicalAt = (slot: LocalSlot, holiday: string | null): number => {
      const weekday = profileAt(slot);
      if (!holiday) return weekday;
      const sunday = profileAt({ ...slot, dayOfWeek: 0 });
      return Number.isFinite(sunday) ? holidayBase(weekday, sunday, holidayFit) : weekday;
    };
    const anomalyOf = (r: { atMs: number; delayMinutes: number }): number => {
      const slot = local(r.atMs);
      return r.delayMinutes - typicalAt(slot, holidayOn(slot.date, input.border));
    };
    /** The mean anomaly of the readings in (fromMs, toMs], NaN when none. */
    const meanAnomaly = (fromMs: number, toMs: number): number => {
      let sum = 0;
      let count = 0;
      for (let i = numericAll.length - 1; i >= 0; i--) {
        const r = numericAll[i] as { atMs: number; delayMinutes: number };
        if (r.atMs <= fromMs) break;
        if (r.atMs > toMs) continue;
        const value = anomalyOf(r);
        if (!Number.isFinite(value)) continue;
        sum += value;
        count++;
      }
      return count === 0 ? Number.NaN : sum / count;
    };
    const numericAll = laneInput.readings.filter(
      (r): r is { atMs: number; delayMinutes: number } => r.delayMinutes !== null && r.atMs <= issuedAtMs,
    );
    // Today's anomaly (the last hour's readings), and its change since the hour before.
    // None from the profile alone.
    const nowAnomaly = latest ? meanAnomaly(latest.atMs - 3_600_000, latest.atMs) : Number.NaN;
    const anomaly = Number.isFinite(nowAnomaly) ? nowAnomaly : 0;
    const before = latest ? meanAnomaly(latest.atMs - 2 * 3_600_000, latest.atMs - 3_600_000) : Number.NaN;
    const change = Number.isFinite(before) ? anomaly - before : 0;
    /** The anomaly of the reading in force a day before `atMs` (0 when none was fresh then). */
    const dayEarlier = (atMs: number): number => {
      const then = atMs - 86_400_000;
      // The last reading at or before `then` (binary search: the readings are oldest first).
      let lo = 0;
      let hi = numericAll.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((numericAll[mid] as { atMs: number }).atMs <= then) lo = mid + 1;
        else hi = mid;
      }
      const r = numericAll[lo - 1];
      if (!r || then - r.atMs > 75 * 60_000) return 0;
      const value = anomalyOf(r);
      return Number.isFinite(value) ? value : 0;
    };
    const cadence = cadenceOf(laneInput.readings.filter((r) => r.atMs <= issuedAtMs));
    const nextUpdateMs = latest ? latest.atMs + cadence - 60_000 : issuedAtMs;
    let missingProfile = 0;
    let fromPrior = 0;
    let blendedPoints = 0;
    let closedPoints = 0;
    const points: IssuedPoint[] = targets.map((target) => {
      // No forecast for a time the port is closed: no method has a point, none is scored.
      if (hoursHold && !target.open) {
        closedPoints++;
        return { horizonMinutes: target.h, model: null, persistence: null, profile: null, champion: null };
      }
      const index = target.slot.dayOfWeek * 24 + target.slot.hour;
      const typical = profile?.values[index] ?? Number.NaN;
      const blended = blendAt(index);
      const base = typicalAt(target.slot, target.holiday);
      const readAsHoliday =
        target.holiday !== null && Number.isFinite(profileAt({ ...target.slot, dayOfWeek: 0 }));
      const learnedAt = learned(target.h);
      let model: number | null = null;
      let basis: PointBasis | undefined;
      if (Number.isFinite(blended.value) && Number.isFinite(base)) {
        const mean = profile?.means?.[index] ?? Number.NaN;
        const centres: PointBasis['centres'] =
          Number.isFinite(mean) && Number.isFinite(typical)
            ? [mean, typical, profile?.recentMeans?.[index] ?? mean, profile?.recent?.[index] ?? typical]
            : null;
        if (latest && target.atMs < nextUpdateMs) {
          model = latest.delayMinutes;
          basis = { raw: model, base, x: null, centres, corrected: undefined };
        } else {
          const x: [number, number, number] = [
            round1(anomaly),
            round1(change),
            round1(dayEarlier(target.atMs)),
          ];
          const w = learnedAt.weights;
          model = Math.max(0, base + w[0] * x[0] + w[1] * x[1] + w[2] * x[2]);
          basis = { raw: round1(model), base: round1(base), x, centres, corrected: undefined };
        }
      } else missingProfile++;
      const values: Record<Method, number | null> = {
        model,
        persistence: latest?.delayMinutes ?? null,
        // The baseline stays our own profile: CBP's typical wait is only where the model starts.
        profile: Number.isFinite(typical) ? typical : null,
      };
      const correct = learnedAt.corrected === true;
      const triple = (method: Method): Triple | null => {
        const value = values[method];
        if (value === null) return null;
        const quantiles = input.quantiles(key, target.h, method, levelBand(value));
        if (method === 'model' && basis) basis.corrected = intervalFor(value, quantiles, true)[0];
        return intervalFor(value, quantiles, method === 'model' && correct);
      };
      const point: IssuedPoint = {
        horizonMinutes: target.h,
        basis,
        model: triple('model'),
        persistence: triple('persistence'),
        profile: triple('profile'),
        champion: null,
      };
      if (model !== null && blended.prior) {
        point.prior = blended.prior;
        if (blended.prior === 'typical') fromPrior++;
        else blendedPoints++;
      }
      // No model means the lane lacks history for that hour: nothing is published for the point.
      point.champion =
        point.model === null
          ? null
          : input.champion(
              key,
              target.h,
              METHODS.filter((m) => point[m] !== null),
            );
      if (readAsHoliday && target.holiday && model !== null) point.holiday = target.holiday;
      return point;
    });
    // The points the port is open for: those the history and the prior speak to.
    const openPoints = targets.length - closedPoints;
    const thin: ReasonPart | null =
      missingProfile === 0
        ? null
        : missingProfile === openPoints
          ? {
              code: 'not-enough-history',
              text: `not enough history: the hour-of-week profile has fewer than ${PROFILE_MIN_SAMPLES} samples for the coming hours (about two weeks of readings are needed)${prior ? ' and CBP publishes no typical wait for them' : " and no typical wait of CBP's is known for this lane (port-typical-waits)"}, so no model forecast is published`,
            }
          : {
              code: 'partial-history',
              text: `not enough history for ${missingProfile} of ${openPoints} points: their hours have fewer than ${PROFILE_MIN_SAMPLES} samples in the hour-of-week profile`,
            };
    const started: ReasonPart | null =
      fromPrior + blendedPoints === 0
        ? null
        : {
            code: 'cbp-typical',
            text:
              fromPrior === openPoints - missingProfile
                ? `the model starts from CBP's typical wait (port-typical-waits): our own history has fewer than ${PROFILE_MIN_SAMPLES} samples for these hours`
                : `the model blends CBP's typical wait with our own hour-of-week profile, weighted by sample count (CBP counts as ${PRIOR_WEIGHT_SAMPLES} samples) for ${fromPrior + blendedPoints} of ${targets.length} points${fromPrior > 0 ? `, ${fromPrior} of them from CBP's alone` : ''}`,
          };
    const closed: ReasonPart | null =
      closedPoints === 0 && !fromProfile
        ? null
        : {
            code: 'port-hours',
            text: [
              fromProfile &&
                `the port is closed now (its hours: ${input.hours}): the forecast for its opening hours starts from the hour-of-week profile, with no reading to move it`,
              closedPoints > 0 &&
                `no forecast for the ${closedPoints} of ${targets.length} points when the port is closed (its hours: ${input.hours})`,
            ]
              .filter(Boolean)
              .join('; '),
          };
    lanes.push({
      ...laneInput.lane,
      reading: latest
        ? { delayMinutes: latest.delayMinutes, observedAt: new Date(latest.atMs).toISOString() }
        : null,
      reasons: [closed, started, thin].filter((part) => part !== null),
      ...(fromPrior + blendedPoints > 0
        ? { base: fromPrior > 0 && blendedPoints === 0 ? 'cbp-typical' : 'blend' }
        : {}),
      points,
    });
  }
  return { portId: input.portId, issuedAt: new Date(issuedAtMs).toISOString(), lanes };
}

/**
 * How a lane runs on the holiday it is on: of its last 3 hours' readings taken on a holiday, the
 * share of absolute error the Sunday profile saves over the weekday one (1: Sundays fit, 0: the
 * weekday fits, null: no reading on a holiday yet).
 */
function sundayFit(
  readings: readonly { atMs: number; delayMinutes: number }[],
  local: (ms: number) => LocalSlot,
  profileAt: (slot: LocalSlot) => number,
  border: Border,
): number | null {
  let weekdayError = 0;
  let sundayError = 0;
  let count = 0;
  for (const r of readings.slice(-12)) {
    const slot = local(r.atMs);
    if (holidayOn(slot.date, border) === null) continue;
    const weekday = profileAt(slot);
    const sunday = profileAt({ ...slot, dayOfWeek: 0 });
    if (!Number.isFinite(weekday) || !Number.isFinite(sunday)) continue;
    weekdayError += Math.abs(r.delayMinutes - weekday);
    sundayError += Math.abs(r.delayMinutes - sunday);
    count++;
  }
  if (count === 0) return null;
  if (weekdayError + sundayError === 0) return 0.5;
  return weekdayError / (weekdayError + sundayError);
}

/**
 * The typical wait of a holiday hour: Sunday's and the weekday's medians weighed by how well each
 * fitted the holiday's readings so far (half and half before the holiday has any reading).
 */
export function holidayBase(weekday: number, sunday: number, fit: number | null): number {
  const w = fit ?? 0.5;
  return w * sunday + (1 - w) * weekday;
}

/** The slot a cycle at `nowMs` issues (its start), on the {@link SLOT_MS} grid. */
export function slotOf(nowMs: number): number {
  return Math.floor((nowMs - SLOT_DELAY_MS) / SLOT_MS) * SLOT_MS;
}
