/**
 * The view table of `/api/v1`: one row per read view with its path and published document
 * (core/views/view-paths.ts, the half without zod), its query schema, its response schemas, the use case
 * that answers it and the words of its OpenAPI operation. The router (http/api-router.ts) and the
 * OpenAPI paths (http/openapi.ts) are built from it; the manifest's routes and the stack's CDN
 * behaviours from its zod-free half; the CloudFront function is checked against it.
 */
import type * as z from 'zod';
import { RETENTION_HOURS } from '../model.ts';
import {
  AveragesBodySchema,
  BODY_EXAMPLES,
  CurrentBodySchema,
  CurrentWithPortsBodySchema,
  ForecastBodySchema,
  ForecastSkillBodySchema,
  ObservationsBodySchema,
  PortsBodySchema,
  TypicalWaitsBodySchema,
} from '../views/api-schemas.ts';
import {
  AveragesQuerySchema,
  CurrentQuerySchema,
  ForecastQuerySchema,
  ForecastSkillQuerySchema,
  MAX_OBSERVATIONS,
  ObservationsQuerySchema,
  PortsQuerySchema,
  parseQuery,
  TypicalQuerySchema,
} from '../views/queries.ts';
import { VIEW_PATHS, type ViewName } from '../views/view-paths.ts';
import type { ReadApi, ReadResult } from './read-api.ts';

/** One row of the table. */
export interface ApiView {
  readonly path: string;
  /** The published document a keyless read is served from by the CDN; null: answered live. */
  readonly document: ((query: never) => string) | null;
  /** Query parameters: parsed by the router, listed by OpenAPI (input side). */
  readonly query: z.ZodObject;
  /** The response body: one schema, or the alternatives a parameter chooses between. */
  readonly bodies: readonly [z.ZodType, ...z.ZodType[]];
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly example?: unknown;
  /** Parses raw query parameters (InvalidQueryError on a bad one), then runs the use case. */
  readonly answer: (api: ReadApi, params: Record<string, string | undefined>) => Promise<ReadResult>;
}

interface ViewSpec<Q extends z.ZodObject> extends Omit<ApiView, 'path' | 'document' | 'query' | 'answer'> {
  readonly query: Q;
  /** The use case, on the parsed query. */
  readonly read: (api: ReadApi, query: z.output<Q>) => Promise<ReadResult>;
}

function view<Q extends z.ZodObject>(name: ViewName, spec: ViewSpec<Q>): ApiView {
  const { read, ...rest } = spec;
  return { ...VIEW_PATHS[name], ...rest, answer: (api, params) => read(api, parseQuery(spec.query, params)) };
}

/** The read views, in the order OpenAPI lists them (that of VIEW_PATHS). */
export const API_VIEWS = {
  ports: view('ports', {
    query: PortsQuerySchema,
    bodies: [PortsBodySchema],
    operationId: 'listPorts',
    summary: 'Ports',
    description: 'Every port of entry with its catalogue data.',
    example: BODY_EXAMPLES.ports,
    read: (api, query) => api.ports(query),
  }),
  current: view('current', {
    query: CurrentQuerySchema,
    bodies: [CurrentBodySchema, CurrentWithPortsBodySchema],
    operationId: 'getPortCurrent',
    summary: 'Current waits',
    description:
      'The latest reading of every port lane; with include=ports, grouped by port with its metadata.',
    example: BODY_EXAMPLES.current,
    read: (api, query) => api.current(query),
  }),
  observations: view('observations', {
    query: ObservationsQuerySchema,
    bodies: [ObservationsBodySchema],
    operationId: 'listWaitObservations',
    summary: 'Wait observations',
    description:
      `Raw observations of one port, oldest first; hours defaults to 24 and is clamped to ${RETENTION_HOURS} (the retention). ` +
      `The whole window comes page by page, at most ${MAX_OBSERVATIONS} observations a page: while more follow, the body's \`next\` ` +
      'and a `Link: <...>; rel="next"` header give the next page (the same query with an opaque `cursor`); every observation ' +
      'of the window is on exactly one page. A cursor that was not issued by this API is a 400.',
    example: BODY_EXAMPLES.observations,
    read: (api, query) => api.observations(query),
  }),
  averages: view('averages', {
    query: AveragesQuerySchema,
    bodies: [AveragesBodySchema],
    operationId: 'listPortHourlyAverages',
    summary: 'Hourly averages',
    description:
      'Average delay per lane, day of week and hour (port-local); an empty array until aggregates exist.',
    example: BODY_EXAMPLES.averages,
    read: (api, query) => api.averages(query),
  }),
  forecast: view('forecast', {
    query: ForecastQuerySchema,
    bodies: [ForecastBodySchema],
    operationId: 'getPortForecast',
    summary: 'Forecast',
    description:
      'Per lane, the expected wait at +15/+30/+45/+60 minutes and hourly to +6 hours, each with an 80% interval, from the champion (lowest MAE over 28 days) of model, persistence and profile, with the track record (MAE, bias, coverage, n) of each per horizon. Reissued every 15 minutes. A lane without enough history has no points and says why.',
    example: BODY_EXAMPLES.forecast,
    read: (api, query) => api.forecast(query),
  }),
  forecastSkill: view('forecastSkill', {
    query: ForecastSkillQuerySchema,
    bodies: [ForecastSkillBodySchema],
    operationId: 'getForecastSkill',
    summary: 'Forecast skill',
    description:
      "Every lane's live track record summarised per horizon: lanes, n, median and p90 MAE of the model, both baselines and the published champion (lanes with at least minimumN scores).",
    read: (api) => api.forecastSkill(),
  }),
  typical: view('typical', {
    query: TypicalQuerySchema,
    bodies: [TypicalWaitsBodySchema],
    operationId: 'getPortTypicalWaits',
    summary: "CBP's typical waits",
    description:
      "CBP's own published typical wait (the average line of its hourly graph, with its minimum and maximum) per lane, port-local day of week and hour, fetched daily for the next 7 dates. CBP's numbers, labelled source: cbp; our own averages from observations are port-hourly-averages. typical is an empty array until the first fetch.",
    example: BODY_EXAMPLES.typical,
    read: (api, query) => api.typical(query),
  }),
} as const satisfies Record<ViewName, ApiView>;
