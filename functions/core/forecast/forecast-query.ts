/**
 * Reading a published forecast at a given time (for the MCP tools): the point at an arrival
 * time, interpolated between the published points, with the method and the track record of the
 * nearer horizon, so an assistant can say how sure it is.
 */
import type { ForecastPoint, LaneForecast, PortForecastBody } from './forecast-views.ts';
import type { SkillFigures } from './skill.ts';

export interface ForecastAt {
  at: string;
  delayMinutes: number;
  low: number;
  high: number;
  method: ForecastPoint['method'];
  /** The published horizon nearest to the arrival. */
  horizonMinutes: number;
  issuedAt: string;
  /** Track record of what was published at that horizon (MAE, bias, coverage, n over 28 days). */
  skill: SkillFigures | null;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** A lane's forecast at `atMs`, or why there is none. */
export function laneForecastAt(lane: LaneForecast, atMs: number): ForecastAt | { reason: string } {
  if (lane.points.length === 0) return { reason: lane.reason ?? 'no forecast for this lane' };
  const points = lane.points.map((p) => ({ ...p, ms: Date.parse(p.at) }));
  const first = points[0] as (typeof points)[number];
  const last = points.at(-1) as (typeof points)[number];
  if (atMs > last.ms) {
    return {
      reason: `beyond the forecast: the last point is ${last.at} (+${last.horizonMinutes} min from ${lane.issuedAt})`,
    };
  }
  if (atMs < Date.parse(lane.issuedAt))
    return { reason: `before the forecast was issued (${lane.issuedAt})` };
  let before = first;
  let after = first;
  for (const point of points) {
    if (point.ms <= atMs) before = point;
    if (point.ms >= atMs) {
      after = point;
      break;
    }
  }
  // Before the first point: the first point (its horizon is the shortest published).
  const span = after.ms - before.ms;
  const w = span <= 0 ? 0 : (atMs - before.ms) / span;
  const nearer = w < 0.5 ? before : after;
  const skill = lane.skill.find((s) => s.horizonMinutes === nearer.horizonMinutes)?.published ?? null;
  return {
    at: new Date(atMs).toISOString(),
    delayMinutes: round1(before.delayMinutes + w * (after.delayMinutes - before.delayMinutes)),
    low: round1(before.low + w * (after.low - before.low)),
    high: round1(before.high + w * (after.high - before.high)),
    method: nearer.method,
    horizonMinutes: nearer.horizonMinutes,
    issuedAt: lane.issuedAt,
    skill: skill && skill.n > 0 ? skill : null,
  };
}

/** The lanes of a port's forecast matching a direction, mode and lane. */
export function findLane(
  body: PortForecastBody,
  lane: Pick<LaneForecast, 'direction' | 'mode' | 'lane'>,
): LaneForecast | undefined {
  return body.lanes.find(
    (l) => l.direction === lane.direction && l.mode === lane.mode && l.lane === lane.lane,
  );
}
