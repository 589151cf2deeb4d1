import * as z from 'zod';
import { refreshLane } from '../../core/crossings.ts';
import { FRESHNESS_POLICY } from '../../core/freshness.ts';
import { DIRECTIONS, FRESHNESS, LANE_STATUSES, LANES, MODES, SOURCES } from '../../core/model.ts';
import { ObservationsQuerySchema } from '../../core/queries.ts';
import {
  findPublishedPort,
  guarded,
  liberal,
  loadCurrent,
  ok,
  READ_ONLY,
  type ToolRegistrar,
  unknownPort,
} from '../tool-kit.ts';

const InputSchema = ObservationsQuerySchema.pick({ port_id: true, direction: true, mode: true, lane: true });

export const LaneWaitSchema = z.object({
  direction: z.enum(DIRECTIONS),
  mode: z.enum(MODES),
  lane: z.enum(LANES),
  status: z.enum(LANE_STATUSES),
  delayMinutes: z.number().nullable().describe('Wait in minutes; null when the source gave no number'),
  lanesOpen: z.number().nullable(),
  maxLanes: z.number().nullable(),
  observedAt: z.string().nullable().describe("The reading's own time (UTC)"),
  fetchedAt: z.string(),
  ageMinutes: z.number().describe('Minutes since observedAt (or fetchedAt when the lane has no time)'),
  freshness: z.enum(FRESHNESS),
  source: z.enum(SOURCES),
});

const OutputSchema = z.object({
  portId: z.string(),
  name: z.string(),
  timeZone: z.string(),
  generatedAt: z.string().describe('When this answer was computed (freshness is as of then)'),
  publishedAt: z.string().nullable().describe('When the current view was last published by the ingest'),
  source: z.string(),
  status: z.enum(['open', 'closed', 'unknown']),
  updatedAt: z.string().nullable(),
  notice: z.string().nullable(),
  freshnessPolicy: z.object({ freshMinutes: z.number(), staleMinutes: z.number() }),
  lanes: z.array(LaneWaitSchema),
});

export const registerGetCurrentWaits: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'get_current_waits',
    {
      title: 'Current wait times at a crossing',
      description:
        'Current waits in minutes per lane at one port of entry: into-us from CBP, into-canada from CBSA ' +
        '(Mexico-bound waits have no official feed). Each lane has its own observedAt, age in minutes and ' +
        'freshness (fresh up to 75 min, stale up to 180 min, then expired); statuses such as update-pending ' +
        'or lanes-closed are kept, never turned into 0. Filter by direction, mode or lane. Anonymous.',
      inputSchema: liberal(InputSchema),
      outputSchema: OutputSchema,
      annotations: READ_ONLY,
    },
    async (input) =>
      guarded(async () => {
        const port = await findPublishedPort(deps, input.port_id);
        if (!port) return unknownPort(input.port_id);
        const nowMs = deps.clock.now();
        const current = await loadCurrent(deps);
        const portCurrent = current?.byPort.get(port.id);
        const lanes = (portCurrent?.lanes ?? [])
          .filter(
            (l) =>
              (!input.direction || l.direction === input.direction) &&
              (!input.mode || l.mode === input.mode) &&
              (!input.lane || l.lane === input.lane),
          )
          .map((l) => refreshLane(l, nowMs));
        const source = [...new Set(port.directions.map((d) => (d === 'into-us' ? 'cbp' : 'cbsa')))];
        const summary = lanes
          .slice(0, 6)
          .map(
            (l) =>
              `${l.direction} ${l.mode} ${l.lane}: ${l.delayMinutes === null ? l.status : `${l.delayMinutes} min`} (${l.freshness}, ${l.ageMinutes} min old)`,
          )
          .join('; ');
        return ok(
          OutputSchema,
          {
            portId: port.id,
            name: port.name,
            timeZone: port.timeZone,
            generatedAt: new Date(nowMs).toISOString(),
            publishedAt: current?.generatedAt ?? null,
            source: source
              .map((s) => (s === 'cbp' ? 'US CBP border wait times' : 'CBSA border wait times'))
              .join(', '),
            status: portCurrent?.status ?? 'unknown',
            updatedAt: portCurrent?.updatedAt ?? null,
            notice: portCurrent?.notice ?? null,
            freshnessPolicy: FRESHNESS_POLICY[source[0] === 'cbsa' ? 'cbsa' : 'cbp'],
            lanes,
          },
          lanes.length === 0
            ? `${port.name}: no current readings${current ? ' for this filter' : ' yet (the first ingest has not run)'}.`
            : `${port.name}${portCurrent?.status === 'closed' ? ' (port closed)' : ''}: ${summary}`,
        );
      }),
  );
};
