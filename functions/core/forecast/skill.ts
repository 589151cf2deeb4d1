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

import type { ReasonPart } from '../views/reason-codes.ts';
import {
  type Centre,
  DEFAULT_RELATIVE_QUANTILES,
  defaultWeights,
  type ErrorHistogram,
  HORIZONS_MINUTES,
  type IssuedLane,
  type IssuedPoint,
  type IssuedPort,
  type LaneReading,
  LEVEL_BAND_NAMES,
  type LearnedHorizon,
  levelBand,
  METHODS,
  type Method,
  MIN_INTERVAL_N,
  type PointBasis,
  pairsOf,
  quantilesOfAll,
  relativeBin,
  SLOT_MS,
  type StoredHistogram,
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
  /**
   * Relative-error bins (see `relativeBin`) of records kept before level bands; new scores go to
   * `bands`. Empty for the published series.
   */
  hist: StoredHistogram;
  /** Relative-error bins per level band of the forecast (see `levelBand`); absent for the published series. */
  bands?: StoredHistogram[];
  /** Scored forecasts per level band of the forecast (see `LEVEL_BAND_NAMES`). */
  lvn?: number[];
  /** Of those, the actuals inside the interval. */
  lvc?: number[];
  /**
   * The model's learning sums (hundredths of a square minute): the pairs of anomalies x and
   * y = actual - base, `[x0x0, x0x1, x0x2, x1x1, x1x2, x2x2, x0y, x1y, x2y, pairs]`.
   */
  reg?: number[];
  /**
   * The model's profile centres scored at the target (tenths): `[|actual - mean|, |actual - median|,
   * n, |actual - recent mean|, |actual - recent median|, n of the recent ones]` (records kept before
   * the recency-weighted centres hold the first three).
   */
  ctr?: number[];
  /** The model without and with its median correction: `[|actual - raw|, |actual - corrected|, n]` (tenths). */
  cor?: number[];
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

/**
 * A new tally, with every field (those it lacks undefined) in one order ({@link copyTally} fills
 * one in place): a slot reads millions of tally fields, and objects of one shape keep those reads
 * monomorphic (fields added as scores arrive gave each tally its own hidden class). Undefined
 * fields are not stored.
 */
const emptyTally = (): Tally => ({
  abs: 0,
  err: 0,
  cov: 0,
  n: 0,
  hist: [],
  bands: undefined,
  lvn: undefined,
  lvc: undefined,
  reg: undefined,
  ctr: undefined,
  cor: undefined,
});

/** `record[key]`, created by `make` when missing. */
function child<T>(record: Record<string, T>, key: string, make: () => T): T {
  let value = record[key];
  if (value === undefined) {
    value = make();
    record[key] = value;
  }
  return value;
}

/** `into + sign * from` as a new histogram (neither is changed; bins whose count comes to 0 are dropped). */
function sumHistograms(into: StoredHistogram, from: StoredHistogram, sign: number): ErrorHistogram {
  // A merge of two bin-sorted lists.
  const a = pairsOf(into);
  const b = pairsOf(from);
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const binA = i < a.length ? (a[i] as number) : Number.POSITIVE_INFINITY;
    const binB = j < b.length ? (b[j] as number) : Number.POSITIVE_INFINITY;
    let count = 0;
    const bin = binA <= binB ? binA : binB;
    if (binA === bin) {
      count += a[i + 1] as number;
      i += 2;
    }
    if (binB === bin) {
      count += sign * (b[j + 1] as number);
      j += 2;
    }
    if (count !== 0) out.push(bin, count);
  }
  return out;
}

/** Adds one to `bin` of a histogram, in place (a stored histogram of a record kept before is first made pairs). */
function countBin(histograms: StoredHistogram[], index: number, bin: number): void {
  const stored = histograms[index];
  const pairs = Array.isArray(stored) ? stored : [...pairsOf(stored)];
  histograms[index] = pairs;
  // Binary search for the bin among the pairs' even places.
  let lo = 0;
  let hi = pairs.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((pairs[2 * mid] as number) < bin) lo = mid + 1;
    else hi = mid;
  }
  if (pairs[2 * lo] === bin) pairs[2 * lo + 1] = (pairs[2 * lo + 1] as number) + 1;
  else pairs.splice(2 * lo, 0, bin, 1);
}

