/**
 * The OpenAPI document is built on the first request for it, not at cold start, and served byte
 * for byte as `buildOpenApi` writes it, with a stable ETag.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ApiConfigSchema, parseConfig } from '../../../functions/config.ts';
import { createReadApi } from '../../../functions/core/api/read-api.ts';
import { accessPoliciesOf } from '../../../functions/http/access.ts';
import { createApiRouter } from '../../../functions/http/api-router.ts';
import { buildOpenApi } from '../../../functions/http/openapi.ts';
import { LIMITS } from '../../../infra/manifest.ts';

const unreachable = () => Promise.reject(new Error('the OpenAPI document reads no store'));
const readApi = createReadApi({
  documents: { put: unreachable, get: unreachable, exists: unreachable },
  observations: { putMany: unreachable, query: unreachable, page: unreachable },
  clock: { now: () => Date.parse('2026-11-18T12:00:00Z') },
});

const request = (method = 'GET'): APIGatewayProxyEvent =>
  ({
    httpMethod: method,
    path: '/api/v1/openapi.json',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { identity: { sourceIp: '127.0.0.1' } },
  }) as unknown as APIGatewayProxyEvent;

describe('/api/v1/openapi.json', () => {
  const options = {
    ...accessPoliciesOf(parseConfig(ApiConfigSchema, {})),
    pushHosts: parseConfig(ApiConfigSchema, {}).PUSH_SERVICE_HOSTS,
    edgePerMinute: LIMITS.edgePerMinute,
  };

  it('is built on the first request for it, once, and served byte-identical to buildOpenApi', async () => {
    let builds = 0;
    const route = createApiRouter({
      readApi,
      openApi: () => {
        builds += 1;
        return buildOpenApi(options);
      },
    });
    expect(builds).toBe(0);
    const first = await route(request());
    const second = await route(request());
    const head = await route(request('HEAD'));
    expect(builds).toBe(1);
    expect(first.statusCode).toBe(200);
    expect(first.body).toBe(JSON.stringify(buildOpenApi(options)));
    expect(second.body).toBe(first.body);
    expect(second.headers?.etag).toBe(first.headers?.etag);
    // The gateway sends HEAD's headers (Content-Length included) without the body.
    expect(head.headers).toEqual(first.headers);
    expect(head.headers?.etag).toBe(first.headers?.etag);
  });
});
