/**
 * The published forecast views: `v1/port-forecast/{id}.json` per port (also under the id in lower case) and
 * `v1/forecast-skill.json`, the summary of every lane's track record.
 */
import type {
  BodyOf,
  ForecastBodySchema,
  ForecastPointSchema,
  ForecastSkillBodySchema,
  LaneForecastSchema,
} from '../views/api-schemas.ts';
import { reasonOf } from '../views/reason-codes.ts';
import { DOCUMENT_KEYS } from '../views/view-paths.ts';
import { type BuiltDocument, buildPortDocuments, CACHE_CONTROL } from '../views/views.ts';
import { HORIZONS_MINUTES, type IssuedLane, type IssuedPort, type Method } from './forecast.ts';
import {
  championReason,
  figuresOf,
  MIN_N,
  type PortRecord,
  pointAt,
  RECORD_DAYS,
  SERIES,
  type Series,
  type Tally,
} from './skill.ts';

/** One forecast point: the expected wait at a target time, with its 80% interval. */
export type ForecastPoint = BodyOf<typeof ForecastPointSchema>;

/** One lane's forecast: its points, the method published and why, and its track record. */
export type LaneForecast = BodyOf<typeof LaneForecastSchema>;

/** The track record of one lane at one horizon. */
export type HorizonSkill = LaneForecast['skill'][number];

/** The body of one port's forecast document (`generatedAt` is added when it is published). */
export type PortForecastBody = Omit<BodyOf<typeof ForecastBodySchema>, 'generatedAt'>;

function laneForecast(
  issue: IssuedPort,
  lane: IssuedLane,
  record: PortRecord,
  atOf: (horizonMinutes: number) => string,
): LaneForecast {
  const key = `${lane.direction}#${lane.mode}#${lane.lane}`;
  const points: ForecastPoint[] = [];
  for (const point of lane.points) {
    const triple = point.champion ? point[point.champion] : null;
    if (!point.champion || !triple) continue;
    points.push({
      at: atOf(point.horizonMinutes),
      horizonMinutes: point.horizonMinutes,
      delayMinutes: triple[0],
      low: triple[1],
      high: triple[2],
      method: point.champion,
      ...(point.holiday ? { holiday: point.holiday } : {}),
      // Where the published point is the model's, and the model started from CBP's typical wait.
      ...(point.prior && point.champion === 'model' ? { prior: point.prior } : {}),
    });
  }
  const methods = [...new Set(points.map((p) => p.method))];
  const skill = HORIZONS_MINUTES.map((h): HorizonSkill => {
    const series = record[key]?.[String(h)] ?? {};
    const champion = pointAt(lane.points, h)?.champion ?? null;
    return {
      horizonMinutes: h,
      champion,
      model: figuresOf(series.model),
      persistence: figuresOf(series.persistence),
      profile: figuresOf(series.profile),
      published: figuresOf(series.champion, true),
    };
  });
  const first = points[0];
  const { reason, reasonCodes } = reasonOf([
    ...lane.reasons,
    first === undefined
      ? null
      : methods.length === 1
        ? championReason(record, key, first.horizonMinutes, first.method)
        : { code: 'champion-differs', text: 'the champion differs by horizon (see each point)' },
  ]);
  return {
    direction: lane.direction,
    mode: lane.mode,
    lane: lane.lane,
    issuedAt: issue.issuedAt,
    reading: lane.reading,
    method: methods.length === 0 ? null : methods.length === 1 ? (methods[0] as Method) : 'mixed',
    reason,
    reasonCodes,
    // Only where a published model point started from CBP's typical wait.
    ...(lane.base && points.some((p) => p.method === 'model') ? { base: lane.base } : {}),
    points,
    skill,
  };
}

/** The body of one port's forecast document. */
export function portForecastBody(
  portId: string,
  issue: IssuedPort | null,
  record: PortRecord,
): PortForecastBody {
  // The target time of each horizon, the same for every lane of the issue.
  const issuedMs = issue ? Date.parse(issue.issuedAt) : 0;
  const ats = new Map<number, string>();
  const atOf = (horizonMinutes: number): string => {
    let at = ats.get(horizonMinutes);
    if (at === undefined) {
      at = new Date(issuedMs + horizonMinutes * 60_000).toISOString();
      ats.set(horizonMinutes, at);
    }
    return at;
  };
  return {
    portId,
    issuedAt: issue?.issuedAt ?? null,
    recordDays: RECORD_DAYS,
    minimumN: MIN_N,
    horizonsMinutes: [...HORIZONS_MINUTES],
    lanes: issue ? issue.lanes.map((lane) => laneForecast(issue, lane, record, atOf)) : [],
  };
}

