/**
 * The problem catalogue: every kind of error the service answers with, as RFC 9457 problem
 * details. The api function, the local gateway and edge, the stack's gateway responses and WAF
 * body and the OpenAPI document all render from this table, so a type URI or title is written
 * once. (The CloudFront function cannot import it; a test checks the literals it keeps.)
 */
import { SITE_ORIGIN } from './site.ts';

export const PROBLEM_BASE = `${SITE_ORIGIN}/problems/`;
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemSpec {
  readonly status: number;
  /** The last segment of the type URI (`{PROBLEM_BASE}{slug}`). */
  readonly slug: string;
  readonly title: string;
}

export const PROBLEMS = {
  'invalid-parameter': { status: 400, slug: 'invalid-parameter', title: 'Invalid query parameter' },
  'invalid-body': { status: 400, slug: 'invalid-body', title: 'Invalid request body' },
  /** API Gateway's DEFAULT_4XX (the status is the gateway's own). */
  'client-error': { status: 400, slug: 'client-error', title: 'Bad request' },
  'invalid-key': { status: 401, slug: 'invalid-key', title: 'Invalid or revoked API key' },
  'access-denied': { status: 403, slug: 'access-denied', title: 'Access denied' },
  'not-found': { status: 404, slug: 'not-found', title: 'Not found' },
  'method-not-allowed': { status: 405, slug: 'method-not-allowed', title: 'Method not allowed' },
  /** A count-limited resource is full (a push subscription's alerts). */
  'limit-reached': { status: 409, slug: 'limit-reached', title: 'Limit reached' },
  'too-large': { status: 413, slug: 'too-large', title: 'Request body too large' },
  'range-not-satisfiable': { status: 416, slug: 'range-not-satisfiable', title: 'Range not satisfiable' },
  'unsupported-media-type': { status: 415, slug: 'unsupported-media-type', title: 'Unsupported media type' },
  'rate-limited': { status: 429, slug: 'rate-limited', title: 'Too many requests' },
  /** API Gateway's usage-plan quota: the same type as any other limit. */
  'quota-exceeded': { status: 429, slug: 'rate-limited', title: 'Quota exceeded' },
  internal: { status: 500, slug: 'internal', title: 'Internal error' },
  /** API Gateway's DEFAULT_5XX: the function failed or gave an answer the gateway could not use. */
  'server-error': { status: 502, slug: 'server-error', title: 'Server error' },
  unavailable: { status: 503, slug: 'unavailable', title: 'Service unavailable' },
} as const satisfies Record<string, ProblemSpec>;

export type ProblemKind = keyof typeof PROBLEMS;

/** RFC 9457 problem details, with extension members (`errors`, `violated-policies`). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  [extension: string]: unknown;
}

/** The type URI of a kind. */
export function problemType(kind: ProblemKind): string {
  return `${PROBLEM_BASE}${PROBLEMS[kind].slug}`;
}

/** A problem of `kind` about `instance` (the request path). */
export function problem(
  kind: ProblemKind,
  detail: string,
  instance: string,
  extensions: Record<string, unknown> = {},
): Problem {
  const { status, title } = PROBLEMS[kind];
  return { type: problemType(kind), title, status, detail, instance, ...extensions };
}
