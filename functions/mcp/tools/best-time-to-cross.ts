import * as z from 'zod';
import { placeName } from '../../core/catalogue/place-name.ts';
import { findLane } from '../../core/forecast/forecast-query.ts';
import type { DIRECTIONS, LANES, MODES } from '../../core/model.ts';
import { utcToZoned, zonedToUtc, zoneName } from '../../core/time.ts';
import { bestTimes } from '../../core/trips/crossings.ts';
import { ForecastPointSchema, HourlyAverageSchema } from '../../core/views/api-schemas.ts';
import { defineTool, requireLane, ToolError } from '../define-tool.ts';
import {
  LocalTimeOrInstantSchema,
  loadAverages,
  loadForecast,
  localClock,
  localDay,
  localWhen,
  PortAnswerSchema,
  PortLaneInputSchema,
  portAnswer,
  SkillSchema,
  sentences,
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
      from: LocalTimeOrInstantSchema.describe(
        'Window start: port-local HH:MM on `day` (today by default), or an ISO 8601 instant (e.g. 2026-11-18T14:30:00Z)',
      ),
      to: LocalTimeOrInstantSchema.describe(
        'Window end: port-local HH:MM on `day` (an end before the start is after midnight), or an ISO 8601 instant (e.g. 2026-11-18T16:00:00Z)',
      ),
      day: z
        .enum(['today', 'tomorrow'])
        .default('today')
        .describe('The port-local day that HH:MM times fall on (tomorrow: e.g. tomorrow 06:00-10:00)'),
    })
    .optional()
    .describe(
      "A departure window (within the next 24 hours), as port-local HH:MM today or tomorrow in the port's time zone or as ISO instants: answered from the forecast",
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
      from: z.string().describe('Window start, port-local HH:MM'),
      to: z.string().describe('Window end, port-local HH:MM'),
      fromAt: z.string().describe('Window start, ISO 8601 instant (UTC)'),
      toAt: z.string().describe('Window end, ISO 8601 instant (UTC)'),
      issuedAt: z.string().nullable(),
      options: z.array(OptionSchema).describe('Forecast points inside the window, lowest wait first'),
      best: OptionSchema.nullable(),
      reason: z.string().nullable().describe('Why there is no forecast for the window'),
    })
    .nullable()
    .describe('With depart_between: the forecast for that window'),
});

export const bestTimeToCrossTool = defineTool({
  name: 'best_time_to_cross',
  title: 'Best time to cross',
  description:
    'The hours with the lowest average wait (minutes) at one crossing, from hourly averages by day of ' +
    "week and hour in the port's own time zone, with the sample count of each hour. Averages are rebuilt " +
    'after each ingest from the observations; they describe the past, not a forecast. With depart_between ' +
    '(a window today or tomorrow, port-local HH:MM, within the next 24 hours), today ranks the forecast points in the ' +
    'window, each with its 80% interval, the method published (model, persistence or profile: the one with ' +
    'the lowest error on that lane) and its track record. Anonymous.',
  input: InputSchema,
  output: OutputSchema,
  port: 'port_id',
  async run({ input, port }, deps) {
    requireLane(port, input);
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
      text: sentences(
        today &&
          `${placeName(port)}, departing ${windowLabel(Date.parse(today.fromAt), Date.parse(today.toAt), port.timeZone)}: ${
            today.best
              ? `best at ${today.best.localTime}, ${today.best.delayMinutes} min forecast (80% interval ${today.best.low}-${today.best.high} min, ${today.best.method}${today.best.skill ? `, MAE ${today.best.skill.mae} min over ${today.best.skill.n} forecasts` : ''})`
              : today.reason
          }`,
        rows.length === 0
          ? `${placeName(port)}: no hourly averages with at least ${input.min_samples} samples yet for ${input.mode} ${input.lane} ${input.direction}`
          : `${placeName(port)} (${zoneName(port.timeZone)}), lowest average waits: ${rows
              .map(
                (r) =>
                  `${r.day} ${String(r.hour).padStart(2, '0')}:00 ${r.averageDelayMinutes} min (${r.samples} samples)`,
              )
              .join('; ')}`,
      ),
    };
  },
});

/** Whether a window's end is a port-local `HH:MM` (else an instant). */
const isClock = (end: string) => /^\d\d:\d\d$/.test(end);

/** The forecasts reach this far ahead of their issue. */
const FORECAST_REACH_MS = 24 * 3_600_000;

/**
 * The forecast points of one lane inside a departure window (port-local `HH:MM` today or
 * tomorrow, or instants), lowest wait first; points already past are left out. A window that is
 * over, starts beyond the forecasts' reach or ends before it starts is a {@link ToolError} that
 * says what to ask instead; `HH:MM` ends across midnight (22:00 to 02:00) are one night.
 */
