/**
 * Use cases behind the anonymous MCP tools: finding crossings, ranking them for a traveller, and
 * the best hours from the hourly averages. Pure: the callers hand in the published documents.
 */
import { freshnessOf } from '../freshness.ts';
import type { Border, Direction, Freshness, HourlyAverage, Lane, Mode, Port } from '../model.ts';
import type { Current, LaneWait, PublishedPort } from '../views/views.ts';

/** Case, accents and punctuation folded, so `Tijuana`, `tijuana` and `TIJUANA.` meet. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Great-circle distance in kilometres. */
export function distanceKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

export interface CrossingSearch {
  query?: string | undefined;
  border?: Border | undefined;
  state?: string | undefined;
  near?: { lat: number; lon: number; radiusKm: number } | undefined;
  limit: number;
}

export interface CrossingMatch
  extends Pick<
    Port,
    | 'id'
    | 'slug'
    | 'name'
    | 'crossing'
    | 'border'
    | 'state'
    | 'city'
    | 'twinCity'
    | 'timeZone'
    | 'location'
    | 'directions'
  > {
  /** Only for a search near a point. */
  distanceKm: number | null;
}

/**
 * Ports matching every given criterion: `query` against name, crossing, city, twin city, slug and
 * id; `near` keeps ports with a known location within the radius, nearest first. Ports without a
 * location never match `near` (locations are never invented).
 */
export function searchCrossings(ports: readonly PublishedPort[], search: CrossingSearch): CrossingMatch[] {
  const words = search.query ? fold(search.query).split(' ').filter(Boolean) : [];
  const state = search.state?.toUpperCase();
  const matches: CrossingMatch[] = [];
  for (const port of ports) {
    if (search.border && port.border !== search.border) continue;
    if (state && port.state.toUpperCase() !== state) continue;
    if (words.length > 0) {
      const haystack = fold(
        [
          port.name,
          port.crossing ?? '',
          port.city,
          port.twinCity ?? '',
          port.twinRegion ?? '',
          port.slug,
          port.id,
        ].join(' '),
      );
      if (!words.every((word) => haystack.includes(word))) continue;
    }
    let distance: number | null = null;
    if (search.near) {
      if (!port.location) continue;
      distance = Math.round(distanceKm(search.near, port.location) * 10) / 10;
      if (distance > search.near.radiusKm) continue;
    }
    matches.push({
      id: port.id,
      slug: port.slug,
      name: port.name,
      crossing: port.crossing,
      border: port.border,
      state: port.state,
      city: port.city,
      twinCity: port.twinCity ?? null,
      timeZone: port.timeZone,
      location: port.location,
      directions: port.directions,
      distanceKm: distance,
    });
  }
  if (search.near) matches.sort((a, b) => (a.distanceKm ?? 0) - (b.distanceKm ?? 0));
  return matches.slice(0, search.limit);
}

/** A published lane wait with its freshness recomputed for `nowMs` (documents age after publishing). */
export function refreshLane(lane: LaneWait, nowMs: number): LaneWait & { ageMinutes: number } {
  const at = Date.parse(lane.observedAt ?? lane.fetchedAt);
  return {
    ...lane,
    freshness: freshnessOf(lane.source, at, nowMs),
    ageMinutes: Math.max(0, Math.round((nowMs - at) / 60_000)),
  };
}

export interface CompareRequest {
  direction: Direction;
  mode: Mode;
  /** The lanes the traveller may use (a NEXUS holder may also use standard). */
  lanes: readonly Lane[];
  includeStale: boolean;
}

export interface RankedCrossing {
  rank: number;
  portId: string;
  name: string;
  crossing: string | null;
  lane: Lane;
  delayMinutes: number;
  lanesOpen: number | null;
  observedAt: string | null;
  freshness: Freshness;
  ageMinutes: number;
  source: LaneWait['source'];
}

export interface ExcludedCrossing {
  portId: string;
  name: string;
  crossing: string | null;
  reason: string;
}

/**
 * Ranks crossings by the shortest current wait over the lanes the traveller may use. Only open
 * lanes with a published number count; expired readings never rank, stale ones only when asked.
 */
export function compareCrossings(
  candidates: readonly { port: PublishedPort; current: Current | undefined }[],
  request: CompareRequest,
  nowMs: number,
): { ranked: RankedCrossing[]; excluded: ExcludedCrossing[] } {
  const ranked: Omit<RankedCrossing, 'rank'>[] = [];
  const excluded: ExcludedCrossing[] = [];
  for (const { port, current } of candidates) {
    const base = { portId: port.id, name: port.name, crossing: port.crossing };
    if (!current) {
      excluded.push({ ...base, reason: 'no current readings published' });
      continue;
    }
    if (current.status === 'closed') {
      excluded.push({ ...base, reason: 'port closed' });
      continue;
    }
    const lanes = current.lanes
      .filter(
        (l) => l.direction === request.direction && l.mode === request.mode && request.lanes.includes(l.lane),
      )
      .map((l) => refreshLane(l, nowMs));
    if (lanes.length === 0) {
      excluded.push({ ...base, reason: `no ${request.mode} lane of the allowed kinds ${request.direction}` });
      continue;
    }
    const usable = lanes.filter(
      (l) =>
        l.status === 'open' &&
        l.delayMinutes !== null &&
        (l.freshness === 'fresh' || (request.includeStale && l.freshness === 'stale')),
    );
    const best = usable.sort((a, b) => (a.delayMinutes ?? 0) - (b.delayMinutes ?? 0))[0];
    if (!best) {
      const states = [...new Set(lanes.map((l) => (l.status === 'open' ? l.freshness : l.status)))];
      excluded.push({ ...base, reason: `no usable reading (${states.join(', ')})` });
      continue;
    }
    ranked.push({
      ...base,
      lane: best.lane,
      delayMinutes: best.delayMinutes ?? 0,
      lanesOpen: best.lanesOpen,
      observedAt: best.observedAt,
      freshness: best.freshness,
      ageMinutes: best.ageMinutes,
      source: best.source,
    });
  }
  ranked.sort((a, b) => a.delayMinutes - b.delayMinutes || a.portId.localeCompare(b.portId));
  return { ranked: ranked.map((r, index) => ({ rank: index + 1, ...r })), excluded };
}

export interface BestTimeRequest {
  direction: Direction;
  mode: Mode;
  lane: Lane;
  dayOfWeek?: number | undefined;
  /** Buckets with fewer samples are left out. */
  minSamples: number;
  limit: number;
}

/** The lowest average waits of one lane, by port-local day of week and hour. */
export function bestTimes(
  averages: readonly HourlyAverage[],
  request: BestTimeRequest,
): { best: HourlyAverage[]; buckets: number; worst: HourlyAverage | null } {
  const buckets = averages.filter(
    (a) =>
      a.direction === request.direction &&
      a.mode === request.mode &&
      a.lane === request.lane &&
      (request.dayOfWeek === undefined || a.dayOfWeek === request.dayOfWeek) &&
      a.samples >= request.minSamples,
  );
  const sorted = [...buckets].sort(
    (a, b) =>
      a.averageDelayMinutes - b.averageDelayMinutes ||
      b.samples - a.samples ||
      a.dayOfWeek - b.dayOfWeek ||
      a.hour - b.hour,
  );
  return { best: sorted.slice(0, request.limit), buckets: buckets.length, worst: sorted.at(-1) ?? null };
}
