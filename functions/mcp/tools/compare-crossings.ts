import * as z from 'zod';
import { placeName } from '../../core/catalogue/place-name.ts';
import { type ForecastAt, findLane, laneForecastAt } from '../../core/forecast/forecast-query.ts';
import { BORDERS, DIRECTIONS, LANES, MODES } from '../../core/model.ts';
import { compareCrossings, searchCrossings } from '../../core/trips/crossings.ts';
import { ForecastPointSchema, LaneWaitSchema, PortSchema } from '../../core/views/api-schemas.ts';
import { PortIdSchema } from '../../core/views/queries.ts';
import type { PublishedPort } from '../../core/views/views.ts';
import { defineTool, ToolError } from '../define-tool.ts';
import {
  InstantSchema,
  loadCurrent,
  loadForecast,
  localWhen,
  nearOf,
  SkillSchema,
  sentences,
  type ToolDeps,
} from '../tool-kit.ts';

const InputSchema = z.object({
  direction: z.enum(DIRECTIONS).describe('into-us (CBP) or into-canada (CBSA)'),
  mode: z.enum(MODES).default('passenger').describe('passenger (cars), pedestrian or commercial (trucks)'),
  lanes: z
    .array(z.enum(LANES))
    .min(1)
    .max(5)
    .default(['standard'])
    .describe(
      'Lanes the traveller may use, e.g. ["standard","sentri"] for a SENTRI holder; default standard',
    ),
  port_ids: z
    .array(PortIdSchema)
    .min(2)
    .max(15)
    .optional()
    .describe('Crossings to compare (ids or slugs); or leave out and give border, state or near'),
  border: z.enum(BORDERS).optional().describe('Compare every crossing on this border (mx or ca)'),
  state: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional()
    .describe('Compare every crossing in this US state'),
  near: z
    .object({
      lat: z.number().min(-90).max(90),
      lon: z.number().min(-180).max(180),
      radius_km: z.number().positive().max(500).default(80),
    })
    .optional()
    .describe('Compare crossings within radius_km (default 80) of a point'),
  include_stale: z
    .boolean()
    .default(false)
    .describe('Also rank stale readings (75-180 min old); expired ones never rank'),
  limit: z.number().int().min(1).max(30).default(10).describe('Most ranked crossings to return'),
  arrive_at: InstantSchema.optional().describe(
    'Arrival time, an ISO 8601 instant with Z or an offset (e.g. 2026-11-18T14:30:00Z), within the next 24 hours: also rank by the forecast wait then',
  ),
  in_minutes: z
    .number()
    .int()
    .min(0)
    .max(1440)
    .optional()
    .describe('Arrival in this many minutes (0-1440): also rank by the forecast wait then'),
});

const lane = LaneWaitSchema.shape;
const point = ForecastPointSchema.shape;

/** A crossing left out of a ranking, and why. */
const ExcludedSchema = z.object({
  portId: z.string(),
  name: PortSchema.shape.name,
  crossing: PortSchema.shape.crossing,
  reason: z.string(),
});

const OutputSchema = z.object({
  generatedAt: z.string(),
  publishedAt: z.string().nullable(),
  source: z.string(),
  direction: lane.direction,
  mode: lane.mode,
  lanes: z.array(lane.lane),
  ranked: z.array(
    z.object({
      rank: z.number().int(),
      portId: z.string(),
      name: PortSchema.shape.name,
      crossing: PortSchema.shape.crossing,
      timeZone: PortSchema.shape.timeZone.describe("The port's time zone (observedAt is UTC)"),
      lane: lane.lane,
      delayMinutes: lane.delayMinutes.unwrap().describe('Current wait, minutes'),
      lanesOpen: lane.lanesOpen,
      observedAt: lane.observedAt,
      freshness: lane.freshness,
      ageMinutes: z.number(),
      source: lane.source,
    }),
  ),
  excluded: z.array(ExcludedSchema),
  atArrival: z
    .object({
      at: z.string(),
      ranked: z.array(
        z.object({
          rank: z.number().int(),
          portId: z.string(),
          name: PortSchema.shape.name,
          crossing: PortSchema.shape.crossing,
          timeZone: PortSchema.shape.timeZone.describe("The port's time zone (times are UTC)"),
          lane: lane.lane,
          delayMinutes: point.delayMinutes.describe('Forecast wait at arrival, minutes'),
          low: point.low,
          high: point.high,
          method: point.method,
          horizonMinutes: point.horizonMinutes,
          issuedAt: z.string(),
          skill: SkillSchema.nullable(),
        }),
      ),
      excluded: z.array(ExcludedSchema),
    })
    .nullable()
    .describe('With arrive_at or in_minutes: crossings ranked by the forecast wait at arrival'),
});

