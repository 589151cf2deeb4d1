/**
 * Response bodies of `/api/v1` and the key-request endpoint as zod schemas: the OpenAPI document
 * (functions/http/openapi.ts) is generated from these and from the query schemas in queries.ts,
 * and the integration suite validates every response against that document. Objects are loose:
 * fields are fixed by DESIGN.md section 4, and more may be added within v1.
 */
import * as z from 'zod';
import { KeyRequestInputSchema } from '../access/key-requests.ts';
import { FRESHNESS_POLICY } from '../freshness.ts';
import {
  BORDERS,
  DIRECTIONS,
  FRESHNESS,
  LANE_STATUSES,
  LANES,
  METHODS,
  type Method,
  MODES,
  RETENTION_HOURS,
  SOURCES,
} from '../model.ts';
import { problemType } from '../problems.ts';
import { REASON_CODES } from './reason-codes.ts';

const Timestamp = z.iso.datetime().describe('UTC, ISO 8601');

/** `T` without the index signatures loose objects add, at every depth. */
type Named<T> = T extends readonly (infer E)[]
  ? Named<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Named<T[K]> }
    : T;

/**
 * The type of a response body: `z.output` of its schema with only the fields the schema names (a
 * loose object's index signature says that more may come, which a reader cannot use and a writer
 * need not). The view types are these, so a body and its schema cannot disagree.
 */
export type BodyOf<S extends z.ZodType> = Named<z.output<S>>;

/**
 * `BodyOf<S>` with the fields `K` always present. The schemas require the fields DESIGN.md fixes
 * and leave this service's additions optional (a client may not count on them); the code that
 * writes a body sends them all, and its readers in this service may count on them.
 */
export type Written<S extends z.ZodType, K extends keyof BodyOf<S>> = Omit<BodyOf<S>, K> & {
  [P in K]-?: Exclude<BodyOf<S>[P], undefined>;
};

/** Example values, shared by the schemas and the OpenAPI responses (redocly checks them). */
export const PORT_EXAMPLE = {
  id: '250401',
  slug: 'san-ysidro',
  name: 'San Ysidro',
  crossing: 'San Ysidro',
  border: 'mx',
  state: 'CA',
  city: 'San Diego',
  timeZone: 'America/Los_Angeles',
  location: { lat: 32.5422, lon: -117.0297 },
  hours: '24 hrs/day',
  directions: ['into-us'],
} as const;

export const LANE_WAIT_EXAMPLE = {
  direction: 'into-us',
  mode: 'passenger',
  lane: 'standard',
  status: 'open',
  delayMinutes: 45,
  lanesOpen: 12,
  maxLanes: 25,
  observedAt: '2026-11-18T20:00:00Z',
  freshness: 'fresh',
  source: 'cbp',
} as const;

/** The same reading as an observation: no lane capacity or freshness. */
const { maxLanes: _maxLanes, freshness: _freshness, ...OBSERVATION_EXAMPLE } = LANE_WAIT_EXAMPLE;

const GENERATED_AT = '2026-11-18T20:10:00.000Z';
const LEVELS_EXAMPLE = [
  { level: '0-5' as const, coverage: 0.82, n: 900 },
  { level: '5-15' as const, coverage: 0.8, n: 700 },
  { level: '15-45' as const, coverage: 0.79, n: 600 },
  { level: '45+' as const, coverage: 0.78, n: 200 },
];