/** `into[i] += sign * from[i]` over a stored sum array (created when missing). */
function addSums(
  into: Tally,
  field: 'lvn' | 'lvc' | 'reg' | 'ctr' | 'cor',
  from: readonly number[] | undefined,
  sign: number,
) {
  if (!from) return;
  const sums = into[field] ?? [];
  for (let i = 0; i < from.length; i++) sums[i] = (sums[i] ?? 0) + sign * (from[i] ?? 0);
  into[field] = sums;
}

function addTally(into: Tally, from: Tally, sign: number, histograms = true, levels = true): void {
  into.abs += sign * from.abs;
  into.err += sign * from.err;
  into.cov += sign * from.cov;
  into.n += sign * from.n;
  if (levels) {
    addSums(into, 'lvn', from.lvn, sign);
    addSums(into, 'lvc', from.lvc, sign);
  }
  addSums(into, 'reg', from.reg, sign);
  addSums(into, 'ctr', from.ctr, sign);
  addSums(into, 'cor', from.cor, sign);
  if (!histograms) return;
  into.hist = sumHistograms(into.hist, from.hist, sign);
  if (from.bands) {
    const bands = into.bands ?? [];
    for (let band = 0; band < from.bands.length; band++) {
      bands[band] = sumHistograms(bands[band] ?? [], from.bands[band] ?? [], sign);
    }
    into.bands = bands;
  }
}

/** `from`'s sums as a new array: what {@link addSums} makes of it in a new tally. */
function copySums(from: readonly number[]): number[] {
  const out = new Array<number>(from.length);
  for (let i = 0; i < from.length; i++) out[i] = 0 + (from[i] ?? 0);
  return out;
}

/** A histogram's non-zero bins as new pairs, as {@link sumHistograms} adds them into an empty one. */
function copyHistogram(from: StoredHistogram): ErrorHistogram {
  const pairs = pairsOf(from);
  const out: number[] = [];
  for (let p = 0; p < pairs.length; p += 2) {
    const count = 0 + (pairs[p + 1] as number);
    if (count !== 0) out.push(pairs[p] as number, count);
  }
  return out;
}

/**
 * `from` added into a new tally (the same fields, in the same order, as {@link addTally} into
 * {@link emptyTally} with sign 1), without the sums of a merge: a merge starts by copying the
 * 26-day window, so this is most of its work.
 */
function copyTally(from: Tally, histograms = true, levels = true): Tally {
  // Filled in place, so the copy keeps emptyTally's layout.
  const out = emptyTally();
  out.abs = 0 + from.abs;
  out.err = 0 + from.err;
  out.cov = 0 + from.cov;
  out.n = 0 + from.n;
  if (from.lvn && levels) out.lvn = copySums(from.lvn);
  if (from.lvc && levels) out.lvc = copySums(from.lvc);
  if (from.reg) out.reg = copySums(from.reg);
  if (from.ctr) out.ctr = copySums(from.ctr);
  if (from.cor) out.cor = copySums(from.cor);
  if (!histograms) return out;
  out.hist = copyHistogram(from.hist);
  if (from.bands) {
    const bands: ErrorHistogram[] = new Array(from.bands.length);
    for (let band = 0; band < from.bands.length; band++) bands[band] = copyHistogram(from.bands[band] ?? []);
    out.bands = bands;
  }
  return out;
}

/**
 * Adds `from` into `into` (or takes it out, with `sign` -1). With `histograms` false, what
 * {@link slotRecord} adds for a slot: no error histograms, and coverage by level (`lvn`, `lvc`)
 * for the published series only.
 */