/** The crossings the input names (port_ids), or selects (border, state, near), that have `direction`. */
async function candidatesOf(
  deps: ToolDeps,
  input: z.output<typeof InputSchema>,
  named: PublishedPort[],
): Promise<PublishedPort[]> {
  let candidates: PublishedPort[];
  if (input.port_ids) candidates = named;
  else if (input.border || input.state || input.near) {
    const ports = await deps.readApi.listPorts();
    const ids = new Set(
      searchCrossings(ports, {
        border: input.border,
        state: input.state,
        near: nearOf(input.near),
        limit: 200,
      }).map((m) => m.id),
    );
    candidates = ports.filter((p) => ids.has(p.id));
  } else {
    throw new ToolError('Say which crossings to compare: port_ids (2 or more), border, state or near.');
  }
  candidates = candidates.filter((p) => p.directions.includes(input.direction));
  if (candidates.length === 0) {
    if (input.port_ids) throw new ToolError(`None of those crossings has ${input.direction} wait times.`);
    const chosen = [
      input.border && `on the ${input.border === 'mx' ? 'Mexican' : 'Canadian'} border`,
      input.state && `in ${input.state.toUpperCase()}`,
      input.near && `within ${input.near.radius_km} km of ${input.near.lat}, ${input.near.lon}`,
    ]
      .filter(Boolean)
      .join(' and ');
    throw new ToolError(
      `No crossing ${chosen} has ${input.direction} wait times (search_crossings lists the crossings by state, border or place).`,
    );
  }
  return candidates;
}

/** The arrival time the input asks about (ms), or null. */
function arrivalOf(input: z.output<typeof InputSchema>, nowMs: number): number | null {
  if (input.arrive_at !== undefined && input.in_minutes !== undefined) {
    throw new ToolError('Give arrive_at or in_minutes, not both.');
  }
  const arrivalMs =
    input.arrive_at !== undefined
      ? Date.parse(input.arrive_at)
      : input.in_minutes !== undefined
        ? nowMs + input.in_minutes * 60_000
        : null;
  if (arrivalMs !== null && (arrivalMs < nowMs - 60_000 || arrivalMs > nowMs + 24 * 3_600_000)) {
    throw new ToolError('arrive_at must be between now and 24 hours from now (the forecasts reach +24 h).');
  }
  return arrivalMs;
}

/** Rankings name this many crossings in the text (the structured answer has them all, up to `limit`). */
const TEXT_ROWS = 3;
const more = (count: number) => (count > TEXT_ROWS ? `; and ${count - TEXT_ROWS} more` : '');

