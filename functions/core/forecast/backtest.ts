/**
 * Backtest: replays an observations export (the CSV `export_observations` writes) in time order,
 * issuing forecasts every 15-minute slot exactly as the service does (same forecaster, same
 * champion rule on the same rolling record, same scoring), and sums up how they did.
 * Pure: the CLI (`npm run backtest`) and the tests call it.
 */
import { parse } from 'csv-parse/sync';
import { getPort } from '../catalogue/catalogue.ts';
import { parseCascadeGatewayCsv } from '../history/cascade-gateway.ts';
import {
  type DecayedTotal,
  foldDecayed,
  type Histogram,
  medianOf,
  recentCentresOf,
  settledBefore,
} from '../history/rollups.ts';
import { type Border, DIRECTIONS, LANES, MODES, OBSERVATION_CSV_COLUMNS } from '../model.ts';
import {
  emptyLaneProfile,
  HISTORY_MS,
  HORIZONS_MINUTES,
  type IssuedPort,
  issuePort,
  type LaneId,
  type LaneProfile,
  type LaneReading,
  laneKeyOf,
  localSlotOf,
  MAX_HORIZON_MINUTES,
  type Method,
  PROFILE_MIN_SAMPLES,
  SLOT_MS,
} from './forecast.ts';
import {
  actualAt,
  addRecord,
  championOf,
  figuresOf,
  issuedMsOf,
  learnerOf,
  mergeRecords,
  type PortRecord,
  pointAt,
  quantilerOf,
  RECORD_DAYS,
  SCORE_DELAY_MS,
  type Series,
  type SkillFigures,
  scoreTargets,
  type Tally,
  utcDate,
} from './skill.ts';

/** A malformed input, with the line it is on (1 = the header). */
export class BacktestInputError extends Error {
  override readonly name = 'BacktestInputError';
}

export interface BacktestRow extends LaneId {
  portId: string;
  delayMinutes: number | null;
  atMs: number;
}

