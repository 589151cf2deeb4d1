import * as z from 'zod';
import { findLane } from '../../core/forecast/forecast-query.ts';
import type { DIRECTIONS, LANES, MODES } from '../../core/model.ts';
import { utcToZoned, zonedToUtc } from '../../core/time.ts';
import { bestTimes } from '../../core/trips/crossings.ts';
import { ForecastPointSchema, HourlyAverageSchema } from '../../core/views/api-schemas.ts';
import { defineTool, requireDirection } from '../define-tool.ts';
import {
  loadAverages,
  loadForecast,
  PortAnswerSchema,
  PortLaneInputSchema,
  portAnswer,
  SkillSchema,
  type ToolDeps,
} from '../tool-kit.ts';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const InputSchema = PortLaneInputSchema.extend({
  day_of_week: z
    .number()
    .int()
    .min(0)
    .max(6)
    .optional()
    .describe('Port-local day, 0 = Sunday; leave out for the whole week'),
  min_samples: z.number().int().min(1).max(1000).default(2).describe('Ignore hours with fewer samples'),
  limit: z.number().int().min(1).max(24).default(5),
  depart_between: z
    .object({
      from: z
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 24-hour')
        .describe('Port-local time today, HH:MM'),
      to: z
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 24-hour')
        .describe('Port-local time today, HH:MM'),
    })
    .optional()
    .describe(
      "A departure window today in the port's time zone (within the next 6 hours): answered from the forecast",
    ),
});

const point = ForecastPointSchema.shape;
const average = HourlyAverageSchema.shape;

const OptionSchema = z.object({
  at: point.at,
  localTime: z.string().describe('Port-local HH:MM'),
  delayMinutes: point.delayMinutes.describe('Forecast wait, minutes'),
  low: point.low,
  high: point.high,
  method: point.method,
  horizonMinutes: point.horizonMinutes,
  skill: SkillSchema.nullable(),
});

const BucketSchema = z.object({
  dayOfWeek: average.dayOfWeek,
  day: z.string(),
  hour: average.hour,
  averageDelayMinutes: average.averageDelayMinutes,
  samples: average.samples,
});

const OutputSchema = PortAnswerSchema.extend({
  timeZone: PortAnswerSchema.shape.timeZone.describe('Days and hours are in this zone'),
  direction: average.direction,
  mode: average.mode,
  lane: average.lane,
  bucketsConsidered: z.number().int(),
  best: z.array(BucketSchema),
  worst: BucketSchema.nullable(),
  today: z
    .object({
      from: z.string(),
      to: z.string(),
      issuedAt: z.string().nullable(),
      options: z.array(OptionSchema).describe('Forecast points inside the window, lowest wait first'),
      best: OptionSchema.nullable(),
      reason: z.string().nullable().describe('Why there is no forecast for the window'),
    })
    .nullable()
    .describe('With depart_between: the forecast for that window today'),
});

