/**
 * The `/api/v1` router on REST v1 proxy events: GET and HEAD only, problem+json for every error.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  AveragesQuerySchema,
  CurrentQuerySchema,
  ObservationsQuerySchema,
  PortsQuerySchema,
  parseQuery,
} from '../core/queries.ts';
import type { ReadApi, ReadResult } from '../core/read-api.ts';
import { problem, problemFromError } from './problem.ts';
import { jsonResponse, problemResponse, queryParams, strongEtag } from './respond.ts';

export interface ApiRouterDeps {
  readApi: ReadApi;
  /** The OpenAPI document, served at `/api/v1/openapi.json`. */
  openApi?: () => unknown;
  log?: (line: string) => void;
}

function render(event: APIGatewayProxyEvent, result: ReadResult): APIGatewayProxyResult {
  if (result.kind === 'document') return jsonResponse(event, result.document);
  const body = JSON.stringify(result.body);
  return jsonResponse(event, {
    body,
    etag: strongEtag(body),
    lastModified: result.lastModified,
    cacheControl: result.cacheControl,
  });
}

export function createApiRouter(deps: ApiRouterDeps) {
  const routes: Record<string, (params: Record<string, string>) => Promise<ReadResult>> = {
    '/api/v1/ports': (p) => deps.readApi.ports(parseQuery(PortsQuerySchema, p)),
    '/api/v1/port-current': (p) => deps.readApi.current(parseQuery(CurrentQuerySchema, p)),
    '/api/v1/port-hourly-averages': (p) => deps.readApi.averages(parseQuery(AveragesQuerySchema, p)),
    '/api/v1/wait-observations': (p) => deps.readApi.observations(parseQuery(ObservationsQuerySchema, p)),
  };

  return async function route(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
    const path = event.path.length > 1 ? event.path.replace(/\/+$/, '') : event.path;
    try {
      const openApi = path === '/api/v1/openapi.json' ? deps.openApi : undefined;
      const handler = routes[path];
      if (!handler && !openApi) {
        return problemResponse(
          event,
          problem(404, 'not-found', 'Not found', `no such path: ${path}; see /api/v1/openapi.json`, path),
        );
      }
      if (event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD') {
        return problemResponse(
          event,
          problem(
            405,
            'method-not-allowed',
            'Method not allowed',
            'The data API is read-only: GET and HEAD only',
            path,
          ),
          { allow: 'GET, HEAD' },
        );
      }
      if (openApi) {
        const body = JSON.stringify(openApi());
        return jsonResponse(event, {
          body,
          etag: strongEtag(body),
          lastModified: new Date(0).toUTCString(),
          cacheControl: 'public, max-age=3600',
        });
      }
      return render(event, await (handler as NonNullable<typeof handler>)(queryParams(event)));
    } catch (error: unknown) {
      const value = problemFromError(error, path);
      if (value.status >= 500)
        deps.log?.(`api error path=${path} ${error instanceof Error ? error.stack : String(error)}`);
      return problemResponse(event, value);
    }
  };
}
