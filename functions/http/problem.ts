/**
 * RFC 9457 problem details: one renderer for every error of the service. Never a stack trace.
 */
import { InvalidQueryError, NotFoundError } from '../core/errors.ts';

export const PROBLEM_BASE = 'https://border-waits.dev/problems/';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  [extension: string]: unknown;
}

export function problem(
  status: number,
  slug: string,
  title: string,
  detail: string,
  instance: string,
  extensions: Record<string, unknown> = {},
): Problem {
  return { type: `${PROBLEM_BASE}${slug}`, title, status, detail, instance, ...extensions };
}

/** The problem for any thrown value: known domain errors keep their meaning, the rest is a bare 500. */
export function problemFromError(error: unknown, instance: string): Problem {
  if (error instanceof InvalidQueryError) {
    return problem(400, 'invalid-parameter', 'Invalid query parameter', error.message, instance, {
      errors: error.errors.length > 0 ? error.errors : [{ name: error.parameter, reason: error.message }],
    });
  }
  if (error instanceof NotFoundError) return problem(404, 'not-found', 'Not found', error.message, instance);
  return problem(
    500,
    'internal',
    'Internal error',
    'The service failed to answer; try again shortly.',
    instance,
  );
}
