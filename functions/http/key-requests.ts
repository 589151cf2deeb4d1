/**
 * `POST /keys/requests`: the request-a-key form. JSON or form-encoded, at most 16 KiB; fields
 * validated with the core's schema (400 with every bad field in `errors`); a filled honeypot
 * (`website`, hidden from people) is refused as automated and not stored. The per-IP limit is
 * applied before this runs (functions/http/access.ts).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { KeyRequestInputSchema, type KeyRequestStore, newKeyRequest } from '../core/access/key-requests.ts';
import { type Problem, problem } from '../core/problems.ts';
import type { Clock } from '../core/stores.ts';
import { baseHeaders, header } from './respond.ts';

export const MAX_KEY_REQUEST_BYTES = 16 * 1024;

export interface KeyRequestDeps {
  requests: Pick<KeyRequestStore, 'putRequest'>;
  clock: Clock;
}

type Outcome =
  | { status: 202; body: unknown }
  | { status: number; problem: Problem; headers?: Record<string, string> };

function parseBody(event: APIGatewayProxyEvent): Record<string, unknown> | Problem {
  const path = event.path;
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (Buffer.byteLength(text) > MAX_KEY_REQUEST_BYTES) {
    return problem('too-large', `At most ${MAX_KEY_REQUEST_BYTES} bytes`, path);
  }
  const type = (header(event, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // Falls through to the 400 below.
    }
    return problem('invalid-body', 'The body is not a JSON object', path, {
      errors: [{ name: '', reason: 'must be a JSON object' }],
    });
  }
  if (type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return problem(
    'unsupported-media-type',
    'Send application/json or application/x-www-form-urlencoded',
    path,
  );
}

export function createKeyRequestHandler(deps: KeyRequestDeps) {
  return async function submit(event: APIGatewayProxyEvent): Promise<Outcome> {
    const path = event.path;
    if (event.httpMethod !== 'POST') {
      return {
        status: 405,
        problem: problem('method-not-allowed', 'POST only', path),
        headers: { allow: 'POST' },
      };
    }
    const parsed = parseBody(event);
    if ('type' in parsed && 'status' in parsed && typeof parsed.status === 'number') {
      return { status: parsed.status, problem: parsed as Problem };
    }
    const fields = parsed as Record<string, unknown>;
    if (typeof fields.website === 'string' && fields.website.trim() !== '') {
      // A field people never see was filled in: refuse without storing anything.
      return {
        status: 400,
        problem: problem('invalid-body', 'The request looks automated', path, {
          errors: [{ name: 'website', reason: 'must be empty' }],
        }),
      };
    }
    const result = KeyRequestInputSchema.safeParse(fields);
    if (!result.success) {
      const errors = result.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '');
        const missing = issue.code === 'invalid_type' && fields[name] === undefined;
        return { name, reason: missing ? 'is required' : issue.message };
      });
      return {
        status: 400,
        problem: problem('invalid-body', errors.map((e) => `${e.name} ${e.reason}`).join('; '), path, {
          errors,
        }),
      };
    }
    const request = newKeyRequest(result.data, deps.clock.now());
    await deps.requests.putRequest(request);
    return {
      status: 202,
      body: {
        id: request.id,
        status: 'pending',
        detail: `Request ${request.id} received; an operator reviews requests and emails keys to ${request.email}.`,
      },
    };
  };
}

/** The 202 answer as a proxy result. */
export function acceptedResponse(body: unknown, extraHeaders: Record<string, string>): APIGatewayProxyResult {
  return {
    statusCode: 202,
    headers: {
      ...baseHeaders(),
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...extraHeaders,
    },
    body: JSON.stringify(body),
  };
}
