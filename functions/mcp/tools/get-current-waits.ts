import * as z from 'zod';
import { placeName } from '../../core/catalogue/place-name.ts';
import { FRESHNESS_POLICY } from '../../core/freshness.ts';
import { zoneName } from '../../core/time.ts';
import { refreshLane } from '../../core/trips/crossings.ts';
import { LaneWaitSchema, ThresholdsSchema } from '../../core/views/api-schemas.ts';
import { ObservationsQuerySchema } from '../../core/views/queries.ts';
import { defineTool } from '../define-tool.ts';
import { closed, laneFilter, loadCurrent, PortAnswerSchema, portAnswer, sentences } from '../tool-kit.ts';

const InputSchema = ObservationsQuerySchema.pick({ port_id: true, direction: true, mode: true, lane: true });

/** The API's LaneWait, with the time it was read and its age as of this answer. */
const LaneSchema = closed(LaneWaitSchema).extend({
  fetchedAt: z.string(),
  ageMinutes: z.number().describe('Minutes since observedAt (or fetchedAt when the lane has no time)'),
});

const OutputSchema = PortAnswerSchema.extend({
  generatedAt: z.string().describe('When this answer was computed (freshness is as of then)'),
  publishedAt: z.string().nullable().describe('When the current view was last published by the ingest'),
  status: z.enum(['open', 'closed', 'unknown']),
  updatedAt: z.string().nullable(),
  notice: z.string().nullable(),
  freshnessPolicy: closed(ThresholdsSchema),
  lanes: z.array(LaneSchema),
});

export const getCurrentWaitsTool = defineTool({
  name: 'get_current_waits',
  title: 'Current wait times at a crossing',
  description:
    'Current waits in minutes per lane at one port of entry: into-us from CBP, into-canada from CBSA ' +
    '(Mexico-bound waits have no official feed). Each lane has its own observedAt, age in minutes and ' +
    'freshness (fresh up to 75 min, stale up to 180 min, then expired); statuses such as update-pending ' +
    'or lanes-closed are kept, never turned into 0. Filter by direction, mode or lane. Anonymous.',
  input: InputSchema,
  output: OutputSchema,
  port: 'port_id',
  async run({ input, port }, deps) {
    const nowMs = deps.clock.now();
    const current = await loadCurrent(deps);
    const portCurrent = current?.byPort.get(port.id);
    const lanes = (portCurrent?.lanes ?? []).filter(laneFilter(input)).map((l) => refreshLane(l, nowMs));
    const sources = [...new Set(port.directions.map((d) => (d === 'into-us' ? 'cbp' : 'cbsa')))];
    const summary = lanes
      .slice(0, 6)
      .map(
        (l) =>
          `${l.direction} ${l.mode} ${l.lane}: ${l.delayMinutes === null ? l.status : `${l.delayMinutes} min`} (${l.freshness}, ${l.ageMinutes} min old)`,
      )
      .join('; ');
    return {
      structured: {
        ...portAnswer(
          port,
          nowMs,
          sources
            .map((s) => (s === 'cbp' ? 'US CBP border wait times' : 'CBSA border wait times'))
            .join(', '),
        ),
        publishedAt: current?.generatedAt ?? null,
        status: portCurrent?.status ?? ('unknown' as const),
        updatedAt: portCurrent?.updatedAt ?? null,
        notice: portCurrent?.notice ?? null,
        freshnessPolicy: FRESHNESS_POLICY[sources[0] === 'cbsa' ? 'cbsa' : 'cbp'],
        lanes,
      },
      text: sentences(
        lanes.length === 0
          ? `${placeName(port)}: no current readings${current ? ' for this filter' : ' yet (the first ingest has not run)'}`
          : `${placeName(port)}${portCurrent?.status === 'closed' ? ', port closed' : ''} (${zoneName(port.timeZone)}): ${summary}${lanes.length > 6 ? `; and ${lanes.length - 6} more lane(s)` : ''}`,
      ),
    };
  },
});
