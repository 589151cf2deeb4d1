import * as z from 'zod';
import { placeName } from '../../core/catalogue/place-name.ts';
import { RETENTION_HOURS } from '../../core/model.ts';
import {
  HourlyAverageSchema,
  ObservationSchema,
  ObservationsBodySchema,
} from '../../core/views/api-schemas.ts';
import { ObservationsQuerySchema } from '../../core/views/queries.ts';
import { defineTool } from '../define-tool.ts';
import {
  closed,
  laneFilter,
  loadAverages,
  lookBackHours,
  PortAnswerSchema,
  portAnswer,
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
  hours: lookBackHours(`Look-back window in hours, 1-${RETENTION_HOURS} (raw observations are kept 14 days)`),
  include_averages: z
    .boolean()
    .default(true)
    .describe('Also return the hourly averages (port-local day and hour)'),
});

const body = ObservationsBodySchema.shape;

const OutputSchema = PortAnswerSchema.extend({
  from: body.from,
  to: body.to,
  hours: body.hours,
  retentionHours: body.retentionHours,
  count: body.count,
  truncated: z.boolean().describe('True when more observations follow: call again with cursor = nextCursor'),
  nextCursor: z
    .string()
    .nullable()
    .describe('Pass as `cursor` (with the same other arguments) for the next page; null on the last page'),
  observations: z.array(
    closed(ObservationSchema).extend({ maxLanes: ObservationSchema.shape.maxLanes.unwrap() }),
  ),
  averages: z.array(
    closed(HourlyAverageSchema.omit({ portId: true })).extend({
      medianDelayMinutes: HourlyAverageSchema.shape.medianDelayMinutes.default(null),
    }),
  ),
});

export const getWaitHistoryTool = defineTool({
  name: 'get_wait_history',
  title: 'Wait history of a crossing',
  description:
    `Observed waits (minutes, each with its observedAt in UTC and source) at one crossing over the last 1-${RETENTION_HOURS} ` +
    'hours, oldest first, plus the hourly averages (mean and exact median) by port-local day of week and hour with sample counts. ' +
    `At most ${MAX_HISTORY} observations per call: when nextCursor is not null, call again with cursor = nextCursor for the next ` +
    'page (every observation of the window comes exactly once). Requires a Business plan (sign-in, scope "history").',
  input: InputSchema,
  output: OutputSchema,
  scope: 'history',
  port: 'port_id',
  async run({ input, port }, deps) {
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
    const page = result.body;
    const averages = input.include_averages
      ? (await loadAverages(deps.readApi, port.id)).filter(laneFilter(input))
      : [];
    return {
      structured: {
        ...portAnswer(port, deps.clock.now(), 'stored observations of the CBP and CBSA feeds'),
        from: page.from,
        to: page.to,
        hours: page.hours,
        retentionHours: RETENTION_HOURS as typeof RETENTION_HOURS,
        count: page.observations.length,
        truncated: result.nextCursor !== null,
        nextCursor: result.nextCursor,
        observations: page.observations,
        averages,
      },
      text:
        `${placeName(port)}: ${page.observations.length} observation(s) from ${page.from} to ${page.to}, ${averages.length} hourly average bucket(s).` +
        (result.nextCursor === null ? '' : ' More follow: call again with cursor = nextCursor.'),
    };
  },
});