/** A body example per view. */
export const BODY_EXAMPLES = {
  ports: { generatedAt: GENERATED_AT, count: 1, ports: [PORT_EXAMPLE] },
  current: {
    generatedAt: GENERATED_AT,
    count: 1,
    freshnessPolicy: FRESHNESS_POLICY,
    current: [{ portId: '250401', ...LANE_WAIT_EXAMPLE }],
  },
  observations: {
    portId: '250401',
    hours: 24,
    retentionHours: RETENTION_HOURS,
    from: '2026-11-17T20:10:00.000Z',
    to: GENERATED_AT,
    count: 1,
    truncated: false,
    next: null,
    observations: [OBSERVATION_EXAMPLE],
  },
  typical: {
    generatedAt: GENERATED_AT,
    portId: '250401',
    source: 'cbp',
    fetchedAt: '2026-11-18T06:00:00.000Z',
    typical: [
      {
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        dayOfWeek: 3,
        hour: 8,
        averageMinutes: 55,
        minMinutes: 20,
        maxMinutes: 110,
      },
    ],
  },
  forecast: {
    generatedAt: GENERATED_AT,
    portId: '250401',
    issuedAt: '2026-11-18T20:00:00.000Z',
    recordDays: 28,
    minimumN: 50,
    horizonsMinutes: [15, 30, 45, 60, ...Array.from({ length: 23 }, (_, i) => 120 + 60 * i)],
    lanes: [
      {
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        issuedAt: '2026-11-18T20:00:00.000Z',
        reading: { delayMinutes: 45, observedAt: '2026-11-18T20:00:00.000Z' },
        method: 'model',
        reason: 'lowest mean absolute error over the last 28 days (n=2400)',
        reasonCodes: ['champion-lowest-error'],
        points: [
          {
            at: '2026-11-18T20:15:00.000Z',
            horizonMinutes: 15,
            delayMinutes: 45,
            low: 40,
            high: 52.5,
            method: 'model',
          },
        ],
        skill: [
          {
            horizonMinutes: 15,
            champion: 'model',
            model: { mae: 3.1, bias: 0.2, coverage: 0.81, n: 2400 },
            persistence: { mae: 3.4, bias: 0.1, coverage: 0.79, n: 2400 },
            profile: { mae: 7.9, bias: -0.5, coverage: 0.8, n: 2400 },
            published: { mae: 3.1, bias: 0.2, coverage: 0.81, n: 2400, coverageByLevel: LEVELS_EXAMPLE },
          },
        ],
      },
    ],
  },
  averages: [
    {
      portId: '250401',
      direction: 'into-us',
      mode: 'passenger',
      lane: 'standard',
      dayOfWeek: 3,
      hour: 14,
      averageDelayMinutes: 52.5,
      medianDelayMinutes: 50,
      samples: 12,
    },
  ],
} as const;
const Minutes = z.int().min(0);

export const GeoPointSchema = z.looseObject({ lat: z.number(), lon: z.number() }).meta({ id: 'GeoPoint' });

export const PortSchema = z
  .looseObject({
    id: z.string().describe('CBP port number (250401), or cbsa-<slug> for a CBSA-only office'),
    slug: z.string(),
    name: z.string(),
    crossing: z.string().nullable(),
    border: z.enum(BORDERS),
    state: z.string().describe('US state (two letters) of the US side'),
    city: z.string(),
    twinCity: z.string().nullable().optional(),
    twinRegion: z.string().nullable().optional(),
    timeZone: z.string().describe('IANA time zone of the port'),
    location: GeoPointSchema.nullable().describe('Only where a public source gives one; never invented'),
    hours: z.string().nullable().describe('Opening hours as published by CBP'),
    directions: z.array(z.enum(DIRECTIONS)),
    cbsaOffices: z.array(z.string()).optional(),
    bwtId: z.string().nullable().optional(),
    catalogued: z.boolean().optional().describe('False for a port a feed showed that the catalogue lacks'),
  })
  .meta({
    id: 'Port',
    examples: [PORT_EXAMPLE],
  });

const laneFields = {
  direction: z.enum(DIRECTIONS),
  mode: z.enum(MODES),
  lane: z.enum(LANES),
  status: z.enum(LANE_STATUSES),
  delayMinutes: Minutes.nullable().describe('Minutes; null unless the lane is open with a number'),
  lanesOpen: Minutes.nullable(),
  observedAt: Timestamp.nullable().describe("The source's own time of the reading"),
  source: z.enum(SOURCES),
};