/** Splits CSV text into records with csv-parse (RFC 4180: quoted fields may hold commas, quotes and newlines). */
function csvRecords(text: string): { line: number; fields: string[] }[] {
  try {
    const records = parse(text, {
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return records.map(({ record, info }) => ({ line: info.lines, fields: record }));
  } catch (error: unknown) {
    const line = (error as { lines?: number }).lines ?? 1;
    const code = (error as { code?: string }).code;
    if (code === 'CSV_QUOTE_NOT_CLOSED') {
      throw new BacktestInputError(`line ${line}: a quoted field is never closed; close it with "`);
    }
    throw new BacktestInputError(
      `line ${line}: not readable as CSV (${error instanceof Error ? error.message : String(error)}); fix the row`,
    );
  }
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an observations CSV (header row, any column order, extra columns ignored, rows in any order). */
export function parseObservationsCsv(text: string): BacktestRow[] {
  const records = csvRecords(text.replace(/^\uFEFF/, ''));
  const first = { value: records[0] as { line: number; fields: string[] } };
  if (records.length === 0) {
    throw new BacktestInputError(
      `line 1: the file is empty; export observations first (the export_observations tool, format csv)`,
    );
  }
  const header = first.value.fields.map((name) => name.trim());
  const index = new Map(header.map((name, i) => [name, i]));
  const required = ['portId', 'direction', 'mode', 'lane', 'delayMinutes', 'observedAt'] as const;
  const missing = required.filter((name) => !index.has(name));
  if (missing.length > 0) {
    throw new BacktestInputError(
      `line 1: the header lacks ${missing.join(', ')}; the first row must name the columns export_observations writes (${OBSERVATION_CSV_COLUMNS.join(',')})`,
    );
  }
  const rows: BacktestRow[] = [];
  for (const { line, fields } of records.slice(1)) {
    const get = (name: (typeof required)[number]) => (fields[index.get(name) as number] ?? '').trim();
    if (fields.length < header.length) {
      throw new BacktestInputError(
        `line ${line}: ${fields.length} fields where the header has ${header.length}; every row needs a value (possibly empty) for each column`,
      );
    }
    const portId = get('portId');
    if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/.test(portId)) {
      throw new BacktestInputError(
        `line ${line}: portId "${portId}" is not a port id; use ids such as 250401`,
      );
    }
    const direction = get('direction');
    const mode = get('mode');
    const lane = get('lane');
    const oneOf = (name: string, value: string, allowed: readonly string[]) => {
      if (!allowed.includes(value)) {
        throw new BacktestInputError(
          `line ${line}: ${name} "${value}" is not one of ${allowed.join(', ')}; fix the value or drop the row`,
        );
      }
    };
    oneOf('direction', direction, DIRECTIONS);
    oneOf('mode', mode, MODES);
    oneOf('lane', lane, LANES);
    const observedAt = get('observedAt');
    const atMs = Date.parse(observedAt);
    if (!ISO.test(observedAt) || Number.isNaN(atMs)) {
      throw new BacktestInputError(
        `line ${line}: observedAt "${observedAt}" is not an ISO 8601 UTC time; write it as 2026-03-08T14:05:00Z`,
      );
    }
    const delay = get('delayMinutes');
    const delayMinutes = delay === '' ? null : Number(delay);
    if (delayMinutes !== null && !(Number.isFinite(delayMinutes) && delayMinutes >= 0)) {
      throw new BacktestInputError(
        `line ${line}: delayMinutes "${delay}" is not a number of minutes >= 0; leave it empty when the lane gave none`,
      );
    }
    rows.push({
      portId,
      direction: direction as LaneId['direction'],
      mode: mode as LaneId['mode'],
      lane: lane as LaneId['lane'],
      delayMinutes,
      atMs,
    });
  }
  if (rows.length === 0) {
    throw new BacktestInputError('line 2: the file has a header but no rows; export a longer window');
  }
  return rows;
}

/**
 * The rows of a Cascade Gateway Border Data Warehouse export (see history/cascade-gateway.ts) as
 * one lane of a catalogue port: each hour's average is a reading at the end of its hour, read in
 * the port's time zone. Empty hours give no row (a missing measurement, not a closed lane).
 */
export function rowsFromCascadeGateway(text: string, lane: LaneId & { portId: string }): BacktestRow[] {
  const port = getPort(lane.portId);
  if (!port) {
    throw new BacktestInputError(
      `--port ${lane.portId} is not a catalogue port; name the port the series measures (e.g. 300402 for Peace Arch)`,
    );
  }
  const series = parseCascadeGatewayCsv(text, port.timeZone);
  if (series.readings.length === 0) {
    throw new BacktestInputError('the export has no hour with a value; export a longer period');
  }
  return series.readings.map((reading) => ({
    portId: port.id,
    direction: lane.direction,
    mode: lane.mode,
    lane: lane.lane,
    delayMinutes: reading.delayMinutes,
    atMs: reading.atMs,
  }));
}

/** One scored forecast, as `--forecasts` writes it. */
export interface ScoredForecast extends LaneId {
  portId: string;
  issuedAt: string;
  horizonMinutes: number;
  targetAt: string;
  /** The published point (the champion's). */
  delayMinutes: number;
  low: number;
  high: number;
  method: string;
  actualMinutes: number;
}

/** The header of the `--forecasts` CSV. */
export const SCORED_FORECAST_COLUMNS = [
  'portId',
  'direction',
  'mode',
  'lane',
  'issuedAt',
  'horizonMinutes',
  'targetAt',
  'delayMinutes',
  'low',
  'high',
  'method',
  'actualMinutes',
] as const;

/** One `--forecasts` CSV line (no field needs quoting: ids, enums, times and numbers). */
export function scoredForecastLine(f: ScoredForecast): string {
  return SCORED_FORECAST_COLUMNS.map((column) => String(f[column])).join(',');
}

export interface BacktestOptions {
  /** Called with every scored forecast that was published, in target order. */
  onForecast?: (forecast: ScoredForecast) => void;
}

export interface BacktestFigures {
  horizonMinutes: number;
  champion: SkillFigures;
  model: SkillFigures;
  persistence: SkillFigures;
  profile: SkillFigures;
}

export interface BacktestResult {
  from: string;
  to: string;
  ports: number;
  lanes: number;
  slots: number;
  /** Ports not in the catalogue, read with the Eastern zone and the Canadian border's holidays. */
  uncatalogued: string[];
  overall: BacktestFigures[];
  byLane: { portId: string; direction: string; mode: string; lane: string; horizons: BacktestFigures[] }[];
}

interface PortState {
  portId: string;
  timeZone: string;
  border: Border;
  rows: BacktestRow[];
  next: number;
  lanes: Map<string, LaneId>;
  readings: Map<string, LaneReading[]>;
  buckets: Map<string, Map<number, Record<string, number>>>;
  /** Per lane, per hour-of-week: sum and count of the readings (the profile's mean). */
  sums: Map<string, Float64Array>;
  /**
   * Per lane, per hour-of-week: the recency-weighted state as the rollups keep it, the unsettled
   * dates' parts and the decayed total of the settled ones (folded as the service settles).
   */
  recency: Map<string, Map<number, RecencyState>>;
  profile: Map<string, LaneProfile>;
  pending: IssuedPort[];
  /** The same issues by their time (ms). */
  byTime: Map<number, IssuedPort>;
  days: Map<string, PortRecord>;
  rolling: PortRecord;
  total: PortRecord;
  /** The record's intervals and weights, fitted at the start of the hour. */
  fitted?: { hour: number; quantiles: ReturnType<typeof quantilerOf>; learned: ReturnType<typeof learnerOf> };
}

interface RecencyState {
  parts: Map<string, { date: string; s: number; n: number; h: Histogram }>;
  total: DecayedTotal | undefined;
}

/** Replays the rows slot by slot, as the service would have issued and scored forecasts. */
export function runBacktest(rows: readonly BacktestRow[], options: BacktestOptions = {}): BacktestResult {
  const byPort = new Map<string, BacktestRow[]>();
  for (const row of rows) {
    const list = byPort.get(row.portId) ?? [];
    list.push(row);
    byPort.set(row.portId, list);
  }
  const uncatalogued: string[] = [];
  const states: PortState[] = [...byPort.keys()].sort().map((portId) => {
    const port = getPort(portId);
    if (!port) uncatalogued.push(portId);
    const portRows = (byPort.get(portId) ?? []).sort((a, b) => a.atMs - b.atMs);
    return {
      portId,
      timeZone: port?.timeZone ?? 'America/New_York',
      border: port?.border ?? 'ca',
      rows: portRows,
      next: 0,
      lanes: new Map(),
      readings: new Map(),
      buckets: new Map(),
      sums: new Map(),
      recency: new Map(),
      profile: new Map(),
      pending: [],
      byTime: new Map(),
      days: new Map(),
      rolling: {},
      total: {},
    };
  });
  const firstMs = Math.min(...states.map((s) => s.rows[0]?.atMs ?? Number.POSITIVE_INFINITY));
  const lastMs = Math.max(...states.map((s) => s.rows.at(-1)?.atMs ?? 0));
  let slots = 0;
  for (let slot = Math.ceil(firstMs / SLOT_MS) * SLOT_MS; slot <= lastMs; slot += SLOT_MS) {
    slots++;
    for (const state of states) step(state, slot, options);
  }
  for (const state of states) {
    for (const day of state.days.values()) addRecord(state.total, day);
    state.days.clear();
  }
  const overallRecord = mergeRecords(states.map((s) => s.total));
  const figures = (series: Record<string, Partial<Record<Series, Tally>>>): BacktestFigures[] =>
    HORIZONS_MINUTES.map((h) => {
      const s = series[String(h)] ?? {};
      return {
        horizonMinutes: h,
        champion: figuresOf(s.champion, true),
        model: figuresOf(s.model),
        persistence: figuresOf(s.persistence),
        profile: figuresOf(s.profile),
      };
    });
  // Every lane pooled: one record with a single lane.
  const pooled: PortRecord = {};
  for (const horizons of Object.values(overallRecord)) addRecord(pooled, { all: horizons });
  return {
    from: new Date(firstMs).toISOString(),
    to: new Date(lastMs).toISOString(),
    ports: states.length,
    lanes: states.reduce((n, s) => n + s.lanes.size, 0),
    slots,
    uncatalogued,
    overall: figures(pooled.all ?? {}),
    byLane: states.flatMap((state) =>
      Object.entries(state.total)
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([key, horizons]) => {
          const [direction = '', mode = '', lane = ''] = key.split('#');
          return { portId: state.portId, direction, mode, lane, horizons: figures(horizons) };
        }),
    ),
  };
}

function step(state: PortState, slot: number, options: BacktestOptions): void {
  // Readings observed up to the slot's start: the lane's history and the hour-of-week profile.
  while (state.next < state.rows.length && (state.rows[state.next] as BacktestRow).atMs <= slot) {
    const row = state.rows[state.next++] as BacktestRow;
    const key = laneKeyOf(row);
    state.lanes.set(key, { direction: row.direction, mode: row.mode, lane: row.lane });
    const list = state.readings.get(key) ?? [];
    list.push({ atMs: row.atMs, delayMinutes: row.delayMinutes });
    state.readings.set(key, list);
    if (row.delayMinutes === null) continue;
    const local = localSlotOf(row.atMs, state.timeZone);
    const index = local.dayOfWeek * 24 + local.hour;
    const lanesBuckets = state.buckets.get(key) ?? new Map<number, Record<string, number>>();
    state.buckets.set(key, lanesBuckets);
    const histogram = lanesBuckets.get(index) ?? {};
    lanesBuckets.set(index, histogram);
    const value = String(row.delayMinutes);
    histogram[value] = (histogram[value] ?? 0) + 1;
    let profile = state.profile.get(key);
    if (!profile) {
      profile = emptyLaneProfile();
      state.profile.set(key, profile);
    }
    const sums = state.sums.get(key) ?? new Float64Array(168);
    state.sums.set(key, sums);
    sums[index] = (sums[index] ?? 0) + row.delayMinutes;
    const samples = (profile.samples?.[index] ?? 0) + 1;
    if (profile.samples) profile.samples[index] = samples;
    // The recency-weighted bucket, as the rollups keep it: the reading's date part, then the dates
    // past the settle cutoff folded into the decayed total (the service settles on each write).
    const laneRecency = state.recency.get(key) ?? new Map<number, RecencyState>();
    state.recency.set(key, laneRecency);
    const recency = laneRecency.get(index) ?? { parts: new Map(), total: undefined };
    laneRecency.set(index, recency);
    const part = recency.parts.get(local.date) ?? { date: local.date, s: 0, n: 0, h: {} };
    recency.parts.set(local.date, part);
    part.s += row.delayMinutes;
    part.n += 1;
    part.h[value] = (part.h[value] ?? 0) + 1;
    const cutoff = settledBefore(row.atMs);
    const settling = [...recency.parts.values()].filter((p) => p.date < cutoff);
    if (settling.length > 0) {
      recency.total = foldDecayed(recency.total, settling);
      for (const p of settling) recency.parts.delete(p.date);
    }
    if (samples >= PROFILE_MIN_SAMPLES) {
      profile.values[index] = medianOf(histogram) ?? Number.NaN;
      if (profile.means) profile.means[index] = (sums[index] ?? 0) / samples;
      const recent = recentCentresOf(recency.total, [...recency.parts.values()]);
      if (profile.recent) profile.recent[index] = recent?.median ?? Number.NaN;
      if (profile.recentMeans) profile.recentMeans[index] = recent?.mean ?? Number.NaN;
    }
  }
  // Keep only what scoring and forecasting still need.
  for (const list of state.readings.values()) {
    const keepFrom = slot - HISTORY_MS;
    let drop = 0;
    while (drop < list.length - 8 && (list[drop] as LaneReading).atMs < keepFrom) drop++;
    if (drop > 0) list.splice(0, drop);
  }
  // Score the target that came due, into the day's record, the rolling record and the totals.
  const target = slot - SCORE_DELAY_MS;
  // Straight into the day's record and the rolling record (no contribution to add twice).
  scoreTargets([target], state.byTime, state.readings, (date) => {
    let day = state.days.get(date);
    if (!day) {
      day = {};
      state.days.set(date, day);
    }
    return [day, state.rolling];
  });
  if (options.onForecast) emitScored(state, target, options.onForecast);
  const oldest = utcDate(slot - (RECORD_DAYS - 1) * 86_400_000);
  for (const [date, day] of state.days) {
    if (date >= oldest) continue;
    addRecord(state.rolling, day, -1);
    // A date leaves the window whole: the totals take it then (and the rest at the end).
    addRecord(state.total, day);
    state.days.delete(date);
  }
  const oldestPending = slot - MAX_HORIZON_MINUTES * 60_000 - SCORE_DELAY_MS;
  while (state.pending.length > 0 && issuedMsOf(state.pending[0] as IssuedPort) < oldestPending) {
    const gone = state.pending.shift() as IssuedPort;
    state.byTime.delete(issuedMsOf(gone));
  }
  if (state.lanes.size === 0) return;
  // Intervals and weights from the record as it stands at the start of each hour: the service
  // refits them every slot, and a quarter of an hour's scores moves them by nothing visible, at a
  // quarter of the cost over years of replay.
  const hour = Math.floor(slot / 3_600_000);
  if (!state.fitted || state.fitted.hour !== hour) {
    const quantiler = quantilerOf(state.rolling);
    // Per lane and method, by horizon and band (no key strings built per point).
    const memo = new Map<string, Map<Method, Map<number, readonly [number, number, number]>>>();
    state.fitted = {
      hour,
      quantiles: (lane, h, method, band) => {
        let byMethod = memo.get(lane);
        if (!byMethod) {
          byMethod = new Map();
          memo.set(lane, byMethod);
        }
        let byPoint = byMethod.get(method);
        if (!byPoint) {
          byPoint = new Map();
          byMethod.set(method, byPoint);
        }
        const key = band === undefined ? -h : h * 8 + band;
        let found = byPoint.get(key);
        if (!found) {
          found = quantiler(lane, h, method, band);
          byPoint.set(key, found);
        }
        return found;
      },
      learned: learnerOf(state.rolling),
    };
  }
  const fitted = state.fitted;
  const record = state.rolling;
  const issued = issuePort({
    portId: state.portId,
    timeZone: state.timeZone,
    border: state.border,
    issuedAtMs: slot,
    profile: state.profile,
    lanes: [...state.lanes.values()].map((lane) => ({
      lane,
      readings: state.readings.get(laneKeyOf(lane)) ?? [],
    })),
    quantiles: fitted.quantiles,
    champion: (lane, h, available) => championOf(record, lane, h, available),
    learned: fitted.learned,
  });
  state.pending.push(issued);
  state.byTime.set(slot, issued);
}

/** The published forecasts aimed at `target` that were scored (the same ones `scoreTargets` counts). */
function emitScored(state: PortState, target: number, emit: (forecast: ScoredForecast) => void): void {
  const targetAt = new Date(target).toISOString();
  const byIssue = state.byTime;
  for (const h of HORIZONS_MINUTES) {
    const issue = byIssue.get(target - h * 60_000);
    if (!issue) continue;
    for (const lane of issue.lanes) {
      const point = pointAt(lane.points, h);
      if (!point?.model || !point.persistence || !point.profile || !point.champion) continue;
      const actual = actualAt(state.readings.get(laneKeyOf(lane)) ?? [], target);
      const published = point[point.champion];
      if (actual === null || !published) continue;
      emit({
        portId: state.portId,
        direction: lane.direction,
        mode: lane.mode,
        lane: lane.lane,
        issuedAt: issue.issuedAt,
        horizonMinutes: h,
        targetAt,
        delayMinutes: published[0],
        low: published[1],
        high: published[2],
        method: point.champion,
        actualMinutes: actual,
      });
    }
  }
}

/** The result as aligned text: overall, then per lane. */
export function formatBacktest(result: BacktestResult): string {
  const cell = (value: number | null, digits = 1) => (value === null ? '-' : value.toFixed(digits));
  const head =
    'horizon  MAE:champion   model  persist  profile   bias  coverage       n   cov:0-5   5-15  15-45    45+';
  const rowsOf = (figures: readonly BacktestFigures[]) =>
    figures.map(
      (f) =>
        `${`+${f.horizonMinutes}m`.padStart(7)}  ${cell(f.champion.mae).padStart(12)} ${cell(f.model.mae).padStart(7)} ${cell(
          f.persistence.mae,
        ).padStart(8)} ${cell(f.profile.mae).padStart(8)} ${cell(f.champion.bias).padStart(6)} ${(
          f.champion.coverage === null ? '-' : `${(f.champion.coverage * 100).toFixed(1)}%`
        ).padStart(9)} ${String(f.champion.n).padStart(7)} ${(f.champion.coverageByLevel ?? [])
          .map((l, i) =>
            (l.coverage === null ? '-' : `${(l.coverage * 100).toFixed(1)}%`).padStart(i === 0 ? 9 : 6),
          )
          .join(' ')}`,
    );
  const lines = [
    `backtest ${result.from} .. ${result.to}: ${result.ports} ports, ${result.lanes} lanes, ${result.slots} slots of 15 min`,
    "MAE in minutes; bias = mean(forecast - actual) of the champion; coverage = actuals inside the champion's 80% interval, overall and by the forecast's level (minutes)",
  ];
  if (result.uncatalogued.length > 0) {
    lines.push(
      `not in the catalogue (read in America/New_York, Canadian-border holidays): ${result.uncatalogued.join(', ')}`,
    );
  }
  lines.push('', 'overall', head, ...rowsOf(result.overall));
  for (const lane of result.byLane) {
    lines.push(
      '',
      `${lane.portId} ${lane.direction} ${lane.mode} ${lane.lane}`,
      head,
      ...rowsOf(lane.horizons),
    );
  }
  return lines.join('\n');
}