async function forecastWindow(
  deps: ToolDeps,
  port: { id: string; timeZone: string },
  lane: {
    direction: (typeof DIRECTIONS)[number];
    mode: (typeof MODES)[number];
    lane: (typeof LANES)[number];
  },
  window: { from: string; to: string; day?: 'today' | 'tomorrow' | undefined },
): Promise<z.infer<typeof OutputSchema>['today']> {
  const nowMs = deps.clock.now();
  const now = utcToZoned(nowMs, port.timeZone);
  /** A port-local date `days` after today's (noon plus whole days never skips or repeats a date). */
  const dateAfter = (days: number) =>
    utcToZoned(
      zonedToUtc({ year: now.year, month: now.month, day: now.day, hour: 12, minute: 0 }, port.timeZone) +
        days * 86_400_000,
      port.timeZone,
    );
  const first = window.day === 'tomorrow' ? 1 : 0;
  const instant = (end: string, days: number) => {
    if (!isClock(end)) return Date.parse(end);
    const [hour, minute] = end.split(':').map(Number) as [number, number];
    const date = dateAfter(days);
    return zonedToUtc({ year: date.year, month: date.month, day: date.day, hour, minute }, port.timeZone);
  };
  const fromMs = instant(window.from, first);
  let toMs = instant(window.to, first);
  // Two times of day with the end first: a window across midnight.
  if (toMs < fromMs && isClock(window.to) && isClock(window.from)) toMs = instant(window.to, first + 1);
  const asked = windowLabel(fromMs, toMs, port.timeZone);
  if (toMs < fromMs) throw new ToolError(`depart_between ends before it starts (${asked}).`);
  if (toMs < nowMs) {
    throw new ToolError(
      `The window ${asked} is already over: it is ${localClock(nowMs, port.timeZone)} there now.${window.day === 'tomorrow' || !isClock(window.from) ? '' : ' For the same hours tomorrow, add day: "tomorrow".'}`,
    );
  }
  if (fromMs > nowMs + FORECAST_REACH_MS) {
    throw new ToolError(
      `The window ${asked} starts more than 24 hours from now; the forecasts reach 24 hours ahead (to about ${localWhen(nowMs + FORECAST_REACH_MS, port.timeZone)}). For a typical week, leave out depart_between.`,
    );
  }
  const body = await loadForecast(deps.readApi, port.id);
  const empty = {
    from: localClock(fromMs, port.timeZone),
    to: localClock(toMs, port.timeZone),
    fromAt: new Date(fromMs).toISOString(),
    toAt: new Date(toMs).toISOString(),
    issuedAt: body.issuedAt,
    options: [],
    best: null,
  };
  const found = findLane(body, lane);
  if (!found)
    return { ...empty, reason: `no forecast for ${lane.mode} ${lane.lane} ${lane.direction} at this port` };
  if (found.points.length === 0) return { ...empty, reason: found.reason ?? 'no forecast for this lane' };
  const startMs = Math.max(fromMs, nowMs);
  const options = found.points
    .filter((p) => Date.parse(p.at) >= startMs && Date.parse(p.at) <= toMs)
    .map((p) => {
      const skill = found.skill.find((s) => s.horizonMinutes === p.horizonMinutes)?.published ?? null;
      return {
        at: p.at,
        localTime: localClock(Date.parse(p.at), port.timeZone),
        delayMinutes: p.delayMinutes,
        low: p.low,
        high: p.high,
        method: p.method,
        horizonMinutes: p.horizonMinutes,
        skill: skill && skill.n > 0 ? skill : null,
      };
    })
    .sort((a, b) => a.delayMinutes - b.delayMinutes || a.at.localeCompare(b.at));
  const last = found.points.at(-1)?.at;
  return {
    ...empty,
    options,
    best: options[0] ?? null,
    reason:
      options.length > 0
        ? null
        : `no forecast point falls in the window: the forecast issued ${found.issuedAt} has points from ${found.points[0]?.at} to ${last}${last ? ` (${localWhen(Date.parse(last), port.timeZone)})` : ''}`,
  };
}

/** A window as a traveller reads it: `Sat 28 Nov 06:00-10:00 Pacific Time`, each date named. */
function windowLabel(fromMs: number, toMs: number, timeZone: string): string {
  const fromDay = localDay(fromMs, timeZone);
  const toDay = localDay(toMs, timeZone);
  const from = `${fromDay} ${localClock(fromMs, timeZone)}`;
  const to =
    toDay === fromDay ? `-${localClock(toMs, timeZone)}` : ` to ${toDay} ${localClock(toMs, timeZone)}`;
  return `${from}${to} ${zoneName(timeZone)}`;
}