export const LaneWaitSchema = z
  .looseObject({
    ...laneFields,
    maxLanes: Minutes.nullable(),
    fetchedAt: Timestamp.optional(),
    freshness: z.enum(FRESHNESS).describe('From the age of the reading; thresholds in freshnessPolicy'),
  })
  .meta({
    id: 'LaneWait',
    examples: [LANE_WAIT_EXAMPLE],
  });

export const CurrentSchema = z
  .looseObject({
    status: z.enum(['open', 'closed']),
    updatedAt: Timestamp.describe(
      "The newest observedAt of the port's lanes (when no lane has one, the newest fetchedAt)",
    ),
    notice: z.string().nullable(),
    lanes: z.array(LaneWaitSchema),
  })
  .meta({ id: 'Current' });

export const ObservationSchema = z
  .looseObject({ ...laneFields, observedAt: Timestamp, maxLanes: Minutes.nullable().optional() })
  .meta({ id: 'Observation' });

export const HourlyAverageSchema = z
  .looseObject({
    portId: z.string(),
    direction: z.enum(DIRECTIONS),
    mode: z.enum(MODES),
    lane: z.enum(LANES),
    dayOfWeek: z.int().min(0).max(6).describe('0 = Sunday, port-local'),
    hour: z.int().min(0).max(23).describe('Port-local hour'),
    averageDelayMinutes: z.number().min(0).describe('Mean of the samples, rounded to 0.1 minute'),
    medianDelayMinutes: z
      .number()
      .min(0)
      .nullable()
      .describe('Exact median of the samples (null only for aggregates older than medians)'),
    samples: z.int().min(1),
  })
  .meta({ id: 'HourlyAverage' });

export const ThresholdsSchema = z.looseObject({ freshMinutes: z.number(), staleMinutes: z.number() });
const FreshnessPolicySchema = z
  .looseObject({ cbp: ThresholdsSchema, cbsa: ThresholdsSchema })
  .describe('Age thresholds (minutes) of fresh and stale per source')
  .meta({ id: 'FreshnessPolicy', examples: [FRESHNESS_POLICY] });

export const PortsBodySchema = z
  .looseObject({ generatedAt: Timestamp, count: z.int().min(0), ports: z.array(PortSchema) })
  .meta({ id: 'PortsBody' });

export const CurrentBodySchema = z
  .looseObject({
    generatedAt: Timestamp,
    count: z.int().min(0),
    freshnessPolicy: FreshnessPolicySchema.optional(),
    current: z.array(LaneWaitSchema.extend({ portId: z.string() })),
  })
  .meta({ id: 'CurrentBody', description: 'Without include: one entry per port lane' });

export const CurrentWithPortsBodySchema = z
  .looseObject({
    generatedAt: Timestamp,
    count: z.int().min(0),
    freshnessPolicy: FreshnessPolicySchema.optional(),
    ports: z.array(PortSchema.extend({ current: CurrentSchema })),
  })
  .meta({ id: 'CurrentWithPortsBody', description: 'With include=ports: each port with its current state' });

export const ObservationsBodySchema = z
  .looseObject({
    portId: z.string(),
    hours: z.int().min(1).max(RETENTION_HOURS),
    retentionHours: z.literal(RETENTION_HOURS),
    from: Timestamp,
    to: Timestamp,
    count: z.int().min(0),
    truncated: z.boolean().optional().describe('True when more pages follow (`next`)'),
    next: z
      .string()
      .nullable()
      .optional()
      .describe(
        'The next page (path and query, with its opaque `cursor`), also sent as `Link: <...>; rel="next"`; null on the last page',
      ),
    observations: z.array(ObservationSchema),
  })
  .meta({ id: 'ObservationsBody' });

export const AveragesBodySchema = z
  .array(HourlyAverageSchema)
  .meta({ id: 'AveragesBody', description: 'Empty until stored aggregates exist' });

const MethodSchema = z.enum(METHODS);

/** One schema per forecasting method, in the order of METHODS: the figures of each, side by side. */
function perMethod<S extends z.ZodType>(schema: S): Record<Method, S> {
  return Object.fromEntries(METHODS.map((method) => [method, schema])) as Record<Method, S>;
}

