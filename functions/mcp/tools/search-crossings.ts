import * as z from 'zod';
import { placeName } from '../../core/catalogue/place-name.ts';
import { zoneName } from '../../core/time.ts';
import { searchCrossings } from '../../core/trips/crossings.ts';
import { GeoPointSchema, PortSchema } from '../../core/views/api-schemas.ts';
import { PortsQuerySchema } from '../../core/views/queries.ts';
import { defineTool } from '../define-tool.ts';
import { closed, nearOf, sentences } from '../tool-kit.ts';

const InputSchema = PortsQuerySchema.extend({
  query: z
    .string()
    .min(1)
    .max(80)
    .optional()
    .describe(
      'Words to match in the port name, crossing, US city or the twin city across (e.g. "tijuana", "peace arch")',
    ),
  state: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'a two-letter US state code')
    .optional()
    .describe('US state of the crossing, two letters (e.g. TX)'),
  near: z
    .object({
      lat: z.number().min(-90).max(90).describe('Latitude, decimal degrees'),
      lon: z.number().min(-180).max(180).describe('Longitude, decimal degrees'),
      radius_km: z
        .number()
        .positive()
        .max(2000)
        .default(100)
        .describe('Search radius in kilometres, default 100'),
    })
    .optional()
    .describe('Only crossings with a known location within the radius, nearest first'),
  limit: z.number().int().min(1).max(100).default(20).describe('Most crossings to return, default 20'),
});

/** A port as the API lists it, less what an assistant does not need, plus its distance from `near`. */
const CrossingSchema = closed(
  PortSchema.omit({ twinRegion: true, hours: true, cbsaOffices: true, bwtId: true, catalogued: true }),
).extend({
  twinCity: PortSchema.shape.twinCity.unwrap(),
  location: closed(GeoPointSchema)
    .nullable()
    .describe(PortSchema.shape.location.description ?? ''),
  distanceKm: z.number().nullable().describe('Kilometres from the given point (near searches only)'),
});

const OutputSchema = z.object({
  generatedAt: z.string(),
  source: z.string(),
  count: z.number().int(),
  crossings: z.array(CrossingSchema),
});

export const searchCrossingsTool = defineTool({
  name: 'search_crossings',
  title: 'Search border crossings',
  description:
    'Find US land ports of entry on the Mexican (mx) and Canadian (ca) borders by name, city or twin city, ' +
    'US state, border, or near a latitude/longitude. Returns ids and slugs for the other tools, time zones ' +
    'and locations (null when no public source gives one). Static catalogue data, no wait times. ' +
    'Anonymous: no sign-in needed.',
  input: InputSchema,
  output: OutputSchema,
  async run({ input }, deps) {
    const crossings = searchCrossings(await deps.readApi.listPorts(), {
      query: input.query,
      border: input.border,
      state: input.state,
      near: nearOf(input.near),
      limit: input.limit,
    });
    return {
      structured: {
        generatedAt: new Date(deps.clock.now()).toISOString(),
        source: 'port catalogue (CBP port list, CBSA offices)',
        count: crossings.length,
        crossings,
      },
      text:
        crossings.length === 0
          ? 'No crossing matches; try fewer words, another spelling, or a wider radius.'
          : sentences(
              `${crossings.length} crossing(s): ${crossings
                .slice(0, 5)
                .map(
                  (c) =>
                    `${placeName(c)} (id ${c.id}, ${zoneName(c.timeZone)}${c.distanceKm === null ? '' : `, ${c.distanceKm} km away`})`,
                )
                .join('; ')}${crossings.length > 5 ? `; and ${crossings.length - 5} more` : ''}`,
            ),
    };
  },
});