export function addRecord(into: PortRecord, from: PortRecord, sign = 1, histograms = true): void {
  // Hot path (every slot adds today's record to the window): keyed loops, no entry arrays; a
  // tally new to `into` is copied rather than summed into an empty one.
  for (const lane in from) {
    const horizons = from[lane] as Record<string, Partial<Record<Series, Tally>>>;
    let intoHorizons = into[lane];
    if (intoHorizons === undefined) {
      intoHorizons = {};
      into[lane] = intoHorizons;
    }
    for (const h in horizons) {
      const series = horizons[h] as Partial<Record<Series, Tally>>;
      let intoSeries = intoHorizons[h];
      if (intoSeries === undefined) {
        intoSeries = {};
        intoHorizons[h] = intoSeries;
      }
      for (const name in series) {
        const tally = series[name as Series] as Tally;
        const existing = intoSeries[name as Series];
        const levels = histograms || name === 'champion';
        if (existing === undefined && sign === 1)
          intoSeries[name as Series] = copyTally(tally, histograms, levels);
        else {
          const target = existing ?? child(intoSeries as Record<string, Tally>, name, emptyTally);
          addTally(target, tally, sign, histograms, levels);
        }
      }
    }
  }
}

/** The sum of records (a new object; none of them is changed). */
export function mergeRecords(records: readonly PortRecord[]): PortRecord {
  const out: PortRecord = {};
  for (const record of records) addRecord(out, record, 1);
  return out;
}

/**
 * A slot's record from its parts (the settled window, then the live days' records), for a slot
 * that owns them (read from the store for it): the later parts' sums are added into the first
 * part's own tallies, in place, and the first part is the result. It then holds what a slot
 * reads: every series' error sums and counts (the champion, the published figures), the model's
 * learning sums (the weights and centre), and the published series' coverage by level (the
 * documents); the other series' coverage by level stays the first part's, unread. Error
 * histograms are not added: each part keeps its own, and a slot's intervals come from
 * {@link quantilerOf} over the parts, which sums only the histograms it is asked for (a slot reads
 * about one band in five). Only a tally the first part lacks is copied in, so a slot builds almost
 * no record of its own.
 */
