import * as z from 'zod';
import { bestTimes } from '../../core/crossings.ts';
import { DIRECTIONS, LANES, MODES } from '../../core/model.ts';
import { PortIdSchema } from '../../core/queries.ts';
import {
  findPublishedPort,
  guarded,
  loadAverages,
  ok,
  READ_ONLY,
  type ToolRegistrar,
  toolError,
  unknownPort,
} from '../tool-kit.ts';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const InputSchema = z.object({
  port_id: PortIdSchema,
  direction: z.enum(DIRECTIONS).describe('into-us (CBP) or into-canada (CBSA)'),
  mode: z.enum(MODES).default('passenger'),
  lane: z.enum(LANES).default('standard'),
  day_of_week: z
    .number()
    .int()
    .min(0)
    .max(6)
    .optional()
    .describe('Port-local day, 0 = Sunday; leave out for the whole week'),
  min_samples: z.number().int().min(1).max(1000).default(2).describe('Ignore hours with fewer samples'),
  limit: z.number().int().min(1).max(24).default(5),
});

const BucketSchema = z.object({
  dayOfWeek: z.number().int(),
  day: z.string(),
  hour: z.number().int().describe('Port-local hour, 0-23'),
  averageDelayMinutes: z.number(),
  samples: z.number().int(),
});

const OutputSchema = z.object({
  portId: z.string(),
  name: z.string(),
  timeZone: z.string().describe('Days and hours are in this zone'),
  generatedAt: z.string(),
  source: z.string(),
  direction: z.enum(DIRECTIONS),
  mode: z.enum(MODES),
  lane: z.enum(LANES),
  bucketsConsidered: z.number().int(),
  best: z.array(BucketSchema),
  worst: BucketSchema.nullable(),
});

export const registerBestTimeToCross: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'best_time_to_cross',
    {
      title: 'Best time to cross',
      description:
        'The hours with the lowest average wait (minutes) at one crossing, from hourly averages by day of ' +
        "week and hour in the port's own time zone, with the sample count of each hour. Averages are rebuilt " +
        'after each ingest from the observations; they describe the past, not a forecast. Anonymous.',
      inputSchema: InputSchema,
      outputSchema: OutputSchema,
      annotations: READ_ONLY,
    },
    async (input) =>
      guarded(async () => {
        const port = await findPublishedPort(deps, input.port_id);
        if (!port) return unknownPort(input.port_id);
        if (!port.directions.includes(input.direction)) {
          return toolError(
            `${port.name} has no ${input.direction} wait times; it has ${port.directions.join(', ')}.`,
          );
        }
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
        return ok(
          OutputSchema,
          {
            portId: port.id,
            name: port.name,
            timeZone: port.timeZone,
            generatedAt: new Date(deps.clock.now()).toISOString(),
            source: 'hourly averages of stored observations',
            direction: input.direction,
            mode: input.mode,
            lane: input.lane,
            bucketsConsidered: buckets,
            best: rows,
            worst: worst ? withDay(worst) : null,
          },
          rows.length === 0
            ? `${port.name}: no hourly averages with at least ${input.min_samples} samples yet for ${input.mode} ${input.lane} ${input.direction}.`
            : `${port.name} (${port.timeZone}), lowest averages: ${rows
                .map(
                  (r) =>
                    `${r.day} ${String(r.hour).padStart(2, '0')}:00 ${r.averageDelayMinutes} min (${r.samples} samples)`,
                )
                .join('; ')}`,
        );
      }),
  );
};
