import * as z from 'zod';
import { DIRECTIONS, LANE_STATUSES, LANES, MODES, RETENTION_HOURS, SOURCES } from '../../core/model.ts';
import { ObservationsQuerySchema } from '../../core/queries.ts';
import {
  findPublishedPort,
  guarded,
  liberal,
  loadAverages,
  ok,
  READ_ONLY,
  requireScope,
  type ToolRegistrar,
  unknownPort,
} from '../tool-kit.ts';

/** Observations one answer carries at most (the rest follow with `cursor`). */
const MAX_HISTORY = 2_000;

const InputSchema = ObservationsQuerySchema.pick({
  port_id: true,
  direction: true,
  mode: true,
  lane: true,
  cursor: true,
}).extend({
  hours: z
    .number()
    .int()
    .min(1)
    .max(RETENTION_HOURS)
    .default(24)
    .describe(`Look-back window in hours, 1-${RETENTION_HOURS} (raw observations are kept 14 days)`),
  include_averages: z
    .boolean()
    .default(true)
    .describe('Also return the hourly averages (port-local day and hour)'),
});

const OutputSchema = z.object({
  portId: z.string(),
  name: z.string(),
  timeZone: z.string(),
  generatedAt: z.string(),
  source: z.string(),
  from: z.string(),
  to: z.string(),
  hours: z.number().int(),
  retentionHours: z.number().int(),
  count: z.number().int(),
  truncated: z.boolean().describe('True when more observations follow: call again with cursor = nextCursor'),
  nextCursor: z
    .string()
    .nullable()
    .describe('Pass as `cursor` (with the same other arguments) for the next page; null on the last page'),
  observations: z.array(
    z.object({
      direction: z.enum(DIRECTIONS),
      mode: z.enum(MODES),
      lane: z.enum(LANES),
      status: z.enum(LANE_STATUSES),
      delayMinutes: z.number().nullable(),
      lanesOpen: z.number().nullable(),
      maxLanes: z.number().nullable(),
      observedAt: z.string(),
      source: z.enum(SOURCES),
    }),
  ),
  averages: z.array(
    z.object({
      direction: z.enum(DIRECTIONS),
      mode: z.enum(MODES),
      lane: z.enum(LANES),
      dayOfWeek: z.number().int(),
      hour: z.number().int(),
      averageDelayMinutes: z.number(),
      medianDelayMinutes: z.number().nullable().default(null),
      samples: z.number().int(),
    }),
  ),
});

export const registerGetWaitHistory: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'get_wait_history',
    {
      title: 'Wait history of a crossing',
      description:
        `Observed waits (minutes, each with its observedAt in UTC and source) at one crossing over the last 1-${RETENTION_HOURS} ` +
        'hours, oldest first, plus the hourly averages (mean and exact median) by port-local day of week and hour with sample counts. ' +
        `At most ${MAX_HISTORY} observations per call: when nextCursor is not null, call again with cursor = nextCursor for the next ` +
        'page (every observation of the window comes exactly once). Requires a Business plan (sign-in, scope "history").',
      inputSchema: liberal(InputSchema),
      outputSchema: OutputSchema,
      annotations: READ_ONLY,
    },
    async (input, ctx) =>
      guarded(async () => {
        const owner = requireScope(ctx.http?.authInfo, 'history', deps.settings.upgradeUrl);
        if (typeof owner !== 'string') return owner;
        const port = await findPublishedPort(deps, input.port_id);
        if (!port) return unknownPort(input.port_id);
        const result = await deps.readApi.observations(
          {
            port_id: port.id,
            hours: input.hours,
            direction: input.direction,
            mode: input.mode,
            lane: input.lane,
            cursor: input.cursor,
          },
          MAX_HISTORY,
        );
        const body = result.body;
        const kept = body.observations;
        const averages = input.include_averages
          ? (await loadAverages(deps.readApi, port.id)).filter(
              (a) =>
                (!input.direction || a.direction === input.direction) &&
                (!input.mode || a.mode === input.mode) &&
                (!input.lane || a.lane === input.lane),
            )
          : [];
        return ok(
          OutputSchema,
          {
            portId: port.id,
            name: port.name,
            timeZone: port.timeZone,
            generatedAt: new Date(deps.clock.now()).toISOString(),
            source: 'stored observations of the CBP and CBSA feeds',
            from: body.from,
            to: body.to,
            hours: body.hours,
            retentionHours: body.retentionHours,
            count: kept.length,
            truncated: result.nextCursor !== null,
            nextCursor: result.nextCursor,
            observations: kept,
            averages,
          },
          `${port.name}: ${kept.length} observation(s) from ${body.from} to ${body.to}, ${averages.length} hourly average bucket(s).` +
            (result.nextCursor === null ? '' : ' More follow: call again with cursor = nextCursor.'),
        );
      }),
  );
};