export function slotRecord(parts: readonly PortRecord[]): PortRecord {
  const [first = {}, ...rest] = parts;
  for (const part of rest) addRecord(first, part, 1, false);
  return first;
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

/**
 * The earliest target the slot of `slotMs` may score ({@link SCORE_BACKLOG_MS}): no later slot
 * scores an older one, so the records of the UTC dates before this one's are settled for good.
 */
export const earliestTarget = (slotMs: number): number => Math.max(slotMs - SCORE_BACKLOG_MS, 0) + SLOT_MS;

/** Target times to score in the cycle of slot `slotMs`: on the grid, due, not yet folded in. */
export function dueTargets(slotMs: number, throughByDate: ReadonlyMap<string, string | null>): number[] {
  const out: number[] = [];
  const last = slotMs - SCORE_DELAY_MS;
  for (let t = earliestTarget(slotMs); t <= last; t += SLOT_MS) {
    const through = throughByDate.get(utcDate(t));
    if (through && Date.parse(through) >= t) continue;
    out.push(t);
  }
  return out;
}

const tenths = (value: number) => Math.round(value * 10);

function score(
  bySeries: Partial<Record<Series, Tally>>,
  series: Series,
  triple: Triple,
  actual: number,
  basis?: PointBasis,
): void {
  const tally = child(bySeries as Record<string, Tally>, series, emptyTally);
  const [forecast, low, high] = triple;
  const error = tenths(forecast) - tenths(actual);
  const covered = actual >= low && actual <= high ? 1 : 0;
  tally.abs += Math.abs(error);
  tally.err += error;
  tally.cov += covered;
  tally.n += 1;
  const lvn = tally.lvn ?? [0, 0, 0, 0];
  const lvc = tally.lvc ?? [0, 0, 0, 0];
  const level = levelBand(forecast);
  lvn[level] = (lvn[level] ?? 0) + 1;
  lvc[level] = (lvc[level] ?? 0) + covered;
  tally.lvn = lvn;
  tally.lvc = lvc;
  // The published series repeats one of the others: its errors shape no interval.
  if (series === 'champion') return;
  // The model's intervals and median correction come from the errors of its value before the correction.
  const raw = series === 'model' && basis ? basis.raw : forecast;
  const bands = tally.bands ?? [[], [], [], []];
  countBin(bands, levelBand(raw), relativeBin(actual, raw));
  tally.bands = bands;
  if (series !== 'model' || !basis) return;
  if (basis.x) {
    const x0 = tenths(basis.x[0]);
    const x1 = tenths(basis.x[1]);
    const x2 = tenths(basis.x[2]);
    const y = tenths(actual) - tenths(basis.base);
    const reg = tally.reg ?? new Array<number>(10).fill(0);
    reg[0] = (reg[0] ?? 0) + x0 * x0;
    reg[1] = (reg[1] ?? 0) + x0 * x1;
    reg[2] = (reg[2] ?? 0) + x0 * x2;
    reg[3] = (reg[3] ?? 0) + x1 * x1;
    reg[4] = (reg[4] ?? 0) + x1 * x2;
    reg[5] = (reg[5] ?? 0) + x2 * x2;
    reg[6] = (reg[6] ?? 0) + x0 * y;
    reg[7] = (reg[7] ?? 0) + x1 * y;
    reg[8] = (reg[8] ?? 0) + x2 * y;
    reg[9] = (reg[9] ?? 0) + 1;
    tally.reg = reg;
  }
  if (basis.corrected !== undefined) {
    const cor = tally.cor ?? [0, 0, 0];
    cor[0] = (cor[0] ?? 0) + Math.abs(tenths(actual) - tenths(basis.raw));
    cor[1] = (cor[1] ?? 0) + Math.abs(tenths(actual) - tenths(basis.corrected));
    cor[2] = (cor[2] ?? 0) + 1;
    tally.cor = cor;
  }
  if (basis.centres) {
    const ctr = tally.ctr ?? [0, 0, 0];
    const centres = basis.centres;
    ctr[0] = (ctr[0] ?? 0) + Math.abs(tenths(actual) - tenths(centres[0]));
    ctr[1] = (ctr[1] ?? 0) + Math.abs(tenths(actual) - tenths(centres[1]));
    ctr[2] = (ctr[2] ?? 0) + 1;
    if (centres.length === 4) {
      ctr[3] = (ctr[3] ?? 0) + Math.abs(tenths(actual) - tenths(centres[2]));
      ctr[4] = (ctr[4] ?? 0) + Math.abs(tenths(actual) - tenths(centres[3]));
      ctr[5] = (ctr[5] ?? 0) + 1;
    }
    tally.ctr = ctr;
  }
}

const HORIZON_INDEX = new Map<number, number>(HORIZONS_MINUTES.map((h, i) => [h, i]));

/** The point of horizon `h` (points are issued in {@link HORIZONS_MINUTES} order; stored ones may not be). */
export function pointAt(points: readonly IssuedPoint[], h: number): IssuedPoint | undefined {
  const at = points[HORIZON_INDEX.get(h) ?? -1];
  return at?.horizonMinutes === h ? at : points.find((p) => p.horizonMinutes === h);
}

const issuedMs = new WeakMap<IssuedPort, { at: string; ms: number }>();

/** `Date.parse(issue.issuedAt)`, parsed once per issue (a slot looks up every pending issue). */
export function issuedMsOf(issue: IssuedPort): number {
  const known = issuedMs.get(issue);
  if (known && known.at === issue.issuedAt) return known.ms;
  const ms = Date.parse(issue.issuedAt);
  issuedMs.set(issue, { at: issue.issuedAt, ms });
  return ms;
}

/** Pending issues by their time (ms). */
export function issuesByTime(pending: readonly IssuedPort[]): Map<number, IssuedPort> {
  const out = new Map<number, IssuedPort>();
  for (const issue of pending) out.set(issuedMsOf(issue), issue);
  return out;
}

const laneKeys = new WeakMap<IssuedLane, string>();

/** An issued lane's key, made once per lane of a stored issue (a slot scores each at every horizon). */
function keyOfLane(lane: IssuedLane): string {
  let key = laneKeys.get(lane);
  if (key === undefined) {
    key = `${lane.direction}#${lane.mode}#${lane.lane}`;
    laneKeys.set(lane, key);
  }
  return key;
}

/**
 * Scores the given targets: every pending forecast aimed at them that has a model point (so the
 * model, both baselines and the published champion are compared on the same targets) against the
 * reading in force. Returns the contributions by UTC date of the target. `pending` may be given
 * by issue time ({@link issuesByTime}); with `into`, the scores are added straight into the
 * records it names for a target date (a slot's day records, a replay's day and rolling records),
 * which the result then holds (the first of them per date). With `counts`, the number of
 * forecasts scored is added to it per target date.
 */
export function scoreTargets(
  targets: readonly number[],
  pending: readonly IssuedPort[] | ReadonlyMap<number, IssuedPort>,
  readings: ReadonlyMap<string, readonly LaneReading[]>,
  into?: (date: string) => readonly PortRecord[],
  counts?: Map<string, number>,
): Map<string, PortRecord> {
  const byIssue = Array.isArray(pending)
    ? issuesByTime(pending as readonly IssuedPort[])
    : (pending as ReadonlyMap<number, IssuedPort>);
  const out = new Map<string, PortRecord>();
  for (const target of targets) {
    const date = utcDate(target);
    let sinks: readonly PortRecord[] | null = null;
    // The reading in force at the target, per lane (every horizon aims at the same one).
    const actuals = new Map<string, number | null>();
    for (const h of HORIZONS_MINUTES) {
      const issue = byIssue.get(target - h * 60_000);
      if (!issue) continue;
      for (const lane of issue.lanes) {
        const point = pointAt(lane.points, h);
        if (!point?.model || !point.persistence || !point.profile) continue;
        const key = keyOfLane(lane);
        let actual = actuals.get(key);
        if (actual === undefined) {
          actual = actualAt(readings.get(key) ?? [], target);
          actuals.set(key, actual);
        }
        if (actual === null) continue;
        if (!sinks) {
          sinks = into ? into(date) : [out.get(date) ?? {}];
          if (sinks[0]) out.set(date, sinks[0]);
        }
        const champion = point.champion ? point[point.champion] : null;
        if (counts) counts.set(date, (counts.get(date) ?? 0) + 1);
        for (const record of sinks) {
          const horizons = child(record, key, () => ({}));
          const bySeries = child(horizons, String(h), () => ({}) as Partial<Record<Series, Tally>>);
          for (const method of METHODS) {
            score(
              bySeries,
              method,
              point[method] as Triple,
              actual,
              method === 'model' ? point.basis : undefined,
            );
          }
          if (champion) score(bySeries, 'champion', champion, actual);
        }
      }
    }
  }
  return out;
}

/** Interval coverage of the forecasts of one level band. */
/** A type (not an interface) so it fits the published schema's open objects. */
export type LevelCoverage = {
  /** The forecast's level: `0-5`, `5-15`, `15-45` or `45+` minutes. */
  level: (typeof LEVEL_BAND_NAMES)[number];
  /** Share of actuals inside the 80% interval (0-1, 0.001); null when n is 0. */
  coverage: number | null;
  n: number;
};

export interface SkillFigures {
  /** Mean absolute error, minutes (0.1); null when n is 0. */
  mae: number | null;
  /** Mean of forecast - actual, minutes (0.1): positive means forecasts ran high. */
  bias: number | null;
  /** Share of actuals inside the 80% interval (0-1, 0.001). */
  coverage: number | null;
  n: number;
  /**
   * Coverage per level band of the forecast (empty for records kept before bands); given for the
   * published series only, which is what a traveller sees.
   */
  coverageByLevel?: LevelCoverage[];
}

const share = (part: number, whole: number) => Math.round((part / whole) * 1000) / 1000;

/** The figures of a tally; with `levels`, its coverage per level band too. */
export function figuresOf(tally: Tally | undefined, levels = false): SkillFigures {
  if (!tally || tally.n === 0) {
    return { mae: null, bias: null, coverage: null, n: 0, ...(levels ? { coverageByLevel: [] } : {}) };
  }
  const mae = Math.round(tally.abs / tally.n) / 10;
  const bias = Math.round(tally.err / tally.n) / 10;
  const coverage = share(tally.cov, tally.n);
  if (!levels) return { mae, bias, coverage, n: tally.n };
  const lvn = tally.lvn;
  return {
    mae,
    bias,
    coverage,
    n: tally.n,
    coverageByLevel: lvn
      ? LEVEL_BAND_NAMES.map((level, i) => {
          const n = lvn[i] ?? 0;
          return { level, coverage: n === 0 ? null : share(tally.lvc?.[i] ?? 0, n), n };
        })
      : [],
  };
}

/**
 * A more complex method replaces a simpler one as champion only when its MAE is lower by this
 * share: between methods within it, the simpler one is published (a lane's champion does not
 * flip on noise, and a model no better than its profile is not served in its place).
 */
export const CHAMPION_MARGIN = 0.05;

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
    // A method more complex than the best so far must beat it clearly, not by noise.
    if (mae < bestMae * (1 - CHAMPION_MARGIN)) {
      best = method;
      bestMae = mae;
    }
  }
  return best;
}

