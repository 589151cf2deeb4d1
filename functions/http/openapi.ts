/**
 * The OpenAPI 3.1 document of `/api/v1` and the key-request endpoint, generated from the zod
 * schemas the handlers use: query parameters from core/views/queries.ts, bodies from core/views/api-schemas.ts
 * (zod 4's `toJSONSchema` emits JSON Schema 2020-12, OAS 3.1's dialect). Served at
 * `/api/v1/openapi.json`; the integration suite validates every response against it.
 */
import * as z from 'zod';
import type { LimitPolicy } from '../core/access/limits.ts';
import { policyHeader } from '../core/access/limits.ts';
import { API_VIEWS, type ApiView } from '../core/api/api-views.ts';
import { PROBLEM_CONTENT_TYPE, problem } from '../core/problems.ts';
import { SITE_URL } from '../core/site.ts';
import { KeyRequestAcceptedSchema, KeyRequestBodySchema, ProblemSchema } from '../core/views/api-schemas.ts';
import { KEY_REQUESTS_PATH, OPENAPI_PATH } from '../core/views/view-paths.ts';
import { PUSH_TOKEN_SCHEME, pushPaths, pushSchemas } from './push-openapi.ts';

export interface OpenApiOptions {
  key: LimitPolicy;
  public: LimitPolicy;
  keyRequests: LimitPolicy;
  pushSubscriptions: LimitPolicy;
  /** PUSH_SERVICE_HOSTS. */
  pushHosts: readonly string[];
  edgePerMinute: number;
}

type Json = Record<string, unknown>;

const REF = '#/components/schemas/';

/** The `id` a schema was registered with (`.meta({ id })`): its name in `components.schemas`. */
function schemaId(schema: z.ZodType): string {
  const id = schema.meta()?.id;
  if (typeof id !== 'string') throw new Error('a response schema needs .meta({ id }) to be named in OpenAPI');
  return id;
}

/** JSON Schemas of every named body, with refs pointing into `components.schemas`. */
function componentSchemas(): Record<string, Json> {
  const bodies = Object.values(API_VIEWS).flatMap((view) => view.bodies);
  const all = z.object({
    ...Object.fromEntries(bodies.map((schema) => [schemaId(schema), schema])),
    Problem: ProblemSchema,
    KeyRequestInput: KeyRequestBodySchema,
    KeyRequestAccepted: KeyRequestAcceptedSchema,
  });
  const json = z.toJSONSchema(all, { target: 'draft-2020-12', io: 'output' }) as Json;
  const text = JSON.stringify(json.$defs ?? {}).replaceAll('"#/$defs/', `"${REF}`);
  return JSON.parse(text) as Record<string, Json>;
}

/** Query parameters of one zod object schema (input side: the raw strings a client sends). */
function queryParameters(schema: z.ZodObject): Json[] {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as {
    properties?: Record<string, Json>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: (json.required ?? []).includes(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

const header = (description: string, schema: Json = { type: 'string' }, required = false): Json => ({
  description,
  required,
  schema,
});

function headers(options: OpenApiOptions): Record<string, Json> {
  const policies = [options.key, options.public, options.keyRequests];
  return {
    ETag: header('Strong validator (hash of the body); send it back in If-None-Match for a 304', {
      type: 'string',
      pattern: '^"[^"]+"$',
    }),
    CacheControl: header('Caching for browsers and the CDN; keyed answers are private', {
      type: 'string',
      pattern: 'max-age=\\d+',
    }),
    LastModified: header('When the data last changed (HTTP-date)'),
    Link: header(
      'Attribution: the site, rel="author"; a wait-observations page that is not the last also names the next page, rel="next" (RFC 8288)',
      { type: 'string', pattern: 'rel="author"' },
    ),
    RateLimitPolicy: header(
      `The quotas that apply (draft-ietf-httpapi-ratelimit-headers): ${policyHeader(...policies)}; "edge";q=${options.edgePerMinute};w=60 on CDN answers`,
      { type: 'string', pattern: '^"[a-z-]+";q=\\d+;w=\\d+(, *"[a-z-]+";q=\\d+;w=\\d+)*$' },
      true,
    ),
    RateLimit: header(
      'The counter that applied: r = requests left in the window, t = seconds until it resets',
      {
        type: 'string',
        pattern: '^"[a-z-]+";r=\\d+;t=\\d+$',
      },
    ),
    RetryAfter: header('Seconds until the window resets', { type: 'string', pattern: '^\\d+$' }, true),
    Allow: header('The methods the path accepts', { type: 'string' }, true),
  };
}

const refHeader = (name: string) => ({ $ref: `#/components/headers/${name}` });

const limitHeaders = { 'RateLimit-Policy': refHeader('RateLimitPolicy'), RateLimit: refHeader('RateLimit') };

function problemResponse(description: string, example: Json, extraHeaders: Json = {}): Json {
  return {
    description,
    headers: { ...limitHeaders, Link: refHeader('Link'), ...extraHeaders },
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: `${REF}Problem` }, example } },
  };
}

