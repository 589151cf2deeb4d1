/**
 * The Web Push endpoints (outside the read-only `/api/v1`, like `POST /keys/requests`):
 * `GET /push/vapid-public-key`, `POST /push/subscriptions`, `PUT` (renew) and `DELETE
 * /push/subscriptions/{id}`. Input is checked by the core (`checkPushRequest`): every bad field
 * named in a 400 problem+json, nothing stored. A delete or renewal with an unknown id and one
 * with a wrong token are the same 404, so the answer tells nothing about ids. The per-IP limits
 * are applied before this runs (functions/http/access.ts).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  checkPushRequest,
  expiryFrom,
  newPushAlert,
  newPushToken,
  PUSH_LIMITS,
  type PushAlertStore,
  pushTokenHash,
} from '../core/alerts/push.ts';
import type { Port } from '../core/model.ts';
import { type Problem, problem } from '../core/problems.ts';
import type { Clock } from '../core/stores.ts';
import { PUSH_PATHS } from '../core/views/view-paths.ts';
import { baseHeaders, header, strongEtag } from './respond.ts';

export const MAX_PUSH_BODY_BYTES = 8 * 1024;

export interface PushEndpointDeps {
  store: PushAlertStore;
  clock: Clock;
  /** PUSH_SERVICE_HOSTS. */
  hosts: readonly string[];
  /** The VAPID public key (base64url), read at run time. */
  publicKey: () => Promise<string>;
  findPort: (idOrSlug: string) => Port | undefined;
}

export type PushOutcome =
  | { status: 200 | 201 | 204; body?: unknown; headers?: Record<string, string> }
  | { status: number; problem: Problem; headers?: Record<string, string> };

const json = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode: status,
  headers: {
    ...baseHeaders(),
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  },
  body: body === undefined ? '' : JSON.stringify(body),
});

/** The outcome as a proxy result (problems are rendered by the router). */
export function pushResponse(
  _event: APIGatewayProxyEvent,
  outcome: Extract<PushOutcome, { body?: unknown }>,
  extraHeaders: Record<string, string>,
): APIGatewayProxyResult {
  if (outcome.status === 204) {
    const { 'content-type': _type, ...headers } = json(204, undefined, {
      ...extraHeaders,
      ...outcome.headers,
    }).headers as Record<string, string>;
    return { statusCode: 204, headers, body: '' };
  }
  // HEAD keeps the body: the gateway sends GET's headers (Content-Length too) and drops the body.
  return json(outcome.status, outcome.body, { ...extraHeaders, ...outcome.headers });
}

/** `Authorization: Bearer <token>`, or undefined. */
function bearer(event: APIGatewayProxyEvent): string | undefined {
  const value = header(event, 'authorization');
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match?.[1];
}

function methodNotAllowed(path: string, allow: string): PushOutcome {
  return { status: 405, problem: problem('method-not-allowed', `${allow} only`, path), headers: { allow } };
}

export function createPushEndpoints(deps: PushEndpointDeps) {
  async function subscribe(event: APIGatewayProxyEvent, path: string): Promise<PushOutcome> {
    const raw = event.body ?? '';
    const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    if (Buffer.byteLength(text) > MAX_PUSH_BODY_BYTES) {
      return { status: 413, problem: problem('too-large', `At most ${MAX_PUSH_BODY_BYTES} bytes`, path) };
    }
    const type = (header(event, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      return { status: 415, problem: problem('unsupported-media-type', 'Send application/json', path) };
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      return {
        status: 400,
        problem: problem('invalid-body', 'The body is not a JSON object', path, {
          errors: [{ name: '', reason: 'must be a JSON object' }],
        }),
      };
    }
    const checked = checkPushRequest(body, deps.hosts, deps.findPort);
    if (!checked.ok) {
      return {
        status: 400,
        problem: problem(
          'invalid-body',
          checked.errors.map((e) => `${e.name} ${e.reason}`).join('; '),
          path,
          {
            errors: checked.errors,
          },
        ),
      };
    }
    const nowMs = deps.clock.now();
    const { token, hash } = newPushToken();
    const alert = newPushAlert(checked.request, checked.port, hash, nowMs);
    const created = await deps.store.create(alert, nowMs);
    if (!created.created) {
      return {
        status: 409,
        problem: problem(
          'limit-reached',
          `This push subscription already holds ${PUSH_LIMITS.alertsPerSubscription} alerts; delete one first.`,
          path,
        ),
      };
    }
    return {
      status: 201,
      body: { id: created.id, token, expiresAt: new Date(alert.expiresAt * 1000).toISOString() },
      headers: { location: `${PUSH_PATHS.subscriptions}/${created.id}` },
    };
  }

  async function one(event: APIGatewayProxyEvent, path: string, id: string): Promise<PushOutcome> {
    const method = event.httpMethod;
    if (method !== 'DELETE' && method !== 'PUT') return methodNotAllowed(path, 'DELETE, PUT');
    const token = bearer(event);
    const notFound: PushOutcome = {
      status: 404,
      problem: problem('not-found', 'No push alert with this id and token', path),
    };
    if (!token) return notFound;
    const hash = pushTokenHash(token);
    if (method === 'DELETE') {
      return (await deps.store.delete(id, hash)) ? { status: 204 } : notFound;
    }
    const nowMs = deps.clock.now();
    const expiresAt = expiryFrom(nowMs);
    if (!(await deps.store.renew(id, hash, expiresAt, nowMs))) return notFound;
    return { status: 200, body: { id, expiresAt: new Date(expiresAt * 1000).toISOString() } };
  }

  return async function push(event: APIGatewayProxyEvent, path: string): Promise<PushOutcome | null> {
    if (path === PUSH_PATHS.publicKey) {
      if (event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD')
        return methodNotAllowed(path, 'GET, HEAD');
      const publicKey = await deps.publicKey();
      const body = { publicKey };
      return {
        status: 200,
        body,
        headers: { 'cache-control': 'public, max-age=3600', etag: strongEtag(JSON.stringify(body)) },
      };
    }
    if (path === PUSH_PATHS.subscriptions) {
      if (event.httpMethod !== 'POST') return methodNotAllowed(path, 'POST');
      return subscribe(event, path);
    }
    const prefix = `${PUSH_PATHS.subscriptions}/`;
    if (path.startsWith(prefix) && !path.slice(prefix.length).includes('/')) {
      return one(event, path, path.slice(prefix.length));
    }
    return null;
  };
}
