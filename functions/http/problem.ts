/**
 * The problem for any thrown value: one renderer for every error of the service, never a stack
 * trace. The kinds, their statuses and titles are the core's catalogue (core/problems.ts).
 */
import { InvalidQueryError, NotFoundError } from '../core/errors.ts';
import { type Problem, problem } from '../core/problems.ts';

/** Known domain errors keep their meaning; the rest is a bare 500. */
export function problemFromError(error: unknown, instance: string): Problem {
  if (error instanceof InvalidQueryError) {
    return problem('invalid-parameter', error.message, instance, {
      errors: error.errors.length > 0 ? error.errors : [{ name: error.parameter, reason: error.message }],
    });
  }
  if (error instanceof NotFoundError) return problem('not-found', error.message, instance);
  return problem('internal', 'The service failed to answer; try again shortly.', instance);
}
