import * as z from 'zod';
import { compareCrossings, searchCrossings } from '../../core/crossings.ts';
import { BORDERS, DIRECTIONS, FRESHNESS, LANES, MODES, SOURCES } from '../../core/model.ts';
import { PortIdSchema } from '../../core/queries.ts';
import type { PublishedPort } from '../../core/views.ts';
import {
  guarded,
  loadCurrent,
  loadPorts,
  ok,
  READ_ONLY,
  type ToolRegistrar,
  toolError,
  unknownPort,
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
});

const OutputSchema = z.object({
  generatedAt: z.string(),
  publishedAt: z.string().nullable(),
  source: z.string(),
  direction: z.enum(DIRECTIONS),
  mode: z.enum(MODES),
  lanes: z.array(z.enum(LANES)),
  ranked: z.array(
    z.object({
      rank: z.number().int(),
      portId: z.string(),
      name: z.string(),
      crossing: z.string().nullable(),
      lane: z.enum(LANES),
      delayMinutes: z.number(),
      lanesOpen: z.number().nullable(),
      observedAt: z.string().nullable(),
      freshness: z.enum(FRESHNESS),
      ageMinutes: z.number(),
      source: z.enum(SOURCES),
    }),
  ),
  excluded: z.array(z.object({ portId: z.string(), name: z.string(), reason: z.string() })),
});

export const registerCompareCrossings: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'compare_crossings',
    {
      title: 'Compare crossings now',
      description:
        'Rank crossings by the shortest current wait (minutes) for a direction and mode over the lanes the ' +
        'traveller may use. Only open lanes with a published number count; stale readings only with ' +
        'include_stale, expired ones never; each result carries its observedAt, age and freshness, and ' +
        'crossings left out are listed with the reason. Choose crossings by port_ids, border, state or near. ' +
        'Anonymous.',
      inputSchema: InputSchema,
      outputSchema: OutputSchema,
      annotations: READ_ONLY,
    },
    async (input) =>
      guarded(async () => {
        const ports = await loadPorts(deps);
        let candidates: PublishedPort[];
        if (input.port_ids) {
          candidates = [];
          for (const id of input.port_ids) {
            const port = ports.find((p) => p.id === id) ?? ports.find((p) => p.slug === id.toLowerCase());
            if (!port) return unknownPort(id);
            if (!candidates.includes(port)) candidates.push(port);
          }
        } else if (input.border || input.state || input.near) {
          const ids = new Set(
            searchCrossings(ports, {
              border: input.border,
              state: input.state,
              near: input.near && {
                lat: input.near.lat,
                lon: input.near.lon,
                radiusKm: input.near.radius_km,
              },
              limit: 200,
            }).map((m) => m.id),
          );
          candidates = ports.filter((p) => ids.has(p.id));
        } else {
          return toolError('Say which crossings to compare: port_ids (2 or more), border, state or near.');
        }
        candidates = candidates.filter((p) => p.directions.includes(input.direction));
        if (candidates.length === 0) {
          return toolError(`None of those crossings has ${input.direction} wait times.`);
        }
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
        const top = ranked.slice(0, input.limit);
        return ok(
          OutputSchema,
          {
            generatedAt: new Date(nowMs).toISOString(),
            publishedAt: current?.generatedAt ?? null,
            source: input.direction === 'into-us' ? 'US CBP border wait times' : 'CBSA border wait times',
            direction: input.direction,
            mode: input.mode,
            lanes: input.lanes,
            ranked: top,
            excluded,
          },
          top.length === 0
            ? `No crossing has a usable ${input.mode} reading now (${excluded.length} left out; see excluded).`
            : `Shortest now: ${top
                .slice(0, 3)
                .map((r) => `${r.rank}. ${r.name} ${r.delayMinutes} min (${r.lane}, ${r.ageMinutes} min old)`)
                .join('; ')}`,
        );
      }),
  );
};