/** Why a lane and horizon publishes the method it does. */
export function championReason(
  record: PortRecord,
  lane: string,
  h: number,
  champion: Method | null,
): ReasonPart {
  const n = record[lane]?.[String(h)]?.model?.n ?? 0;
  if (champion === null)
    return { code: 'not-enough-history', text: 'no model forecast for this point (not enough history)' };
  if (n === 0) {
    return {
      code: 'no-champion-yet',
      text: `no track record yet at +${h} min: the model is published until forecasts are scored`,
    };
  }
  if (n < MIN_N) {
    return {
      code: 'no-champion-yet',
      text: `no champion yet: the track record has ${n} scored forecasts at +${h} min, below the minimum of ${MIN_N}, so the model is published`,
    };
  }
  return {
    code: 'champion-lowest-error',
    text: `lowest mean absolute error over the last ${RECORD_DAYS} days (n=${n})`,
  };
}

/**
 * Relative-error quantiles `[q10, q50, q90]` for a method at a lane, horizon and level band (see
 * `levelBand`): the lane's own errors in that band once they number {@link MIN_INTERVAL_N}, else
 * the port's lanes pooled in that band, else the lane's errors of every band, else the port's,
 * else the default. Without `band`, every band pooled. For many calls on one record, use
 * {@link quantilerOf} (it caches the pooled histograms).
 */