/** The forecast documents of one port, under each of its document names. */
export function buildForecastDocuments(
  port: { id: string; slug: string },
  body: PortForecastBody,
  generatedAt: string,
): BuiltDocument[] {
  return buildPortDocuments(port, DOCUMENT_KEYS.forecast, CACHE_CONTROL.forecast, body, generatedAt);
}

/** The `forecast-skill` body (`generatedAt` is added when it is published). */
export type SkillSummaryBody = Omit<BodyOf<typeof ForecastSkillBodySchema>, 'generatedAt'>;

/** One method's summary at one horizon over every lane. */
export type SeriesSummary = SkillSummaryBody['horizons'][number]['model'];

function quantile(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return Math.round((sorted[index] as number) * 10) / 10;
}

/** Median and p90 MAE per horizon over every lane of every port. */
export function skillSummaryBody(issuedAt: string, records: readonly PortRecord[]): SkillSummaryBody {
  // One pass over every lane of every port, gathering each horizon's figures (by horizon index,
  // and series index within it).
  const H = HORIZONS_MINUTES.length;
  const S = SERIES.length;
  const maes: number[][] = Array.from({ length: H * S }, () => []);
  const ns = new Array<number>(H * S).fill(0);
  const lanesScored = new Array<number>(H).fill(0);
  const totals = new Array<number>(H).fill(0);
  // The published forecasts' coverage by level, every lane pooled.
  const levels: Tally[] = Array.from({ length: H }, () => ({
    abs: 0,
    err: 0,
    cov: 0,
    n: 0,
    hist: [],
    lvn: [0, 0, 0, 0],
    lvc: [0, 0, 0, 0],
  }));
  for (const record of records) {
    for (const lane in record) {
      const horizons = record[lane] as PortRecord[string];
      for (let i = 0; i < H; i++) {
        const series = horizons[HORIZONS_MINUTES[i] as number];
        if (!series?.model || series.model.n === 0) continue;
        lanesScored[i] = (lanesScored[i] as number) + 1;
        totals[i] = (totals[i] as number) + series.model.n;
        const published = series.champion;
        const level = levels[i] as Tally;
        const lvn = level.lvn as number[];
        const lvc = level.lvc as number[];
        for (let b = 0; b < 4; b++) {
          lvn[b] = (lvn[b] as number) + (published?.lvn?.[b] ?? 0);
          lvc[b] = (lvc[b] as number) + (published?.lvc?.[b] ?? 0);
        }
        level.n += published?.n ?? 0;
        for (let k = 0; k < S; k++) {
          const tally = series[SERIES[k] as Series];
          if (!tally || tally.n < MIN_N) continue;
          (maes[i * S + k] as number[]).push(tally.abs / tally.n / 10);
          ns[i * S + k] = (ns[i * S + k] as number) + tally.n;
        }
      }
    }
  }
  return {
    issuedAt,
    recordDays: RECORD_DAYS,
    minimumN: MIN_N,
    source: `live: forecasts this service published and scored against the readings that arrived, last ${RECORD_DAYS} days`,
    horizons: HORIZONS_MINUTES.map((h, i) => {
      const perSeries = {} as Record<Series, SeriesSummary>;
      for (let k = 0; k < S; k++) {
        const sorted = Float64Array.from(maes[i * S + k] as number[]).sort();
        perSeries[SERIES[k] as Series] = {
          lanes: sorted.length,
          n: ns[i * S + k] as number,
          medianMae: quantile(sorted, 0.5),
          p90Mae: quantile(sorted, 0.9),
        };
      }
      return {
        horizonMinutes: h,
        lanesScored: lanesScored[i] as number,
        n: totals[i] as number,
        ...perSeries,
        coverageByLevel: figuresOf(levels[i], true).coverageByLevel ?? [],
      };
    }),
  };
}