export const SkillFiguresSchema = z
  .looseObject({
    mae: z.number().min(0).nullable().describe('Mean absolute error, minutes (0.1); null when n is 0'),
    bias: z.number().nullable().describe('Mean of forecast - actual, minutes (0.1): positive means too high'),
    coverage: z.number().min(0).max(1).nullable().describe('Share of actuals inside the 80% interval'),
    n: z.int().min(0).describe('Forecasts scored in the last 28 days'),
    coverageByLevel: z
      .array(
        z.looseObject({
          level: z.enum(['0-5', '5-15', '15-45', '45+']).describe('The forecast level band, minutes'),
          coverage: z.number().min(0).max(1).nullable().describe('Share of actuals inside the 80% interval'),
          n: z.int().min(0),
        }),
      )
      .optional()
      .describe(
        'Coverage by the level of the forecast (a long wait needs a wider band), on the published series; empty before any',
      ),
  })
  .meta({ id: 'SkillFigures' });

export const ForecastPointSchema = z
  .looseObject({
    at: Timestamp.describe('Target time'),
    horizonMinutes: z
      .int()
      .min(15)
      .max(1440)
      .describe('Lead time: 15, 30, 45, 60 minutes, then hourly to a day'),
    delayMinutes: z.number().min(0).describe('Expected wait, minutes (0.1)'),
    low: z.number().min(0).describe('Lower end of the 80% interval'),
    high: z.number().min(0).describe('Upper end of the 80% interval'),
    method: MethodSchema.describe('The champion of this lane and horizon that produced the point'),
    holiday: z.string().optional().describe('The public holiday the target falls on'),
    prior: z
      .enum(['typical', 'blend'])
      .optional()
      .describe(
        "The model started from CBP's typical wait where our own profile is thin: alone (typical) or blended with ours",
      ),
  })
  .meta({ id: 'ForecastPoint' });

export const LaneForecastSchema = z
  .looseObject({
    direction: z.enum(DIRECTIONS),
    mode: z.enum(MODES),
    lane: z.enum(LANES),
    issuedAt: Timestamp,
    reading: z
      .looseObject({ delayMinutes: z.number().min(0), observedAt: Timestamp })
      .nullable()
      .describe('The reading the forecast starts from'),
    method: z
      .enum(['model', 'persistence', 'profile', 'mixed'])
      .nullable()
      .describe('Method of every point (mixed: differs by horizon); null when nothing is published'),
    reason: z.string().nullable().describe('Why this method, or why no forecast'),
    base: z
      .enum(['cbp-typical', 'blend'])
      .optional()
      .describe(
        "Present when the model started from CBP's typical wait (port-typical-waits) because our own history is thin: cbp-typical alone, or blend (weighted by our sample count)",
      ),
    reasonCodes: z
      .array(z.enum(REASON_CODES))
      .describe(
        'The reason as stable codes, one per part of `reason`, for clients that say it in another language (`other`: a part without a code yet)',
      ),
    points: z.array(ForecastPointSchema).describe('Empty when the lane has too little history or no reading'),
    skill: z.array(
      z.looseObject({
        horizonMinutes: z.int(),
        champion: MethodSchema.nullable(),
        ...perMethod(SkillFiguresSchema),
        published: SkillFiguresSchema.describe('What was actually published'),
      }),
    ),
  })
  .meta({ id: 'LaneForecast' });

export const ForecastBodySchema = z
  .looseObject({
    generatedAt: Timestamp.optional(),
    portId: z.string(),
    issuedAt: Timestamp.nullable().describe('Start of the 15-minute slot the forecasts were issued in'),
    recordDays: z.int(),
    minimumN: z.int().describe('Scored forecasts a lane and horizon needs before its champion is chosen'),
    horizonsMinutes: z.array(z.int()),
    lanes: z.array(LaneForecastSchema),
  })
  .meta({ id: 'ForecastBody' });

