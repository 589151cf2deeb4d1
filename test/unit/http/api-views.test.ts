/**
 * The view table (core/api/api-views.ts) is the one list of read views: the router answers each of its
 * paths through the row's use case and query schema, the OpenAPI document describes each row and
 * nothing else under /api/v1, and the manifest routes each one (static exactly where the CDN has a
 * document). The edge's agreement is checked in test/infra/edge-views.test.ts.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ApiConfigSchema, parseConfig } from '../../../functions/config.ts';
import { API_VIEWS } from '../../../functions/core/api/api-views.ts';
import { createReadApi } from '../../../functions/core/api/read-api.ts';
import type { PublishedDocument } from '../../../functions/core/model.ts';
import { DOCUMENT_KEYS, OPENAPI_PATH } from '../../../functions/core/views/view-paths.ts';
import { accessPoliciesOf } from '../../../functions/http/access.ts';
import { createApiRouter } from '../../../functions/http/api-router.ts';
import { buildOpenApi } from '../../../functions/http/openapi.ts';
import { LIMITS, ROUTES } from '../../../infra/manifest.ts';

type Json = Record<string, unknown>;
const views = Object.values(API_VIEWS);

const document = (body: string): PublishedDocument => ({
  body,
  etag: `"${body.length}"`,
  lastModified: 'Wed, 18 Nov 2026 20:00:00 GMT',
  contentType: 'application/json; charset=utf-8',
  cacheControl: 'public, max-age=60',
});

const event = (path: string, query: Record<string, string>): APIGatewayProxyEvent =>
  ({
    httpMethod: 'GET',
    path,
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: query,
    multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
    requestContext: { identity: { sourceIp: '127.0.0.1' } },
  }) as unknown as APIGatewayProxyEvent;

describe('the router', () => {
  // Documents in memory, each body naming its own key, so an answer says which document it was. A
  // port's documents are published under its id and under its slug with one body, as the
  // publisher writes them: the slug's key names the id's.
  const documents = new Map<string, PublishedDocument>();
  const ports = JSON.stringify({ count: 1, ports: [{ id: '250401', slug: 'san-ysidro' }] });
  documents.set(DOCUMENT_KEYS.ports('all'), document(ports));
  const published = (key: string) => key.replace(/\/san-ysidro\.json$/, '/250401.json');
  const readApi = createReadApi({
    documents: {
      put: () => Promise.reject(new Error('read-only')),
      get: async (key) => documents.get(key) ?? document(JSON.stringify({ key: published(key) })),
      exists: async (key) => documents.has(key),
    },
    observations: {
      putMany: () => Promise.reject(new Error('read-only')),
      query: async () => [],
      page: async () => ({ observations: [], next: null }),
    },
    clock: { now: () => Date.parse('2026-11-18T20:10:00Z') },
  });
  const route = createApiRouter({ readApi });

  it.each(views.map((view) => [view.path, view] as const))(
    '%s answers through its row: the document the row names, or the live use case',
    async (path, view) => {
      const query: Record<string, string> = 'port_id' in view.query.shape ? { port_id: 'San-Ysidro' } : {};
      const response = await route(event(path, query));
      expect(response.statusCode).toBe(200);
      if (view.document === null) {
        expect(JSON.parse(response.body)).toMatchObject({ portId: '250401', count: 0 });
      } else {
        const key = (view.document as (query: unknown) => string)(view.query.parse(query));
        expect(response.body).toBe(documents.get(key)?.body ?? JSON.stringify({ key: published(key) }));
      }
    },
  );

  it.each(views.map((view) => [view.path, view] as const))(
    '%s refuses a bad value of each parameter with its query schema’s 400',
    async (path, view) => {
      for (const name of Object.keys(view.query.shape)) {
        const response = await route(event(path, { port_id: '250401', [name]: '\u0000bad' }));
        expect(response.statusCode, name).toBe(400);
        expect(JSON.parse(response.body).errors, name).toContainEqual(expect.objectContaining({ name }));
      }
    },
  );

  it('has no other /api/v1 path than the views (and the OpenAPI document)', async () => {
    const response = await route(event('/api/v1/port', {}));
    expect(response.statusCode).toBe(404);
  });
});

describe('the OpenAPI document', () => {
  const doc = buildOpenApi({
    ...accessPoliciesOf(parseConfig(ApiConfigSchema, {})),
    pushHosts: parseConfig(ApiConfigSchema, {}).PUSH_SERVICE_HOSTS,
    edgePerMinute: LIMITS.edgePerMinute,
  });
  const paths = doc.paths as Record<string, Record<string, Json>>;

  it('lists exactly the views and itself under /api/v1', () => {
    expect(Object.keys(paths).filter((path) => path.startsWith('/api/v1/'))).toEqual([
      ...views.map((view) => view.path),
      OPENAPI_PATH,
    ]);
  });

  it.each(views.map((view) => [view.path, view] as const))(
    '%s: the row’s operation, parameters and bodies, for GET and HEAD',
    (path, view) => {
      const get = paths[path]?.get ?? {};
      expect(get.operationId).toBe(view.operationId);
      expect(get.summary).toBe(view.summary);
      expect(String(get.description).startsWith(view.description)).toBe(true);
      expect((get.parameters as { name: string }[]).map((p) => p.name)).toEqual(
        Object.keys(view.query.shape),
      );
      const ok = (get.responses as Record<string, Json>)['200']?.content as Record<string, Json>;
      const schema = ok['application/json']?.schema as Json;
      const refs = ((schema.oneOf as Json[] | undefined) ?? [schema]).map((ref) => ref.$ref);
      expect(refs).toEqual(view.bodies.map((body) => `#/components/schemas/${body.meta()?.id}`));
      for (const ref of refs) {
        expect((doc.components as { schemas: Json }).schemas).toHaveProperty(
          String(ref).split('/').pop() as string,
        );
      }
      expect(paths[path]?.head?.operationId).toBe(`${view.operationId}Head`);
    },
  );
});

describe('the manifest', () => {
  it.each(views.map((view) => [view.path, view] as const))(
    '%s is a route of the api function for any method (it answers 405 to all but GET and HEAD), static exactly where it has a document',
    (path, view) => {
      expect(ROUTES.filter((route) => route.path === path)).toEqual([
        { path, methods: ['ANY'], function: 'api', static: view.document !== null },
      ]);
    },
  );

  it('has no static route that is not a view with a document', () => {
    const withDocuments = views.filter((view) => view.document !== null).map((view) => view.path);
    expect(ROUTES.filter((route) => route.static).map((route) => route.path)).toEqual(withDocuments);
  });
});