export const bestTimeToCrossTool = defineTool({
  name: 'best_time_to_cross',
  title: 'Best time to cross',
  description:
    'The hours with the lowest average wait (minutes) at one crossing, from hourly averages by day of ' +
    "week and hour in the port's own time zone, with the sample count of each hour. Averages are rebuilt " +
    'after each ingest from the observations; they describe the past, not a forecast. With depart_between ' +
    '(a window today, port-local HH:MM, within the next 6 hours), today ranks the forecast points in the ' +
    'window, each with its 80% interval, the method published (model, persistence or profile: the one with ' +
    'the lowest error on that lane) and its track record. Anonymous.',
  input: InputSchema,
  output: OutputSchema,
  port: 'port_id',
  async run({ input, port }, deps) {
    requireDirection(port, input.direction);
    const averages = await loadAverages(deps.readApi, port.id);
    const { best, buckets, worst } = bestTimes(averages, {
      direction: input.direction,
      mode: input.mode,
      lane: input.lane,
      dayOfWeek: input.day_of_week,
      minSamples: input.min_samples,
      limit: input.limit,
    });
    const withDay = (a: (typeof best)[number]) => ({
      dayOfWeek: a.dayOfWeek,
      day: DAYS[a.dayOfWeek] ?? String(a.dayOfWeek),
      hour: a.hour,
      averageDelayMinutes: Math.round(a.averageDelayMinutes * 10) / 10,
      samples: a.samples,
    });
    const rows = best.map(withDay);
    const today = input.depart_between ? await forecastWindow(deps, port, input, input.depart_between) : null;
    return {
      structured: {
        ...portAnswer(port, deps.clock.now(), 'hourly averages of stored observations'),
        direction: input.direction,
        mode: input.mode,
        lane: input.lane,
        bucketsConsidered: buckets,
        best: rows,
        worst: worst ? withDay(worst) : null,
        today,
      },
      text:
        (today
          ? today.best
            ? `Today ${today.from}-${today.to}: best at ${today.best.localTime}, ${today.best.delayMinutes} min (80%: ${today.best.low}-${today.best.high}, ${today.best.method}${today.best.skill ? `, MAE ${today.best.skill.mae} min over ${today.best.skill.n}` : ''}). `
            : `Today ${today.from}-${today.to}: ${today.reason} `
          : '') +
        (rows.length === 0
          ? `${port.name}: no hourly averages with at least ${input.min_samples} samples yet for ${input.mode} ${input.lane} ${input.direction}.`
          : `${port.name} (${port.timeZone}), lowest averages: ${rows
              .map(
                (r) =>
                  `${r.day} ${String(r.hour).padStart(2, '0')}:00 ${r.averageDelayMinutes} min (${r.samples} samples)`,
              )
              .join('; ')}`),
    };
  },
});

/** The forecast points of one lane inside a port-local window today, lowest wait first. */
async function forecastWindow(
  deps: ToolDeps,
  port: { id: string; timeZone: string },
  lane: {
    direction: (typeof DIRECTIONS)[number];
    mode: (typeof MODES)[number];
    lane: (typeof LANES)[number];
  },
  window: { from: string; to: string },
): Promise<z.infer<typeof OutputSchema>['today']> {
  const nowMs = deps.clock.now();
  const today = utcToZoned(nowMs, port.timeZone);
  const instant = (hhmm: string) => {
    const [hour, minute] = hhmm.split(':').map(Number) as [number, number];
    return zonedToUtc({ year: today.year, month: today.month, day: today.day, hour, minute }, port.timeZone);
  };
  const fromMs = instant(window.from);
  const toMs = instant(window.to);
  const body = await loadForecast(deps.readApi, port.id);
  const empty = { from: window.from, to: window.to, issuedAt: body.issuedAt, options: [], best: null };
  if (toMs < fromMs) return { ...empty, reason: 'the window ends before it starts (both times are today)' };
  if (toMs < nowMs) return { ...empty, reason: 'the window is already over today' };
  const found = findLane(body, lane);
  if (!found)
    return { ...empty, reason: `no forecast for ${lane.mode} ${lane.lane} ${lane.direction} at this port` };
  if (found.points.length === 0) return { ...empty, reason: found.reason ?? 'no forecast for this lane' };
  const options = found.points
    .filter((p) => Date.parse(p.at) >= fromMs && Date.parse(p.at) <= toMs)
    .map((p) => {
      const local = utcToZoned(Date.parse(p.at), port.timeZone);
      const skill = found.skill.find((s) => s.horizonMinutes === p.horizonMinutes)?.published ?? null;
      return {
        at: p.at,
        localTime: `${String(local.hour).padStart(2, '0')}:${String(local.minute).padStart(2, '0')}`,
        delayMinutes: p.delayMinutes,
        low: p.low,
        high: p.high,
        method: p.method,
        horizonMinutes: p.horizonMinutes,
        skill: skill && skill.n > 0 ? skill : null,
      };
    })
    .sort((a, b) => a.delayMinutes - b.delayMinutes || a.at.localeCompare(b.at));
  return {
    ...empty,
    options,
    best: options[0] ?? null,
    reason:
      options.length > 0
        ? null
        : `no forecast point falls in the window: the forecast issued ${found.issuedAt} reaches ${found.points.at(-1)?.at} (6 hours)`,
  };
}