export function quantilesFrom(
  record: PortRecord,
  lane: string,
  h: number,
  method: Method,
  band?: number,
): readonly [number, number, number] {
  return quantilerOf(record)(lane, h, method, band);
}

/**
 * {@link quantilesFrom} over one record, or over the sum of several (a slot's window and live
 * days: their histograms are summed only where a quantile is asked for, so the slot's merge can
 * leave them out), with the port's pooled histograms computed once.
 */
export function quantilerOf(
  records: PortRecord | readonly PortRecord[],
): (lane: string, h: number, method: Method, band?: number) => readonly [number, number, number] {
  const parts = (Array.isArray(records) ? records : [records]) as readonly PortRecord[];
  // The port's lanes pooled, per horizon, method and band (null: every band), computed once.
  const pooledCache = new Map<number, Quantiles>();
  const pooledBuffer: StoredHistogram[] = [];
  // Every part's tallies of every lane for a horizon and method, gathered once for its five pools.
  const talliesCache = new Map<number, Tally[]>();
  const talliesOf = (h: number, method: Method): Tally[] => {
    const key = h * 8 + METHODS.indexOf(method);
    let tallies = talliesCache.get(key);
    if (tallies === undefined) {
      tallies = [];
      const hKey = String(h);
      for (const record of parts) {
        for (const lane in record) {
          const tally = record[lane]?.[hKey]?.[method];
          if (tally) tallies.push(tally);
        }
      }
      talliesCache.set(key, tallies);
    }
    return tallies;
  };
  const pooled = (h: number, method: Method, band: number | null): Quantiles => {
    const key = (h * 8 + METHODS.indexOf(method)) * 8 + (band ?? 7);
    const known = pooledCache.get(key);
    if (known !== undefined) return known;
    let count = 0;
    for (const tally of talliesOf(h, method)) {
      if (band !== null) {
        const histogram = tally.bands?.[band];
        if (histogram) pooledBuffer[count++] = histogram;
        continue;
      }
      pooledBuffer[count++] = tally.hist;
      if (tally.bands) for (const histogram of tally.bands) pooledBuffer[count++] = histogram;
    }
    const out = quantilesOfAll(pooledBuffer, MIN_INTERVAL_N, count);
    pooledCache.set(key, out);
    return out;
  };
  // The parts' series of the lane and horizon last asked for (the forecaster asks for its three
  // methods in a row).
  let lastLane: string | null = null;
  let lastH = -1;
  const series: (Partial<Record<Series, Tally>> | undefined)[] = new Array(parts.length);
  // Buffers reused by every call (the first `count` entries count), so a call allocates nothing.
  const histograms: StoredHistogram[] = [];
  return (lane, h, method, band) => {
    if (lane !== lastLane || h !== lastH) {
      const hKey = String(h);
      for (let i = 0; i < parts.length; i++) series[i] = (parts[i] as PortRecord)[lane]?.[hKey];
      lastLane = lane;
      lastH = h;
    }
    let count = 0;
    if (band !== undefined) {
      for (let i = 0; i < parts.length; i++) {
        const histogram = series[i]?.[method]?.bands?.[band];
        if (histogram) histograms[count++] = histogram;
      }
      const mine = quantilesOfAll(histograms, MIN_INTERVAL_N, count);
      if (mine) return mine;
      // A band beyond the four kept has no pooled histograms either.
      const port = band < 4 ? pooled(h, method, band) : null;
      if (port) return port;
    }
    count = 0;
    for (let i = 0; i < parts.length; i++) {
      const tally = series[i]?.[method];
      if (!tally) continue;
      histograms[count++] = tally.hist;
      if (tally.bands) for (const histogram of tally.bands) histograms[count++] = histogram;
    }
    return (
      quantilesOfAll(histograms, MIN_INTERVAL_N, count) ??
      pooled(h, method, null) ??
      DEFAULT_RELATIVE_QUANTILES
    );
  };
}

