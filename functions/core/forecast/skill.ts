/**
 * The live track record of the forecasts (DESIGN.md section 9), pure.
 *
 * Kept compactly: per port and UTC date of the target, one record holding, per lane, horizon and
 * series (model, persistence, profile, and the published champion), the sums of absolute error
 * and error (integers, tenths of a minute, so sums never depend on order), the count inside the
 * 80% interval, n, and a histogram of relative errors (for the intervals). A record also says up
 * to which target time it has been scored (`through`), so folding a target in is an absolute write
 * of new totals guarded by the `through` that was read: a replay or a rerun after a crash folds
 * nothing twice. Rolling window: the last {@link RECORD_DAYS} dates.
 */
import {
  DEFAULT_RELATIVE_QUANTILES,
  type ErrorHistogram,
  HORIZONS_MINUTES,
  type IssuedPort,
  type LaneReading,
  METHODS,
  type Method,
  MIN_INTERVAL_N,
  quantilesOf,
  relativeBin,
  SLOT_MS,
  type Triple,
} from './forecast.ts';

/** The record covers this many UTC dates of targets. */
export const RECORD_DAYS = 28;
/** A lane and horizon needs this many scored forecasts before its champion is chosen on the record. */
export const MIN_N = 50;
/** Targets are scored this long after their time (late readings have arrived by then). */
export const SCORE_DELAY_MS = 15 * 60_000;
/** Targets further back than this are not scored any more (their forecasts expire). */
export const SCORE_BACKLOG_MS = 2 * 3_600_000;
/** The reading in force at a target must be at most this old to score against (CBP `fresh`). */
export const MAX_ACTUAL_AGE_MS = 75 * 60_000;

export const SERIES = [...METHODS, 'champion'] as const;
export type Series = (typeof SERIES)[number];

export interface Tally {
  /** Sum of |forecast - actual|, tenths of a minute. */
  abs: number;
  /** Sum of forecast - actual, tenths of a minute (positive: forecasts too high). */
  err: number;
  /** Actuals inside [low, high]. */
  cov: number;
  n: number;
  /** Relative-error bins (see `relativeBin`); empty for the published series. */
  hist: ErrorHistogram;
}

/** Per lane key, per horizon (minutes, as a string), per series. */
export type PortRecord = Record<string, Record<string, Partial<Record<Series, Tally>>>>;

export interface SkillDay {
  /** UTC date of the targets, `YYYY-MM-DD`. */
  date: string;
  /** The last target time folded in (ISO), or null when nothing was. */
  through: string | null;
  lanes: PortRecord;
}

export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const emptyTally = (): Tally => ({ abs: 0, err: 0, cov: 0, n: 0, hist: {} });

/** `record[key]`, created by `make` when missing. */
function child<T>(record: Record<string, T>, key: string, make: () => T): T {
  let value = record[key];
  if (value === undefined) {
    value = make();
    record[key] = value;
  }
  return value;
}

function tallyOf(record: PortRecord, lane: string, h: string, series: Series): Tally {
  const horizons = child(record, lane, () => ({}));
  const byMethod = child(horizons, h, () => ({}) as Partial<Record<Series, Tally>>);
  return child(byMethod as Record<string, Tally>, series, emptyTally);
}

function addTally(into: Tally, from: Tally, sign: number): void {
  into.abs += sign * from.abs;
  into.err += sign * from.err;
  into.cov += sign * from.cov;
  into.n += sign * from.n;
  // Hot path (every tally of every record a slot reads): no intermediate arrays.
  const hist = into.hist;
  for (const bin in from.hist) {
    const next = (hist[bin] ?? 0) + sign * (from.hist[bin] ?? 0);
    if (next === 0) delete hist[bin];
    else hist[bin] = next;
  }
}

/** Adds `from` into `into` (or takes it out, with `sign` -1). */
export function addRecord(into: PortRecord, from: PortRecord, sign = 1): void {
  for (const [lane, horizons] of Object.entries(from)) {
    for (const [h, series] of Object.entries(horizons)) {
      for (const [name, tally] of Object.entries(series) as [Series, Tally][]) {
        addTally(tallyOf(into, lane, h, name), tally, sign);
      }
    }
  }
}

/** The sum of records (a new object). */
export function mergeRecords(records: readonly PortRecord[]): PortRecord {
  const out: PortRecord = {};
  for (const record of records) addRecord(out, record);
  return out;
}

/**
 * The reading in force at `atMs`: the lane's last reading at or before it, if it has a number and
 * is at most {@link MAX_ACTUAL_AGE_MS} old; else null (a closed or silent lane scores nothing).
 */
export function actualAt(readings: readonly LaneReading[], atMs: number): number | null {
  let found: LaneReading | undefined;
  for (const reading of readings) {
    if (reading.atMs > atMs) break;
    found = reading;
  }
  if (!found || found.delayMinutes === null || atMs - found.atMs > MAX_ACTUAL_AGE_MS) return null;
  return found.delayMinutes;
}

/** Target times to score in the cycle of slot `slotMs`: on the grid, due, not yet folded in. */
export function dueTargets(slotMs: number, throughByDate: ReadonlyMap<string, string | null>): number[] {
  const out: number[] = [];
  const last = slotMs - SCORE_DELAY_MS;
  for (let t = Math.max(slotMs - SCORE_BACKLOG_MS, 0) + SLOT_MS; t <= last; t += SLOT_MS) {
    const through = throughByDate.get(utcDate(t));
    if (through && Date.parse(through) >= t) continue;
    out.push(t);
  }
  return out;
}

