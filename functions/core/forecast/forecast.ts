/**
 * The forecaster (DESIGN.md section 9), pure: for each lane of a port, the expected wait at
 * +15/+30/+45/+60 minutes and then hourly to +6 hours, each with an 80% interval, next to the two
 * baselines (persistence and profile) it is scored against.
 *
 * Method ("model"), per lane and target time T, issued at `issuedAt` from what was known then:
 * 1. If the lane's update cadence (median gap of its recent readings) says no new reading is due
 *    before T, the reading in force at T is the current one: the forecast is that reading.
 * 2. Otherwise: the port-local hour-of-week median of T, plus today's anomaly (recent readings minus their own hour's median)
 *    decaying with the lead time (time constant {@link ANOMALY_DECAY_MINUTES}), plus a damped
 *    trend of that anomaly. Never below 0. On a public holiday of the port's countries
 *    (`date-holidays`' public days, tabled by `npm run holidays`: US and MX, or US and CA) the hour's median is a blend of Sunday's and the
 *    weekday's, weighed by which fitted the holiday's readings so far (half each before any).
 * Intervals: empirical 10th and 90th percentiles of the method's own past relative errors on the
 * lane and horizon ({@link intervalFor}).
 */

import {
  type Border,
  type Direction,
  type HourlyAverage,
  type Lane,
  METHODS,
  type Method,
  type Mode,
} from '../model.ts';
import { utcToZoned } from '../time.ts';
import { publicHolidayOn } from './holidays.ts';

/** Lead times of the published points, minutes. */
export const HORIZONS_MINUTES = [15, 30, 45, 60, 120, 180, 240, 300, 360] as const;
/** Forecasts are issued on this grid (so targets fall on it too, and a rerun keys the same slot). */
export const SLOT_MS = 15 * 60_000;
/** A slot is issued once this long after it starts, so on-the-hour readings have arrived. */
export const SLOT_DELAY_MS = 5 * 60_000;
/** The latest reading must be at most this old to forecast from (CBP's `stale` limit). */
export const MAX_READING_AGE_MS = 3 * 3_600_000;
/** A profile hour needs at least this many samples (about two weeks of an hourly port). */
export const PROFILE_MIN_SAMPLES = 2;
/** How fast today's departure from the typical week fades with lead time. */
export const ANOMALY_DECAY_MINUTES = 60;
/** The anomaly trend counts for at most this many minutes of extrapolation, halved. */
export const TREND_DAMPING_MINUTES = 30;

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
  /** Same index: the samples behind each value (0 where none); absent for a prior. */
  samples?: Float64Array;
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