export const compareCrossingsTool = defineTool({
  name: 'compare_crossings',
  title: 'Compare crossings, now or at arrival',
  description:
    'Rank crossings by the shortest current wait (minutes) for a direction and mode over the lanes the ' +
    'traveller may use. Only open lanes with a published number count; stale readings only with ' +
    'include_stale, expired ones never; each result carries its observedAt, age and freshness, and ' +
    'crossings left out are listed with the reason. Choose crossings by port_ids, border, state or near. ' +
    'With arrive_at or in_minutes (up to 24 hours ahead), atArrival also ranks them by the forecast wait at ' +
    'arrival, each with its 80% interval, the method published (model, persistence or profile: the one ' +
    'with the lowest error on that lane) and its track record. Anonymous.',
  input: InputSchema,
  output: OutputSchema,
  port: 'port_ids',
  async run({ input, ports }, deps) {
    const candidates = await candidatesOf(deps, input, ports);
    const nowMs = deps.clock.now();
    const current = await loadCurrent(deps);
    const { ranked, excluded } = compareCrossings(
      candidates.map((port) => ({ port, current: current?.byPort.get(port.id) })),
      {
        direction: input.direction,
        mode: input.mode,
        lanes: input.lanes,
        includeStale: input.include_stale,
      },
      nowMs,
    );
    const zones = new Map(candidates.map((port) => [port.id, port.timeZone]));
    const top = ranked
      .slice(0, input.limit)
      .map((row) => ({ ...row, timeZone: zones.get(row.portId) ?? 'UTC' }));
    const arrivalMs = arrivalOf(input, nowMs);
    const atArrival = arrivalMs === null ? null : await rankAtArrival(deps, candidates, input, arrivalMs);
    const lanesNamed = `${input.direction} ${input.mode} ${input.lanes.join('/')}`;
    const now =
      top.length === 0
        ? `No crossing has a usable ${lanesNamed} reading now (${excluded.length} left out; see excluded)`
        : `Shortest ${lanesNamed} wait now: ${top
            .slice(0, TEXT_ROWS)
            .map(
              (r) => `${r.rank}. ${placeName(r)} ${r.delayMinutes} min (${r.lane}, ${r.ageMinutes} min old)`,
            )
            .join('; ')}${more(top.length)}`;
    let text = sentences(now);
    if (atArrival) {
      // The arrival in the crossings' own time (each zone named when they differ).
      // Each zone once; zones people name alike (Detroit's and New York's) once too.
      const zones = new Set(candidates.map((port) => port.timeZone));
      const when = [...new Set([...zones].map((zone) => localWhen(Date.parse(atArrival.at), zone)))].join(
        ' / ',
      );
      const ranked = atArrival.ranked.slice(0, input.limit);
      text =
        ranked.length > 0
          ? sentences(
              `Forecast for an arrival at ${when}: ${ranked
                .slice(0, TEXT_ROWS)
                .map(
                  (r) =>
                    `${r.rank}. ${placeName(r)} ${r.delayMinutes} min (80% interval ${r.low}-${r.high} min, ${r.lane}, ${r.method}${r.skill ? `, MAE ${r.skill.mae} min over ${r.skill.n} forecasts` : ''})`,
                )
                .join('; ')}${more(ranked.length)}`,
              now,
            )
          : // No forecast for the arrival: what is known now comes first, then why there is no more.
            sentences(
              now,
              `No forecast for an arrival at ${when} at these crossings yet (${atArrival.excluded.length} without one; reasons in atArrival.excluded)`,
            );
    }
    return {
      structured: {
        generatedAt: new Date(nowMs).toISOString(),
        publishedAt: current?.generatedAt ?? null,
        source: input.direction === 'into-us' ? 'US CBP border wait times' : 'CBSA border wait times',
        direction: input.direction,
        mode: input.mode,
        lanes: input.lanes,
        ranked: top,
        excluded,
        atArrival: atArrival && { ...atArrival, ranked: atArrival.ranked.slice(0, input.limit) },
      },
      text,
    };
  },
});

/** Crossings ranked by the forecast wait at `arrivalMs` over the allowed lanes (best lane each). */
async function rankAtArrival(
  deps: ToolDeps,
  candidates: readonly PublishedPort[],
  input: {
    direction: (typeof DIRECTIONS)[number];
    mode: (typeof MODES)[number];
    lanes: (typeof LANES)[number][];
  },
  arrivalMs: number,
) {
  const rows: { port: PublishedPort; lane: (typeof LANES)[number]; forecast: ForecastAt }[] = [];
  const excluded: z.infer<typeof ExcludedSchema>[] = [];
  for (const port of candidates) {
    const body = await loadForecast(deps.readApi, port.id);
    let best: { lane: (typeof LANES)[number]; forecast: ForecastAt } | null = null;
    const reasons: string[] = [];
    for (const lane of input.lanes) {
      const found = findLane(body, { direction: input.direction, mode: input.mode, lane });
      if (!found) continue;
      const at = laneForecastAt(found, arrivalMs);
      if ('reason' in at) reasons.push(`${lane}: ${at.reason}`);
      else if (!best || at.delayMinutes < best.forecast.delayMinutes) best = { lane, forecast: at };
    }
    if (best) rows.push({ port, ...best });
    else
      excluded.push({
        portId: port.id,
        name: port.name,
        crossing: port.crossing,
        reason: reasons.join('; ') || `no ${input.mode} forecast for ${input.lanes.join(', ')}`,
      });
  }
  rows.sort(
    (a, b) => a.forecast.delayMinutes - b.forecast.delayMinutes || a.port.id.localeCompare(b.port.id),
  );
  return {
    at: new Date(arrivalMs).toISOString(),
    ranked: rows.map((row, index) => ({
      rank: index + 1,
      portId: row.port.id,
      name: row.port.name,
      crossing: row.port.crossing,
      timeZone: row.port.timeZone,
      lane: row.lane,
      delayMinutes: row.forecast.delayMinutes,
      low: row.forecast.low,
      high: row.forecast.high,
      method: row.forecast.method,
      horizonMinutes: row.forecast.horizonMinutes,
      issuedAt: row.forecast.issuedAt,
      skill: row.forecast.skill,
    })),
    excluded,
  };
}