function errorResponses(path: string): Record<string, Json> {
  return {
    '400': { $ref: '#/components/responses/InvalidParameter' },
    '401': { $ref: '#/components/responses/InvalidKey' },
    '404': { $ref: '#/components/responses/NotFound' },
    '405': { $ref: '#/components/responses/MethodNotAllowed' },
    '429': { $ref: '#/components/responses/RateLimited' },
    '500': problemResponse(
      'The service failed to answer',
      problem('internal', 'The service failed to answer; try again shortly.', path),
    ),
    '502': { $ref: '#/components/responses/BadGateway' },
    '503': { $ref: '#/components/responses/Unavailable' },
  };
}

/** Responses in ascending status order. */
function byStatus(responses: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

function ok(description: string, schemaRef: Json, example?: unknown): Json {
  return {
    '200': {
      description,
      headers: {
        ETag: refHeader('ETag'),
        'Cache-Control': refHeader('CacheControl'),
        'Last-Modified': refHeader('LastModified'),
        Link: refHeader('Link'),
        ...limitHeaders,
      },
      content: { 'application/json': { schema: schemaRef, ...(example === undefined ? {} : { example }) } },
    },
    '304': {
      description: 'Not modified: the If-None-Match validator still matches',
      headers: { ETag: refHeader('ETag'), 'Cache-Control': refHeader('CacheControl'), ...limitHeaders },
    },
  };
}

/** A HEAD operation: the GET's responses with their headers and no bodies. */
function head(get: Json, componentResponses: Record<string, Json>): Json {
  const responses: Record<string, Json> = {};
  for (const [status, value] of Object.entries(get.responses as Record<string, Json>)) {
    const ref = typeof value.$ref === 'string' ? value.$ref.split('/').pop() : undefined;
    const { content: _content, ...rest } = (ref ? componentResponses[ref] : value) ?? value;
    responses[status] = rest;
  }
  return {
    ...get,
    operationId: `${String(get.operationId)}Head`,
    summary: `${String(get.summary)} (headers only)`,
    description: 'The same headers as GET, without a body.',
    responses,
  };
}

/** The GET and HEAD operations of one read view, from its row of the view table. */
function viewOperations(view: ApiView, componentResponses: Record<string, Json>): Json {
  const refs = view.bodies.map((schema) => ({ $ref: `${REF}${schemaId(schema)}` }));
  const get = {
    operationId: view.operationId,
    summary: view.summary,
    description: `${view.description}\n\nUnknown query parameters are ignored; bad values of known ones are 400.`,
    tags: ['views'],
    security: [{}, { ApiKeyAuth: [] }],
    parameters: queryParameters(view.query),
    responses: {
      ...ok(view.summary, refs.length === 1 ? (refs[0] as Json) : { oneOf: refs }, view.example),
      ...errorResponses(view.path),
    },
  };
  return { get, head: head(get, componentResponses) };
}

/** Responses shared by the operations (`#/components/responses`). */
function sharedResponses(): Record<string, Json> {
  return {
    InvalidParameter: problemResponse('A query parameter has a bad value (each one in errors)', {
      ...problem('invalid-parameter', 'border must be one of "mx", "ca"', '/api/v1/ports'),
      errors: [{ name: 'border', reason: 'must be one of "mx", "ca"' }],
    }),
    InvalidKey: problemResponse(
      'The x-api-key header does not hold a live key (unknown, revoked or garbled)',
      problem('invalid-key', 'Unauthorized', '/api/v1/ports'),
    ),
    NotFound: problemResponse(
      'No such port, document or path',
      problem('not-found', 'no port with id or slug "nowhere"', '/api/v1/wait-observations'),
    ),
    MethodNotAllowed: problemResponse(
      'The data API is read-only: GET and HEAD only',
      problem('method-not-allowed', 'GET and HEAD only', '/api/v1/ports'),
      { Allow: refHeader('Allow') },
    ),
    RateLimited: problemResponse(
      'Over a limit; retry after Retry-After seconds',
      {
        ...problem(
          'rate-limited',
          'More than 60 requests in 60 seconds (key limit); retry after 17 s.',
          '/api/v1/ports',
        ),
        'violated-policies': ['key'],
      },
      { 'Retry-After': refHeader('RetryAfter') },
    ),
    BadGateway: problemResponse(
      'The gateway could not use the function’s answer',
      problem('server-error', 'Internal server error', '/api/v1/ports'),
    ),
    Unavailable: problemResponse(
      'Temporarily unavailable (a store could not be reached, e.g. to check the key)',
      problem(
        'unavailable',
        'The API key could not be checked just now; retry in a few seconds.',
        '/api/v1/ports',
      ),
      { 'Retry-After': header('Seconds to wait before retrying', { type: 'string', pattern: '^\\d+$' }) },
    ),
  };
}

/** The whole document. */
export function buildOpenApi(options: OpenApiOptions): Json {
  const document = buildDocument(options);
  const paths = document.paths as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths)) paths[path] = { ...item, options: preflight(path, item) };
  return document;
}