type Quantiles = [number, number, number] | null;

/**
 * A lane's pairs count as this many pairs of the prior (the port's lanes pooled; for the port,
 * the default fading anomaly): the shrinkage of a lane with few pairs.
 */
export const PRIOR_PAIRS = 50;

/** Solves `(A + L) w = b + L w0` for the stored sums, `L` = {@link PRIOR_PAIRS} pairs' worth per weight. */
function fitWeights(reg: readonly number[] | undefined, prior: readonly number[]): [number, number, number] {
  const pairs = reg?.[9] ?? 0;
  if (!reg || pairs <= 0) return [prior[0] ?? 0, prior[1] ?? 0, prior[2] ?? 0];
  const a00 = reg[0] ?? 0;
  const a11 = reg[3] ?? 0;
  const a22 = reg[5] ?? 0;
  // Each weight's ridge is its regressor's mean square (floored at 1 square minute) times PRIOR_PAIRS.
  const l0 = PRIOR_PAIRS * Math.max(a00 / pairs, 100);
  const l1 = PRIOR_PAIRS * Math.max(a11 / pairs, 100);
  const l2 = PRIOR_PAIRS * Math.max(a22 / pairs, 100);
  // The augmented 3 x 4 matrix, row by row, in a buffer reused by every fit (a slot fits thousands).
  const m = FIT;
  m[0] = a00 + l0;
  m[1] = reg[1] ?? 0;
  m[2] = reg[2] ?? 0;
  m[3] = (reg[6] ?? 0) + l0 * (prior[0] ?? 0);
  m[4] = reg[1] ?? 0;
  m[5] = a11 + l1;
  m[6] = reg[4] ?? 0;
  m[7] = (reg[7] ?? 0) + l1 * (prior[1] ?? 0);
  m[8] = reg[2] ?? 0;
  m[9] = reg[4] ?? 0;
  m[10] = a22 + l2;
  m[11] = (reg[8] ?? 0) + l2 * (prior[2] ?? 0);
  // Gauss-Jordan elimination: the matrix is symmetric positive definite (the ridge sees to it).
  for (let c = 0; c < 3; c++) {
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = (m[4 * r + c] as number) / (m[4 * c + c] as number);
      for (let k = c; k < 4; k++) m[4 * r + k] = (m[4 * r + k] as number) - f * (m[4 * c + k] as number);
    }
  }
  return [
    (m[3] as number) / (m[0] as number),
    (m[7] as number) / (m[5] as number),
    (m[11] as number) / (m[10] as number),
  ];
}

