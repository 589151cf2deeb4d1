/**
 * Reading the published forecast documents (`/v1/port-forecast/{id}.json`, `/v1/forecast-skill.json`)
 * for the port and track-record pages. Per lane a forecast gives `issuedAt`, `points` (`at`,
 * `delayMinutes`, `low`, `high`), `method` and `skill` (MAE, bias, coverage and n of the model and of
 * both baselines per horizon). The readers accept the skill as a list of horizons or as objects keyed
 * by horizon or by method, and ignore fields they do not know.
 */

export interface ForecastPoint {
  at: string;
  delayMinutes: number;
  low: number;
  high: number;
}

export interface Score {
  mae: number | null;
  bias: number | null;
  coverage: number | null;
  n: number;
}

export interface HorizonSkill {
  horizonMinutes: number;
  model?: Score;
  persistence?: Score;
  profile?: Score;
  /** What was actually published at this horizon (the champion of the day), when given. */
  published?: Score;
}

export interface LaneForecast {
  direction: string;
  mode: string;
  lane: string;
  issuedAt: string | null;
  method: string | null;
  /** Why the lane has no forecast, when it has none. */
  reason: string | null;
  /** The reason as stable codes (the API's `reasonCodes`), which the page translates. */
  reasonCodes: string[];
  points: ForecastPoint[];
  skill: HorizonSkill[];
}

type Loose = Record<string, unknown>;
const isObject = (x: unknown): x is Loose => typeof x === 'object' && x !== null && !Array.isArray(x);
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const str = (x: unknown): string | null => (typeof x === 'string' ? x : null);
const METHODS = ['model', 'persistence', 'profile', 'published'] as const;

function score(x: unknown): Score | undefined {
  if (!isObject(x)) return undefined;
  return { mae: num(x.mae), bias: num(x.bias), coverage: num(x.coverage), n: num(x.n) ?? 0 };
}

function horizonOf(x: Loose, key?: string): number | null {
  return num(x.horizonMinutes) ?? num(x.horizon) ?? num(x.minutes) ?? (key ? num(Number(key)) : null);
}

function skillOf(x: unknown): HorizonSkill[] {
  const out = new Map<number, HorizonSkill>();
  const put = (h: number | null, method: (typeof METHODS)[number], s: Score | undefined) => {
    if (h === null || !s) return;
    const entry = out.get(h) ?? { horizonMinutes: h };
    entry[method] = s;
    out.set(h, entry);
  };
  const fromHorizonEntry = (entry: unknown, key?: string) => {
    if (!isObject(entry)) return;
    const h = horizonOf(entry, key);
    for (const m of METHODS) put(h, m, score(entry[m]));
  };
  if (Array.isArray(x)) for (const entry of x) fromHorizonEntry(entry);
  else if (isObject(x)) {
    if (METHODS.some((m) => m in x)) {
      for (const m of METHODS) {
        const byMethod = x[m];
        if (Array.isArray(byMethod))
          for (const e of byMethod) if (isObject(e)) put(horizonOf(e), m, score(e));
        if (isObject(byMethod))
          for (const [k, e] of Object.entries(byMethod)) put(num(Number(k)), m, score(e));
      }
    } else for (const [k, e] of Object.entries(x)) fromHorizonEntry(e, k);
  }
  return [...out.values()].sort((a, b) => a.horizonMinutes - b.horizonMinutes);
}

/** The lanes of a port forecast document. */
export function laneForecasts(doc: unknown): LaneForecast[] {
  if (!isObject(doc)) return [];
  const lanes = Array.isArray(doc.lanes) ? doc.lanes : Array.isArray(doc.forecasts) ? doc.forecasts : [];
  return lanes.filter(isObject).map((l) => ({
    direction: str(l.direction) ?? '',
    mode: str(l.mode) ?? '',
    lane: str(l.lane) ?? '',
    issuedAt: str(l.issuedAt) ?? str(doc.issuedAt),
    method: str(l.method),
    reason: str(l.reason) ?? str(l.note) ?? str(l.message),
    // A code the page does not know is said as `other`.
    reasonCodes: Array.isArray(l.reasonCodes)
      ? l.reasonCodes.filter((c): c is string => typeof c === 'string')
      : [],
    points: (Array.isArray(l.points) ? l.points : []).filter(isObject).flatMap((p) => {
      const at = str(p.at);
      const d = num(p.delayMinutes);
      if (!at || d === null) return [];
      return [{ at, delayMinutes: d, low: num(p.low) ?? d, high: num(p.high) ?? d }];
    }),
    skill: skillOf(l.skill),
  }));
}

export interface SkillRow {
  horizonMinutes: number;
  median: number | null;
  p90: number | null;
  n: number;
}

/** Rows of the all-lanes track record: median and p90 MAE and n per horizon. */
export function skillRows(doc: unknown): SkillRow[] {
  const list = Array.isArray(doc)
    ? doc
    : isObject(doc)
      ? ((Array.isArray(doc.horizons) ? doc.horizons : Array.isArray(doc.byHorizon) ? doc.byHorizon : null) ??
        Object.entries(isObject(doc.horizons) ? doc.horizons : {}).map(([k, v]) =>
          isObject(v) ? { horizonMinutes: Number(k), ...v } : {},
        ))
      : [];
  return list
    .filter(isObject)
    .flatMap((x) => {
      const h = horizonOf(x);
      if (h === null) return [];
      const mae = isObject(x.mae) ? x.mae : {};
      // Per-series summaries: what was published (the champion), else the model.
      const series = [x.champion, x.published, x.model].find(isObject) ?? {};
      return [
        {
          horizonMinutes: h,
          median:
            num(x.medianMae) ?? num(x.maeMedian) ?? num(x.median) ?? num(mae.median) ?? num(series.medianMae),
          p90: num(x.p90Mae) ?? num(x.maeP90) ?? num(x.p90) ?? num(mae.p90) ?? num(series.p90Mae),
          n: num(series.n) ?? num(x.n) ?? 0,
        },
      ];
    })
    .sort((a, b) => a.horizonMinutes - b.horizonMinutes);
}

/** Where the track-record figures come from, when the document says. */
export function skillSource(doc: unknown): string | null {
  return isObject(doc) ? str(doc.source) : null;
}

export function horizonText(minutes: number): string {
  return minutes < 60 ? `${minutes} min` : `${Math.round((minutes / 60) * 10) / 10} h`;
}
