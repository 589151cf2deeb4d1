/**
 * The `/api/v1` router on REST v1 proxy events: GET and HEAD only, problem+json for every error.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { API_VIEWS, type ApiView } from '../core/api/api-views.ts';
import type { ReadApi, ReadResult } from '../core/api/read-api.ts';
import { problem } from '../core/problems.ts';
import { SITE_URL } from '../core/site.ts';
import { KEY_REQUESTS_PATH, OPENAPI_PATH, PUSH_PATHS } from '../core/views/view-paths.ts';
import type { Access } from './access.ts';
import { acceptedResponse, type createKeyRequestHandler } from './key-requests.ts';
import { problemFromError } from './problem.ts';
import { type createPushEndpoints, pushResponse } from './push-subscriptions.ts';
import { jsonResponse, problemResponse, queryParams, strongEtag } from './respond.ts';

export interface ApiRouterDeps {
  readApi: ReadApi;
  /**
   * The OpenAPI document, served at `/api/v1/openapi.json`: called on the first request for it
   * (not at cold start: building it walks every schema), then kept with its ETag.
   */
  openApi?: () => unknown;
  /** Key check and limits; every request passes it first. */
  access?: Access;
  /** `POST /keys/requests`. */
  keyRequests?: ReturnType<typeof createKeyRequestHandler>;
  /** The Web Push endpoints (`/push/...`). */
  push?: ReturnType<typeof createPushEndpoints>;
  log?: (line: string) => void;
}

/**
 * Keyed answers are per caller: `private`, so no shared cache (CloudFront included) keeps them and
 * every keyed request is counted.
 */
function privateCache(cacheControl: string): string {
  return cacheControl
    .split(',')
    .map((part) => part.trim())
    .filter((part) => !/^(public|s-maxage=|stale-)/.test(part))
    .concat('private')
    .join(', ');
}

function render(
  event: APIGatewayProxyEvent,
  result: ReadResult,
  headers: Record<string, string>,
  keyed: boolean,
): APIGatewayProxyResult {
  const document =
    result.kind === 'document'
      ? result.document
      : (() => {
          const body = JSON.stringify(result.body);
          return {
            body,
            etag: strongEtag(body),
            lastModified: result.lastModified,
            cacheControl: result.cacheControl,
          };
        })();
  return jsonResponse(
    event,
    keyed ? { ...document, cacheControl: privateCache(document.cacheControl) } : document,
    headers,
  );
}

/**
 * A paged answer names its next page in an RFC 8288 `Link` header too (beside the attribution
 * link every response carries), relative to the request's origin.
 */
function nextLink(result: ReadResult): Record<string, string> {
  if (result.kind !== 'json') return {};
  const next = (result.body as { next?: unknown } | null)?.next;
  if (typeof next !== 'string') return {};
  return { link: `<${SITE_URL}>; rel="author", <${next}>; rel="next"` };
}

/** The document changes only with a deployment; a fixed date keeps its validators stable. */
const OPENAPI_LAST_MODIFIED = new Date(Date.UTC(2026, 10, 1)).toUTCString();

export function createApiRouter(deps: ApiRouterDeps) {
  let openApiDocument: { body: string; etag: string; lastModified: string; cacheControl: string } | undefined;
  const views = new Map<string, ApiView>(Object.values(API_VIEWS).map((view) => [view.path, view]));

  return async function route(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
    const path = event.path.length > 1 ? event.path.replace(/\/+$/, '') : event.path;
    let limit: Record<string, string> = {};
    try {
      let keyed = false;
      if (deps.access) {
        const scope =
          path === KEY_REQUESTS_PATH
            ? 'key-requests'
            : path === PUSH_PATHS.subscriptions && event.httpMethod === 'POST'
              ? 'push-subscriptions'
              : 'api';
        const outcome = await deps.access(event, scope);
        limit = outcome.headers;
        if (!outcome.admitted) {
          return problemResponse(event, outcome.problem, { ...limit, 'cache-control': 'no-store' });
        }
        keyed = outcome.keyId !== null;
      }
      if (path === KEY_REQUESTS_PATH && deps.keyRequests) {
        const outcome = await deps.keyRequests(event);
        if ('problem' in outcome)
          return problemResponse(event, outcome.problem, { ...limit, ...outcome.headers });
        return acceptedResponse(outcome.body, limit);
      }
      if (path.startsWith('/push/') && deps.push) {
        const outcome = await deps.push(event, path);
        if (outcome && 'problem' in outcome)
          return problemResponse(event, outcome.problem, {
            ...limit,
            'cache-control': 'no-store',
            ...outcome.headers,
          });
        if (outcome) return pushResponse(event, outcome, limit);
      }
      const openApi = path === OPENAPI_PATH ? deps.openApi : undefined;
      const view = views.get(path);
      if (!view && !openApi) {
        return problemResponse(
          event,
          problem('not-found', `no such path: ${path}; see /api/v1/openapi.json`, path),
          limit,
        );
      }
      if (event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD') {
        return problemResponse(
          event,
          problem('method-not-allowed', 'The data API is read-only: GET and HEAD only', path),
          { ...limit, allow: 'GET, HEAD' },
        );
      }
      if (openApi) {
        if (!openApiDocument) {
          const body = JSON.stringify(openApi());
          openApiDocument = {
            body,
            etag: strongEtag(body),
            lastModified: OPENAPI_LAST_MODIFIED,
            cacheControl: 'public, max-age=3600',
          };
        }
        return jsonResponse(event, openApiDocument, limit);
      }
      const result = await (view as ApiView).answer(deps.readApi, queryParams(event));
      return render(event, result, { ...limit, ...nextLink(result) }, keyed);
    } catch (error: unknown) {
      const value = problemFromError(error, path);
      if (value.status >= 500)
        deps.log?.(`api error path=${path} ${error instanceof Error ? error.stack : String(error)}`);
      return problemResponse(event, value, limit);
    }
  };
}