const FIT = new Float64Array(12);

/**
 * The profile centre with the lowest mean absolute error on a tally's `ctr` sums, among those
 * scored on at least {@link MIN_N} targets (null when none is): all-history mean or median, or
 * their recency-weighted counterparts. A tie keeps the simpler one (the median first).
 */
export function centreOf(ctr: readonly number[] | undefined): Centre | null {
  const n = ctr?.[2] ?? 0;
  if (!ctr || n < MIN_N) return null;
  let best: Centre = 'median';
  let bestError = (ctr[1] ?? 0) / n;
  const consider = (centre: Centre, error: number) => {
    if (error < bestError) {
      best = centre;
      bestError = error;
    }
  };
  consider('mean', (ctr[0] ?? 0) / n);
  const recentN = ctr[5] ?? 0;
  if (recentN >= MIN_N) {
    consider('recent-median', (ctr[4] ?? 0) / recentN);
    consider('recent-mean', (ctr[3] ?? 0) / recentN);
  }
  return best;
}

/**
 * What each lane learned from a port's record, per horizon ({@link LearnedHorizon}): its anomaly
 * weights, fitted by least squares on its own pairs and shrunk toward the port's lanes pooled
 * (themselves shrunk toward the default fading anomaly), and the profile centre (mean or median,
 * over all history or recency-weighted: {@link centreOf}) that scored best on its record once it holds {@link MIN_N} targets (else the port's choice,
 * else the median). Cached per lane and horizon: one learner serves a slot.
 */
export function learnerOf(record: PortRecord): (lane: string, h: number) => LearnedHorizon {
  const pooledWeights = new Map<number, [number, number, number]>();
  // Per lane, by horizon.
  const cache = new Map<string, Map<number, LearnedHorizon>>();
  let portCentre: Centre | null = null;
  const portCentreOf = (h: number): Centre => {
    if (portCentre) return portCentre;
    const sums = [0, 0, 0, 0, 0, 0];
    for (const horizons of Object.values(record)) {
      const ctr = horizons[String(h)]?.model?.ctr;
      for (let i = 0; i < 6; i++) sums[i] = (sums[i] ?? 0) + (ctr?.[i] ?? 0);
    }
    portCentre = centreOf(sums) ?? 'median';
    return portCentre;
  };
  return (lane, h) => {
    let byHorizon = cache.get(lane);
    if (!byHorizon) {
      byHorizon = new Map();
      cache.set(lane, byHorizon);
    }
    const hit = byHorizon.get(h);
    if (hit) return hit;
    let pooled = pooledWeights.get(h);
    if (!pooled) {
      const sums: number[] = new Array<number>(10).fill(0);
      for (const horizons of Object.values(record)) {
        const reg = horizons[String(h)]?.model?.reg;
        if (reg) for (let i = 0; i < 10; i++) sums[i] = (sums[i] ?? 0) + (reg[i] ?? 0);
      }
      pooled = fitWeights(sums, defaultWeights(h));
      pooledWeights.set(h, pooled);
    }
    const own = record[lane]?.[String(h)]?.model;
    const cor = own?.cor;
    const learned: LearnedHorizon = {
      weights: fitWeights(own?.reg, pooled),
      centre: centreOf(record[lane]?.['60']?.model?.ctr) ?? portCentreOf(60),
      // The median correction earns its place on the lane's record (it is left out before).
      corrected: !!cor && (cor[2] ?? 0) >= MIN_N && (cor[1] ?? 0) < (cor[0] ?? 0),
    };
    byHorizon.set(h, learned);
    return learned;
  };
}
