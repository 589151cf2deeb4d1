/**
 * Query schemas of `/api/v1`, shared with the MCP tools' input schemas (one query, two faces).
 * Unknown parameters are ignored; bad values of known ones are `InvalidQueryError` (400).
 */
import * as z from 'zod';
import { InvalidQueryError } from '../errors.ts';
import { BORDERS, DIRECTIONS, LANES, MODES, RETENTION_HOURS } from '../model.ts';

/** The most observations one page carries; the rest follow page by page (`next`). */
export const MAX_OBSERVATIONS = 10_000;

export const PortIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/,
    'a port id (250401) or slug (san-ysidro): letters, digits, hyphens',
  )
  .describe('Port id (CBP port number, e.g. 250401) or slug (e.g. san-ysidro)');

export const PortsQuerySchema = z.object({
  border: z.enum(BORDERS).optional().describe('Limit to the Mexican (mx) or Canadian (ca) border'),
});

export const CurrentQuerySchema = z.object({
  include: z.enum(['ports']).optional().describe('"ports" joins port metadata: the body becomes { ports[] }'),
});

export const AveragesQuerySchema = z.object({
  port_id: PortIdSchema,
});

export const ForecastQuerySchema = z.object({
  port_id: PortIdSchema,
});

export const ForecastSkillQuerySchema = z.object({});

export const TypicalQuerySchema = z.object({
  port_id: PortIdSchema,
});

/** Whole hours, at least 1: the pattern itself refuses 0 (`0`, `00`), so the document says so too. */
const HoursSchema = z
  .string()
  .regex(
    /^(?!0+$)\d{1,9}$/,
    `a whole number of hours, 1 or more, of at most 9 digits (above ${RETENTION_HOURS} reads as ${RETENTION_HOURS})`,
  )
  .transform(Number);

export const ObservationsQuerySchema = z.object({
  port_id: PortIdSchema,
  hours: HoursSchema.optional().describe(
    `Look-back window in hours, default 24, clamped to ${RETENTION_HOURS}`,
  ),
  direction: z.enum(DIRECTIONS).optional(),
  mode: z.enum(MODES).optional(),
  lane: z.enum(LANES).optional(),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,1024}$/, 'the opaque `next` cursor of a previous page, unchanged')
    .optional()
    .describe("Where the next page starts: the `cursor` of the previous page's `next` link, unchanged"),
});

export type PortsQuery = z.infer<typeof PortsQuerySchema>;
export type CurrentQuery = z.infer<typeof CurrentQuerySchema>;
export type AveragesQuery = z.infer<typeof AveragesQuerySchema>;
export type ObservationsQuery = z.infer<typeof ObservationsQuerySchema>;
export type ForecastQuery = z.infer<typeof ForecastQuerySchema>;
export type TypicalQuery = z.infer<typeof TypicalQuerySchema>;

/**
 * Parses raw query parameters (first value of each) with `schema`; every bad parameter becomes one
 * `InvalidQueryError` naming the first offender (all of them in `errors`).
 */
export function parseQuery<T extends z.ZodType>(
  schema: T,
  params: Record<string, string | undefined>,
): z.infer<T> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const errors = result.error.issues.map((issue) => ({
    name: String(issue.path[0] ?? ''),
    reason:
      issue.code === 'invalid_type' && params[String(issue.path[0])] === undefined
        ? 'is required'
        : issue.code === 'invalid_value' && 'values' in issue
          ? `must be one of ${(issue.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
          : // A pattern's message names what the parameter must be.
            issue.code === 'invalid_format'
            ? `must be ${issue.message}`
            : issue.message,
  }));
  const first = errors[0] ?? { name: '', reason: 'invalid' };
  const error = new InvalidQueryError(errors.map((e) => `${e.name} ${e.reason}`).join('; '), first.name);
  error.errors = errors;
  throw error;
}
