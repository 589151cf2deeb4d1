/**
 * The CloudFront function cannot import the view table (it is plain ES5 with no modules), so it
 * spells the static views itself. This checks the two agree, query by query: for every view of the
 * table, every parameter value its query schema accepts or refuses (and absent, and an unknown
 * extra parameter), the edge serves exactly the document the table names, or the same 400 the API
 * gives, or hands the request to the API.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { API_VIEWS, type ApiView } from '../../functions/core/api/api-views.ts';
import { KEY_REQUESTS_PATH, OPENAPI_PATH } from '../../functions/core/views/view-paths.ts';
import { loadViewerRequest, toCfRequest, VIEWER_REQUEST_FILE } from '../../infra/edge/load.ts';

const run = loadViewerRequest();
const edge = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  run(toCfRequest(method, new URL(path, 'https://border-waits.test'), headers));

const views = Object.values(API_VIEWS);
const staticViews = views.filter((view) => view.document !== null);

type Property = { enum?: unknown[]; pattern?: string };
const propertiesOf = (view: ApiView) =>
  (z.toJSONSchema(view.query, { io: 'input' }) as { properties?: Record<string, Property> }).properties ?? {};

/** Every enum value of every view's parameters: each is tried on every parameter. */
const ENUM_VALUES = views.flatMap((view) =>
  Object.values(propertiesOf(view)).flatMap((property) => (property.enum ?? []).map(String)),
);

/** Values worth trying for one query parameter. */
function candidates(property: Property): (string | undefined)[] {
  const values = [
    undefined,
    '',
    'all',
    'xx',
    'MX',
    ' mx',
    'constructor',
    '__proto__',
    '../x',
    ...ENUM_VALUES,
  ];
  // Ids and slugs a port_id pattern accepts, and one too long for it.
  if (property.pattern) values.push('250401', 'l24501', 'san-ysidro', 'SAN-YSIDRO', 'a'.repeat(65));
  return values;
}

/** Every combination of candidate values of the view's parameters, as raw query parameters. */
function queriesOf(view: ApiView): Record<string, string>[] {
  let queries: Record<string, string>[] = [{}];
  for (const [name, property] of Object.entries(propertiesOf(view))) {
    queries = queries.flatMap((query) =>
      candidates(property).map((value) => (value === undefined ? query : { ...query, [name]: value })),
    );
  }
  // Unknown parameters are ignored on both sides.
  return queries.flatMap((query) => [query, { ...query, unknown: 'x' }]);
}

const url = (path: string, query: Record<string, string>) => {
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
};

describe('the edge and the view table', () => {
  it('the table has views the CDN serves and views it does not', () => {
    expect(staticViews.length).toBeGreaterThan(0);
    expect(staticViews.length).toBeLessThan(views.length);
  });

  it.each(staticViews.map((view) => [view.path, view] as const))(
    '%s: each GET or HEAD is the table’s document, or the API’s 400',
    (_path, view) => {
      for (const [method, query] of queriesOf(view).flatMap((q) => [
        ['GET', q] as const,
        ['HEAD', q] as const,
      ])) {
        const parsed = view.query.safeParse(query);
        const out = edge(url(view.path, query), {}, method);
        const what = `${method} ${url(view.path, query)}`;
        if (parsed.success) {
          const document = (view.document as (query: unknown) => string)(parsed.data);
          expect(out, what).toMatchObject({ kind: 'request', originId: null });
          if (out.kind !== 'request') continue;
          expect(out.request.uri, what).toBe(`/${document}`);
          expect(out.request.querystring, what).toEqual({});
        } else {
          expect(out.kind, what).toBe('response');
          if (out.kind !== 'response') continue;
          expect(out.response.statusCode, what).toBe(400);
          expect(out.response.headers?.['content-type']?.value, what).toBe('application/problem+json');
          const body = JSON.parse(out.response.body ?? '{}') as { type?: string };
          expect(body.type, what).toMatch(/\/invalid-parameter$/);
        }
      }
    },
  );

  it.each(views.map((view) => [view.path, view] as const))(
    '%s with x-api-key goes to the API; any method but GET and HEAD is 405 at the edge, keyed or not',
    (_path, view) => {
      for (const out of [
        edge(view.path, { 'x-api-key': 'bw_live_abc' }),
        ...(view.document === null ? [edge(view.path)] : []),
      ]) {
        expect(out).toMatchObject({ kind: 'request', originId: 'api' });
      }
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const headers of [{}, { 'x-api-key': 'bw_live_abc' }] as Record<string, string>[]) {
          const out = edge(view.path, headers, method);
          expect(out.kind).toBe('response');
          if (out.kind !== 'response') continue;
          expect(out.response.statusCode).toBe(405);
          expect(out.response.headers?.allow?.value).toBe('GET, HEAD');
          expect(JSON.parse(out.response.body ?? '{}')).toMatchObject({ status: 405, instance: view.path });
        }
      }
    },
  );

  it.each([
    ['GET', OPENAPI_PATH],
    ['POST', KEY_REQUESTS_PATH],
  ])('%s %s, keyless, goes to the API', (method, path) => {
    expect(edge(path, {}, method)).toMatchObject({ kind: 'request', originId: 'api' });
  });

  it('names no /api/v1 path the table does not serve from the CDN', () => {
    const source = readFileSync(VIEWER_REQUEST_FILE, 'utf8');
    const named = [...source.matchAll(/uri === '(\/api\/v1\/[^']*)'/g)].map((match) => match[1]);
    expect(named.sort()).toEqual(staticViews.map((view) => view.path).sort());
  });
});