function score(
  record: PortRecord,
  lane: string,
  h: number,
  series: Series,
  triple: Triple,
  actual: number,
): void {
  const tally = tallyOf(record, lane, String(h), series);
  const [forecast, low, high] = triple;
  const error = Math.round(forecast * 10) - Math.round(actual * 10);
  tally.abs += Math.abs(error);
  tally.err += error;
  tally.cov += actual >= low && actual <= high ? 1 : 0;
  tally.n += 1;
  // The published series repeats one of the others: its errors shape no interval.
  if (series === 'champion') return;
  const bin = String(relativeBin(actual, forecast));
  tally.hist[bin] = (tally.hist[bin] ?? 0) + 1;
}

/**
 * Scores the given targets: every pending forecast aimed at them that has a model point (so the
 * model, both baselines and the published champion are compared on the same targets) against the
 * reading in force. Returns the contributions by UTC date of the target.
 */
export function scoreTargets(
  targets: readonly number[],
  pending: readonly IssuedPort[],
  readings: ReadonlyMap<string, readonly LaneReading[]>,
): Map<string, PortRecord> {
  const byIssue = new Map(pending.map((issue) => [Date.parse(issue.issuedAt), issue]));
  const out = new Map<string, PortRecord>();
  for (const target of targets) {
    const date = utcDate(target);
    for (const h of HORIZONS_MINUTES) {
      const issue = byIssue.get(target - h * 60_000);
      if (!issue) continue;
      for (const lane of issue.lanes) {
        const point = lane.points.find((p) => p.horizonMinutes === h);
        if (!point?.model || !point.persistence || !point.profile) continue;
        const key = `${lane.direction}#${lane.mode}#${lane.lane}`;
        const actual = actualAt(readings.get(key) ?? [], target);
        if (actual === null) continue;
        const record = out.get(date) ?? {};
        out.set(date, record);
        for (const method of METHODS) score(record, key, h, method, point[method] as Triple, actual);
        const champion = point.champion ? point[point.champion] : null;
        if (champion) score(record, key, h, 'champion', champion, actual);
      }
    }
  }
  return out;
}

export interface SkillFigures {
  /** Mean absolute error, minutes (0.1); null when n is 0. */
  mae: number | null;
  /** Mean of forecast - actual, minutes (0.1): positive means forecasts ran high. */
  bias: number | null;
  /** Share of actuals inside the 80% interval (0-1, 0.001). */
  coverage: number | null;
  n: number;
}

export function figuresOf(tally: Tally | undefined): SkillFigures {
  if (!tally || tally.n === 0) return { mae: null, bias: null, coverage: null, n: 0 };
  return {
    mae: Math.round(tally.abs / tally.n) / 10,
    bias: Math.round(tally.err / tally.n) / 10,
    coverage: Math.round((tally.cov / tally.n) * 1000) / 1000,
    n: tally.n,
  };
}

/** Preference among equal MAEs: the simpler method wins. */
const TIE_ORDER: readonly Method[] = ['persistence', 'profile', 'model'];

/**
 * The champion of a lane and horizon: the available method with the lowest MAE on its record (all
 * methods are scored on the same targets) once the record holds {@link MIN_N} scores. Before that
 * the model is published (a baseline that wins a handful of early scores by luck would otherwise
 * be served), and the document says the champion is not established yet. Null when the model has
 * no point (not enough history for the lane).
 */
export function championOf(
  record: PortRecord,
  lane: string,
  h: number,
  available: readonly Method[],
): Method | null {
  if (!available.includes('model')) return null;
  const series = record[lane]?.[String(h)] ?? {};
  if ((series.model?.n ?? 0) < MIN_N) return 'model';
  let best: Method = 'model';
  let bestMae = Number.POSITIVE_INFINITY;
  for (const method of TIE_ORDER) {
    const tally = series[method];
    if (!available.includes(method) || !tally || tally.n === 0) continue;
    const mae = tally.abs / tally.n;
    if (mae < bestMae) {
      best = method;
      bestMae = mae;
    }
  }
  return best;
}

/** Why a lane and horizon publishes the method it does. */
export function championReason(record: PortRecord, lane: string, h: number, champion: Method | null): string {
  const n = record[lane]?.[String(h)]?.model?.n ?? 0;
  if (champion === null) return 'no model forecast for this point (not enough history)';
  if (n === 0) return `no track record yet at +${h} min: the model is published until forecasts are scored`;
  if (n < MIN_N) {
    return `no champion yet: the track record has ${n} scored forecasts at +${h} min, below the minimum of ${MIN_N}, so the model is published`;
  }
  return `lowest mean absolute error over the last ${RECORD_DAYS} days (n=${n})`;
}

/** Relative-error quantiles for a method at a lane and horizon: its own record, the port's pooled, or the default. */
export function quantilesFrom(
  record: PortRecord,
  lane: string,
  h: number,
  method: Method,
): readonly [number, number] {
  const own = record[lane]?.[String(h)]?.[method];
  const mine = own ? quantilesOf(own.hist) : null;
  if (mine) return mine;
  const pooled: ErrorHistogram = {};
  for (const horizons of Object.values(record)) {
    const tally = horizons[String(h)]?.[method];
    if (!tally) continue;
    for (const [bin, count] of Object.entries(tally.hist)) pooled[bin] = (pooled[bin] ?? 0) + count;
  }
  return quantilesOf(pooled, MIN_INTERVAL_N) ?? DEFAULT_RELATIVE_QUANTILES;
}