const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': header(
    'Always `*`: any web origin, without credentials',
    {
      type: 'string',
      const: '*',
    },
    true,
  ),
  'Access-Control-Allow-Methods': header('The methods the path takes', { type: 'string' }, true),
  'Access-Control-Allow-Headers': header(
    'The request headers the path reads, each named (x-api-key, if-none-match, if-modified-since, content-type, authorization as it applies)',
    { type: 'string' },
    true,
  ),
  'Access-Control-Max-Age': header('Seconds a browser may keep this answer', {
    type: 'string',
    pattern: '^\\d+$',
  }),
  Allow: { $ref: '#/components/headers/Allow' },
  Link: { $ref: '#/components/headers/Link' },
};

/** The CORS preflight of a path, answered by the CDN for the methods the path documents. */
function preflight(path: string, item: Record<string, Json>): Json {
  const methods = Object.keys(item)
    .filter((method) => ['get', 'head', 'post', 'put', 'patch', 'delete'].includes(method))
    .map((method) => method.toUpperCase());
  return {
    operationId: `preflight${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: 'CORS preflight',
    description: `Answered by the CDN for any web origin: Access-Control-Allow-Methods and Allow are ${methods.join(', ')}, with the request headers the path reads. Methods the path does not take are 405 with Allow.`,
    tags: ['meta'],
    security: [{}],
    responses: {
      '204': { description: 'Preflight accepted', headers: PREFLIGHT_HEADERS },
      '429': { $ref: '#/components/responses/RateLimited' },
    },
  };
}

function buildDocument(options: OpenApiOptions): Json {
  const schemas = componentSchemas();
  const componentResponses = sharedResponses();
  const withHead = (get: Json) => ({ get, head: head(get, componentResponses) });
  return {
    openapi: '3.1.1',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Border waits API',
      version: '1.0.0',
      summary: 'Wait times at US land ports of entry (CBP into the US, CBSA into Canada), read-only.',
      description: [
        'Public, keyless reads are served by the CDN; a request with `x-api-key` goes to the keyed API,',
        'which answers the same paths with the same bodies. Every error is `application/problem+json`',
        '(RFC 9457).',
        '',
        `Limits are fixed windows aligned to the clock: ${options.key.quota} requests per minute per key`,
        `(counted by the service in DynamoDB; the window starts at each full UTC minute), ${options.public.quota}`,
        'per minute per client IP for keyless requests the service answers, and a per-IP rule at the CDN',
        `(${options.edgePerMinute} per 60 s). Over a limit: 429 with \`Retry-After\` (seconds to the window's end).`,
        'Every response carries `RateLimit-Policy`, and `RateLimit` where a counter was consulted.',
        'CDN cache hits are not metered.',
        '',
        'An invalid or revoked key is 401, never a fall-back to public access. Please link back to the site.',
      ].join('\n'),
      contact: { name: 'Border waits', url: SITE_URL },
      license: {
        name: 'CC BY 4.0 (data); see the site',
        url: 'https://creativecommons.org/licenses/by/4.0/',
      },
    },
    servers: [{ url: SITE_URL.replace(/\/$/, ''), description: 'Production (CloudFront)' }],
    tags: [
      { name: 'views', description: 'The read views' },
      { name: 'meta', description: 'This document' },
      { name: 'keys', description: 'Asking for an API key' },
    ],
    security: [{}, { ApiKeyAuth: [] }],
    paths: {
      ...Object.fromEntries(
        Object.values(API_VIEWS).map((view) => [view.path, viewOperations(view, componentResponses)]),
      ),
      [OPENAPI_PATH]: withHead({
        operationId: 'getOpenApi',
        summary: 'This document',
        description:
          'The OpenAPI 3.1 description of the API, generated from the same schemas the handlers use.',
        tags: ['meta'],
        security: [{}, { ApiKeyAuth: [] }],
        responses: {
          ...ok('The OpenAPI document', { type: 'object' }),
          ...errorResponses(OPENAPI_PATH),
        },
      }),
      [KEY_REQUESTS_PATH]: {
        post: {
          operationId: 'requestApiKey',
          summary: 'Ask for an API key',
          description: `Stores a request for an operator to review (the site's request-a-key form posts here). JSON or form-encoded. At most ${options.keyRequests.quota} requests per ${options.keyRequests.windowSeconds / 60} minutes per client IP. The \`website\` field must stay empty.`,
          tags: ['keys'],
          security: [{}],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { $ref: `${REF}KeyRequestInput` } },
              'application/x-www-form-urlencoded': { schema: { $ref: `${REF}KeyRequestInput` } },
            },
          },
          // The shared errors, with this path's own 400, 413 and 415, in status order.
          responses: byStatus({
            ...errorResponses(KEY_REQUESTS_PATH),
            '202': {
              description: 'Stored for review',
              headers: { ...limitHeaders, Link: refHeader('Link') },
              content: { 'application/json': { schema: { $ref: `${REF}KeyRequestAccepted` } } },
            },
            '400': problemResponse(
              'A field is missing or bad (each one in errors), or the request looks automated',
              {
                ...problem('invalid-body', 'email must be an email address', KEY_REQUESTS_PATH),
                errors: [{ name: 'email', reason: 'must be an email address' }],
              },
            ),
            '413': problemResponse(
              'The body is larger than 16 KiB',
              problem('too-large', 'At most 16384 bytes', KEY_REQUESTS_PATH),
            ),
            '415': problemResponse(
              'Neither JSON nor form-encoded',
              problem(
                'unsupported-media-type',
                'Send application/json or application/x-www-form-urlencoded',
                KEY_REQUESTS_PATH,
              ),
            ),
          }),
        },
      },
      ...pushPaths(options.pushSubscriptions, options.pushHosts),
    },
    components: {
      schemas: { ...schemas, ...pushSchemas() },
      headers: headers(options),
      securitySchemes: {
        ApiKeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'Optional. Keys look like bw_live_ followed by 38 letters and digits (the last 6 a checksum). Without a key, access is public and limited per IP; with an invalid or revoked key, 401.',
        },
        PushToken: PUSH_TOKEN_SCHEME,
      },
      responses: componentResponses,
    },
  };
}