export const TypicalWaitSchema = z
  .looseObject({
    direction: z.enum(DIRECTIONS).describe('Always into-us: CBP publishes typical waits for its own lanes'),
    mode: z.enum(MODES),
    lane: z.enum(LANES),
    dayOfWeek: z.int().min(0).max(6).describe('0 = Sunday, port-local'),
    hour: z.int().min(0).max(23).describe('Port-local hour'),
    averageMinutes: z.number().min(0).describe("CBP's typical (average) wait of that weekday and hour"),
    minMinutes: z.number().min(0).nullable().describe("CBP's minimum of that hour; null when CBP gave none"),
    maxMinutes: z.number().min(0).nullable().describe("CBP's maximum of that hour; null when CBP gave none"),
  })
  .meta({ id: 'TypicalWait' });

export const TypicalWaitsBodySchema = z
  .looseObject({
    generatedAt: Timestamp.optional(),
    portId: z.string(),
    source: z.literal('cbp').describe("CBP's own published numbers (its hourly graph), not our observations"),
    fetchedAt: Timestamp.nullable().describe(
      'When the newest values were fetched from CBP; null before the first fetch',
    ),
    typical: z.array(TypicalWaitSchema).describe('Empty until the first fetch'),
  })
  .meta({ id: 'TypicalWaitsBody' });

const SeriesSummarySchema = z.looseObject({
  lanes: z.int().min(0),
  n: z.int().min(0),
  medianMae: z.number().nullable(),
  p90Mae: z.number().nullable(),
});

export const ForecastSkillBodySchema = z
  .looseObject({
    generatedAt: Timestamp.optional(),
    issuedAt: Timestamp,
    recordDays: z.int(),
    minimumN: z.int(),
    source: z.string(),
    horizons: z.array(
      z.looseObject({
        horizonMinutes: z.int(),
        lanesScored: z.int().min(0),
        n: z.int().min(0),
        ...perMethod(SeriesSummarySchema),
        champion: SeriesSummarySchema.describe('The forecasts actually published'),
        coverageByLevel: z
          .array(
            z.looseObject({
              level: z.enum(['0-5', '5-15', '15-45', '45+']),
              coverage: z.number().min(0).max(1).nullable(),
              n: z.int().min(0),
            }),
          )
          .optional()
          .describe("The published forecasts' 80% interval coverage by forecast level, every lane pooled"),
      }),
    ),
  })
  .meta({ id: 'ForecastSkillBody' });

export const ProblemSchema = z
  .looseObject({
    type: z.string().describe('URI of the problem type'),
    title: z.string(),
    status: z.int().min(100).max(599).optional(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    errors: z
      .array(z.looseObject({ name: z.string(), reason: z.string() }))
      .optional()
      .describe('Each bad parameter or field'),
    'violated-policies': z.array(z.string()).optional().describe('On 429: the limits exceeded'),
  })
  .meta({
    id: 'Problem',
    description: 'RFC 9457 problem details',
    examples: [
      {
        type: problemType('invalid-parameter'),
        title: 'Invalid query parameter',
        status: 400,
        detail: 'border must be one of "mx", "ca"',
        instance: '/api/v1/ports',
        errors: [{ name: 'border', reason: 'must be one of "mx", "ca"' }],
      },
    ],
  });

export const KeyRequestBodySchema = KeyRequestInputSchema.meta({
  id: 'KeyRequestInput',
  examples: [
    {
      name: 'Ana Test',
      email: 'ana@example.com',
      organisation: 'Example Freight',
      use: 'Planning truck departures at Laredo.',
      website: '',
    },
  ],
});

export const KeyRequestAcceptedSchema = z
  .looseObject({
    id: z.string(),
    status: z.literal('pending'),
    detail: z.string(),
  })
  .meta({
    id: 'KeyRequestAccepted',
    examples: [{ id: 'req_4fJ0aZ9qLm2x', status: 'pending', detail: 'An operator will email you a key.' }],
  });