/** Per lane key, the hour-of-week profile of a port from its hourly averages. */
export function profileFromAverages(averages: readonly HourlyAverage[]): Map<string, LaneProfile> {
  const out = new Map<string, LaneProfile>();
  for (const a of averages) {
    const key = laneKeyOf(a);
    let profile = out.get(key);
    if (!profile) {
      profile = { values: new Float64Array(168).fill(Number.NaN), samples: new Float64Array(168) };
      out.set(key, profile);
    }
    if (profile.samples) profile.samples[a.dayOfWeek * 24 + a.hour] = a.samples;
    if (a.samples >= PROFILE_MIN_SAMPLES) {
      profile.values[a.dayOfWeek * 24 + a.hour] = a.medianDelayMinutes ?? a.averageDelayMinutes;
    }
  }
  return out;
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
/** Until any record exists: a wide interval, 10th/90th relative error. */
export const DEFAULT_RELATIVE_QUANTILES: readonly [number, number] = [-0.5, 0.6];

/** Histogram of relative-error bins (bin index as a string -> count). */
export type ErrorHistogram = Record<string, number>;

export function relativeBin(actual: number, forecast: number): number {
  return Math.round((actual - forecast) / (forecast + RELATIVE_OFFSET_MINUTES) / RELATIVE_BIN);
}

/** The 10th and 90th percentiles of a relative-error histogram, or null if it has fewer than `minN`. */
export function quantilesOf(histogram: ErrorHistogram, minN = MIN_INTERVAL_N): [number, number] | null {
  // Hot path (every lane, horizon and method of every slot): no intermediate tuples.
  const bins: number[] = [];
  const counts: number[] = [];
  let total = 0;
  for (const bin in histogram) {
    const count = histogram[bin] ?? 0;
    if (count <= 0) continue;
    bins.push(Number(bin));
    counts.push(count);
    total += count;
  }
  if (total < minN) return null;
  const order = bins.map((_, i) => i).sort((a, b) => (bins[a] ?? 0) - (bins[b] ?? 0));
  const low = Math.ceil(0.1 * total);
  const high = Math.ceil(0.9 * total);
  let seen = 0;
  let q10: number | null = null;
  let last = 0;
  for (const i of order) {
    const bin = bins[i] ?? 0;
    last = bin * RELATIVE_BIN;
    seen += counts[i] ?? 0;
    if (q10 === null && seen >= low) q10 = last;
    if (seen >= high) return [q10 ?? last, last];
  }
  return [q10 ?? last, last];
}

/** Rounds to 0.1 minute. */
export const round1 = (value: number): number => Math.round(value * 10) / 10;

/** `[forecast, low, high]` for a point forecast and relative quantiles. */
export function intervalFor(
  forecast: number,
  quantiles: readonly [number, number],
): [number, number, number] {
  const scale = forecast + RELATIVE_OFFSET_MINUTES;
  return [
    round1(forecast),
    round1(Math.max(0, forecast + quantiles[0] * scale)),
    round1(Math.max(forecast, forecast + quantiles[1] * scale)),
  ];
}

// ---------------------------------------------------------------------------------------------
// Issuing

/** `[forecast, low, high]` of one method at one point. */
export type Triple = [number, number, number];

export interface IssuedPoint {
  horizonMinutes: number;
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
  /** Why the lane (or some of its points) has no model forecast, or what the model started from; null when neither needs saying. */
  reason: string | null;
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
  issuedAtMs: number;
  profile: ReadonlyMap<string, LaneProfile>;
  /**
   * Optional prior per lane (CBP's typical waits): where our own profile lacks samples the model
   * starts from it, blended toward our own as samples accrue ({@link PRIOR_WEIGHT_SAMPLES}).
   */
  prior?: ReadonlyMap<string, LaneProfile>;
  lanes: readonly LaneForecastInput[];
  /** Relative-error quantiles of a method at a lane and horizon, from the record (null: default). */
  quantiles: (laneKey: string, horizonMinutes: number, method: Method) => readonly [number, number];
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

/** Forecasts of every lane of one port issued at `issuedAtMs` (pure and deterministic). */
export function issuePort(input: PortForecastInput): IssuedPort {
  const { issuedAtMs, timeZone } = input;
  const localCache = new Map<number, LocalSlot>();
  const local = (ms: number): LocalSlot => {
    const hourMs = Math.floor(ms / 3_600_000) * 3_600_000;
    let slot = localCache.get(hourMs);
    if (!slot) {
      slot = localSlotOf(hourMs, timeZone);
      localCache.set(hourMs, slot);
    }
    return slot;
  };
  const targets = HORIZONS_MINUTES.map((h) => {
    const atMs = issuedAtMs + h * 60_000;
    const slot = local(atMs);
    return { h, atMs, slot, holiday: holidayOn(slot.date, input.border) };
  });
  const lanes: IssuedLane[] = [];
  for (const laneInput of input.lanes) {
    const key = laneKeyOf(laneInput.lane);
    const untilMs = Math.max(issuedAtMs, laneInput.readUntilMs ?? issuedAtMs);
    const numeric = laneInput.readings.filter(
      (r): r is { atMs: number; delayMinutes: number } =>
        r.delayMinutes !== null && r.atMs <= untilMs && r.atMs >= issuedAtMs - MAX_READING_AGE_MS,
    );
    const latest = numeric.at(-1);
    const lastAny = laneInput.readings.filter((r) => r.atMs <= untilMs).at(-1);
    if (!latest || (lastAny && lastAny.atMs > latest.atMs)) {
      lanes.push({
        ...laneInput.lane,
        reading: null,
        reason: latest
          ? 'the lane reports no wait now (closed or not reported): nothing to forecast from'
          : 'no reading with a wait in the last 3 hours: nothing to forecast from',
        points: [],
      });
      continue;
    }
    const profile = input.profile.get(key);
    const prior = input.prior?.get(key);
    /** Our own hour-of-week median (the `profile` baseline); NaN when too thin. */
    const ownAt = (slot: LocalSlot): number => profile?.values[slot.dayOfWeek * 24 + slot.hour] ?? Number.NaN;
    let fromPrior = 0;
    let blended = 0;
    /** What the model starts from: our own profile, CBP's typical wait, or their blend by samples. */
    const profileAt = (slot: LocalSlot): number => {
      const index = slot.dayOfWeek * 24 + slot.hour;
      const own = ownAt(slot);
      const cbp = prior?.values[index] ?? Number.NaN;
      if (!Number.isFinite(cbp)) return own;
      if (!Number.isFinite(own)) return cbp;
      const n = profile?.samples?.[index] ?? Number.POSITIVE_INFINITY;
      return Number.isFinite(n) ? (n * own + PRIOR_WEIGHT_SAMPLES * cbp) / (n + PRIOR_WEIGHT_SAMPLES) : own;
    };
    const baseOf = (slot: LocalSlot): 'own' | 'prior' | 'blend' => {
      const index = slot.dayOfWeek * 24 + slot.hour;
      const cbp = prior?.values[index] ?? Number.NaN;
      if (!Number.isFinite(cbp)) return 'own';
      if (!Number.isFinite(ownAt(slot))) return 'prior';
      return Number.isFinite(profile?.samples?.[index] ?? Number.POSITIVE_INFINITY) ? 'blend' : 'own';
    };
    // On a holiday, does the lane run like a Sunday? Today's readings so far say (null: none yet).
    const holidayFit = sundayFit(numeric, local, profileAt, input.border);
    /** The typical wait of a local hour: the profile, or on a holiday its blend with Sunday's. */
    const typicalAt = (slot: LocalSlot, holiday: string | null): number => {
      const weekday = profileAt(slot);
      if (!holiday) return weekday;
      const sunday = profileAt({ ...slot, dayOfWeek: 0 });
      return Number.isFinite(sunday) ? holidayBase(weekday, sunday, holidayFit) : weekday;
    };
    // Today's anomaly: the last hour's readings minus their own hour's typical wait, averaged.
    const anomalies = numeric
      .filter((r) => r.atMs >= latest.atMs - 3_600_000)
      .map((r) => {
        const slot = local(r.atMs);
        return { atMs: r.atMs, value: r.delayMinutes - typicalAt(slot, holidayOn(slot.date, input.border)) };
      })
      .filter((a) => Number.isFinite(a.value));
    const anomaly =
      anomalies.length === 0 ? 0 : anomalies.reduce((s, a) => s + a.value, 0) / anomalies.length;
    const slope = trendOf(anomalies);
    const cadence = cadenceOf(laneInput.readings.filter((r) => r.atMs <= issuedAtMs));
    const nextUpdateMs = latest.atMs + cadence - 60_000;
    let missingProfile = 0;
    const points: IssuedPoint[] = targets.map((target) => {
      const typical = profileAt(target.slot);
      const own = ownAt(target.slot);
      const base = typicalAt(target.slot, target.holiday);
      const readAsHoliday =
        target.holiday !== null && Number.isFinite(profileAt({ ...target.slot, dayOfWeek: 0 }));
      const lead = (target.atMs - latest.atMs) / 60_000;
      let model: number | null = null;
      if (Number.isFinite(typical) && Number.isFinite(base)) {
        if (target.atMs < nextUpdateMs) model = latest.delayMinutes;
        else {
          const decay = Math.exp(-lead / ANOMALY_DECAY_MINUTES);
          const trend = 0.5 * slope * TREND_DAMPING_MINUTES * (1 - Math.exp(-lead / TREND_DAMPING_MINUTES));
          model = Math.max(0, base + (anomaly + trend) * decay);
        }
      } else missingProfile++;
      if (model !== null) {
        const base = baseOf(target.slot);
        if (base === 'prior') fromPrior++;
        else if (base === 'blend') blended++;
      }
      const values: Record<Method, number | null> = {
        model,
        persistence: latest.delayMinutes,
        // The baseline stays our own profile: CBP's typical wait is only where the model starts.
        profile: Number.isFinite(own) ? own : null,
      };
      const triple = (method: Method): Triple | null => {
        const value = values[method];
        return value === null ? null : intervalFor(value, input.quantiles(key, target.h, method));
      };
      const point: IssuedPoint = {
        horizonMinutes: target.h,
        model: triple('model'),
        persistence: triple('persistence'),
        profile: triple('profile'),
        champion: null,
      };
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
    const thin =
      missingProfile === 0
        ? null
        : missingProfile === targets.length
          ? `not enough history: the hour-of-week profile has fewer than ${PROFILE_MIN_SAMPLES} samples for the coming hours (about two weeks of readings are needed)${prior ? ' and CBP publishes no typical wait for them' : " and no typical wait of CBP's is known for this lane (port-typical-waits)"}, so no model forecast is published`
          : `not enough history for ${missingProfile} of ${targets.length} points: their hours have fewer than ${PROFILE_MIN_SAMPLES} samples in the hour-of-week profile`;
    const started =
      fromPrior + blended === 0
        ? null
        : fromPrior === targets.length - missingProfile
          ? `the model starts from CBP's typical wait (port-typical-waits): our own history has fewer than ${PROFILE_MIN_SAMPLES} samples for these hours`
          : `the model blends CBP's typical wait with our own hour-of-week profile, weighted by sample count (CBP counts as ${PRIOR_WEIGHT_SAMPLES} samples) for ${fromPrior + blended} of ${targets.length} points${fromPrior > 0 ? `, ${fromPrior} of them from CBP's alone` : ''}`;
    lanes.push({
      ...laneInput.lane,
      reading: { delayMinutes: latest.delayMinutes, observedAt: new Date(latest.atMs).toISOString() },
      reason: [started, thin].filter((part) => part !== null).join('; ') || null,
      ...(fromPrior + blended > 0 ? { base: fromPrior > 0 && blended === 0 ? 'cbp-typical' : 'blend' } : {}),
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

/** Least-squares slope (minutes per minute) of the anomalies; 0 with fewer than 3 points. */
function trendOf(anomalies: readonly { atMs: number; value: number }[]): number {
  if (anomalies.length < 3) return 0;
  const xs = anomalies.map((a) => a.atMs / 60_000);
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = anomalies.reduce((s, a) => s + a.value, 0) / anomalies.length;
  let sxy = 0;
  let sxx = 0;
  anomalies.forEach((a, i) => {
    const dx = (xs[i] ?? 0) - mx;
    sxy += dx * (a.value - my);
    sxx += dx * dx;
  });
  return sxx === 0 ? 0 : sxy / sxx;
}

/** The slot a cycle at `nowMs` issues (its start), on the {@link SLOT_MS} grid. */
export function slotOf(nowMs: number): number {
  return Math.floor((nowMs - SLOT_DELAY_MS) / SLOT_MS) * SLOT_MS;
}
