/**
 * What the tools share besides `defineTool`: their dependencies, the read-only annotations, the
 * liberal reading of arguments, and readers of the published documents.
 */

import * as z from 'zod';
import type { AlertQuota } from '../core/alerts/alert-quota.ts';
import type { AlertStore } from '../core/alerts/alerts.ts';
import type { ReadApi } from '../core/api/read-api.ts';
import { NotFoundError } from '../core/errors.ts';
import type { PortForecastBody } from '../core/forecast/forecast-views.ts';
import {
  DIRECTIONS,
  type Direction,
  type HourlyAverage,
  LANES,
  type Lane,
  MODES,
  type Mode,
  RETENTION_HOURS,
} from '../core/model.ts';
import type { Clock, ExportStore } from '../core/stores.ts';
import { utcToZoned, zoneName } from '../core/time.ts';
import type { CrossingSearch } from '../core/trips/crossings.ts';
import { PortSchema, SkillFiguresSchema } from '../core/views/api-schemas.ts';
import { PortIdSchema } from '../core/views/queries.ts';
import type { Current, PublishedPort } from '../core/views/views.ts';

export interface ToolDeps {
  readApi: ReadApi;
  clock: Clock;
  alerts: AlertStore;
  /** The per-user alert cap, counted atomically. */
  alertQuota: AlertQuota;
  exports: ExportStore;
  settings: {
    upgradeUrl: string;
    exportInlineMaxBytes: number;
    exportUrlTtlSeconds: number;
    allowPrivateWebhooks: boolean;
    /** The key each alert's webhook secret derives from (never stored), read at run time. */
    webhookSigningKey: () => Promise<string>;
  };
  newId(): string;
}

export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/**
 * The published current view changes once a minute at most (each ingest): a warm function keeps it
 * this long instead of reading it from S3 on every call. Freshness is recomputed at each call from
 * the readings' own times, so the cache never makes a reading look younger than it is. (The port
 * list has its own cache, shared with the API, in the read API's port directory.)
 */
export const DOCUMENT_TTL_MS = 5_000;
const documentCache = new WeakMap<ReadApi, Map<string, { atMs: number; value: Promise<unknown> }>>();

type DocumentDeps = Pick<ToolDeps, 'readApi' | 'clock'>;

function cachedDocument<T>(deps: DocumentDeps, key: string, load: () => Promise<T>): Promise<T> {
  let entries = documentCache.get(deps.readApi);
  if (!entries) {
    entries = new Map();
    documentCache.set(deps.readApi, entries);
  }
  const nowMs = deps.clock.now();
  const hit = entries.get(key);
  if (hit && nowMs >= hit.atMs && nowMs - hit.atMs < DOCUMENT_TTL_MS) return hit.value as Promise<T>;
  const value = load();
  const store = entries;
  store.set(key, { atMs: nowMs, value });
  value.catch(() => store.delete(key));
  return value;
}

/** The current view with ports, or null before the first ingest. */
export function loadCurrent(
  deps: DocumentDeps,
): Promise<{ generatedAt: string; byPort: Map<string, Current> } | null> {
  return cachedDocument(deps, 'current', () => readCurrent(deps.readApi));
}

async function readCurrent(
  readApi: ReadApi,
): Promise<{ generatedAt: string; byPort: Map<string, Current> } | null> {
  try {
    const result = await readApi.current({ include: 'ports' });
    if (result.kind !== 'document') return null;
    const body = JSON.parse(result.document.body) as {
      generatedAt: string;
      ports: (PublishedPort & { current: Current })[];
    };
    return { generatedAt: body.generatedAt, byPort: new Map(body.ports.map((p) => [p.id, p.current])) };
  } catch (error: unknown) {
    // Not published yet. A store that fails is not "no readings yet": the tool answers that the
    // store is unavailable (defineTool).
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

export async function loadAverages(readApi: ReadApi, portId: string): Promise<HourlyAverage[]> {
  const result = await readApi.averages({ port_id: portId });
  const body = result.kind === 'document' ? JSON.parse(result.document.body) : result.body;
  return Array.isArray(body) ? (body as HourlyAverage[]) : [];
}

/** A port's published forecast (no lanes before the first forecast is issued). */
export async function loadForecast(readApi: ReadApi, portId: string): Promise<PortForecastBody> {
  const result = await readApi.forecast({ port_id: portId });
  return (result.kind === 'document' ? JSON.parse(result.document.body) : result.body) as PortForecastBody;
}

/** The JSON type a top-level argument expects, seen through optional, default, nullable and pipes. */
function expectedType(field: z.ZodType): 'string' | 'number' | 'string[]' | 'number[]' | null {
  let def = field._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType };
  for (let depth = 0; depth < 10; depth += 1) {
    if (def.type === 'string' || def.type === 'number') return def.type;
    if (def.type === 'array' && def.element) {
      const element = expectedType(def.element);
      return element === 'string' || element === 'number' ? `${element}[]` : null;
    }
    const next = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!next) return null;
    def = next._zod.def as typeof def;
  }
  return null;
}

const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

function coerced(value: unknown, expected: 'string' | 'number'): unknown {
  if (expected === 'string' && typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (expected === 'number' && typeof value === 'string' && NUMERIC.test(value)) return Number(value);
  return value;
}

/**
 * Tool arguments as assistants send them, in the spelling the schema wants: a numeric-looking id
 * sent as a number (`"port_id": 250401`, what the MCP Inspector CLI and many assistants send)
 * becomes the string `"250401"`, and a number sent as a string (`"hours": "24"`) the number 24,
 * arrays element by element. Anything else is left for the schema to accept or refuse.
 */
export function coerceArguments(schema: z.ZodObject, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, field] of Object.entries(schema.shape)) {
    if (!(key in out)) continue;
    const expected = expectedType(field as z.ZodType);
    if (expected === 'string' || expected === 'number') out[key] = coerced(out[key], expected);
    else if (expected && Array.isArray(out[key])) {
      const element = expected === 'string[]' ? 'string' : 'number';
      out[key] = (out[key] as unknown[]).map((item) => coerced(item, element));
    }
  }
  return out;
}

/**
 * A tool's input schema, liberal in what it accepts (see `coerceArguments`): the arguments are
 * respelled before the schema validates them. The advertised JSON Schema and the error messages
 * stay the schema's own. Every tool registers its input through this.
 */
export function liberal<S extends z.ZodObject>(schema: S): S {
  const standard = schema['~standard'];
  const wrapped = Object.create(schema) as S;
  Object.defineProperty(wrapped, '~standard', {
    value: { ...standard, validate: (value: unknown) => standard.validate(coerceArguments(schema, value)) },
  });
  return wrapped;
}

/**
 * An API schema's fields as a closed object: a tool's answer carries exactly these fields (its
 * `structuredContent` is trimmed to them, and its output schema says `additionalProperties: false`),
 * while the API's own objects stay open for fields added within v1.
 */
export function closed<T extends z.core.$ZodLooseShape>(schema: { shape: T }): z.ZodObject<T, z.core.$strip> {
  return z.object(schema.shape);
}

/** A forecast method's track record at one horizon, as the forecast tools return it. */
export const SkillSchema = closed(SkillFiguresSchema).describe(
  'Track record (28 days) of the published forecasts at this horizon: MAE and bias in minutes, 80% interval coverage',
);

/** The fields that open every answer about one port: which port, when, and from what data. */
export const PortAnswerSchema = z.object({
  portId: PortSchema.shape.id,
  name: PortSchema.shape.name,
  crossing: PortSchema.shape.crossing,
  timeZone: PortSchema.shape.timeZone,
  generatedAt: z.string().describe('When this answer was computed'),
  source: z.string().describe('What the answer is computed from'),
});

export function portAnswer(
  port: PublishedPort,
  nowMs: number,
  source: string,
): z.input<typeof PortAnswerSchema> {
  return {
    portId: port.id,
    name: port.name,
    crossing: port.crossing,
    timeZone: port.timeZone,
    generatedAt: new Date(nowMs).toISOString(),
    source,
  };
}

/** The arguments of a tool about one lane at one port (create_alert, best_time_to_cross). */
export const PortLaneInputSchema = z.object({
  port_id: PortIdSchema,
  direction: z.enum(DIRECTIONS).describe('into-us (CBP) or into-canada (CBSA)'),
  mode: z.enum(MODES).default('passenger'),
  lane: z.enum(LANES).default('standard'),
});

/** A look-back window argument in hours, 1 to the retention, default 24. */
export function lookBackHours(description: string) {
  return z.number().int().min(1).max(RETENTION_HOURS).default(24).describe(description);
}

/** Whether a lane's row passes the optional direction, mode and lane filters of a tool's input. */
export function laneFilter(filter: {
  direction?: Direction | undefined;
  mode?: Mode | undefined;
  lane?: Lane | undefined;
}): (row: { direction: Direction; mode: Mode; lane: Lane }) => boolean {
  return (row) =>
    (!filter.direction || row.direction === filter.direction) &&
    (!filter.mode || row.mode === filter.mode) &&
    (!filter.lane || row.lane === filter.lane);
}

/** A tool's `near` argument (`radius_km`) as the crossing search takes it. */
export function nearOf(
  near: { lat: number; lon: number; radius_km: number } | undefined,
): CrossingSearch['near'] {
  return near && { lat: near.lat, lon: near.lon, radiusKm: near.radius_km };
}

/** How an instant is written, as an error message says it. */
const INSTANT_SPELLING =
  'an ISO 8601 date and time with seconds and Z or an offset: 2026-11-28T16:00:00Z, or 2026-11-28T08:00:00-08:00 for 8 am at a UTC-8 port';
/** How a port-local time of day is written. */
const LOCAL_TIME_SPELLING = "HH:MM, 24-hour, in the port's own time (06:00, 17:30)";

/**
 * An instant as every tool takes it: ISO 8601 date and time with seconds and `Z` or an offset
 * (`2026-11-18T14:30:00Z`, `2026-11-18T06:30:00-08:00`).
 */
export const InstantSchema = z.iso
  .datetime({ offset: true, error: INSTANT_SPELLING })
  .describe('An ISO 8601 instant with Z or an offset, e.g. 2026-11-18T14:30:00Z');

/** A port-local clock time, `HH:MM` (24-hour), where a tool takes a local time. */
export const LocalTimeSchema = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, LOCAL_TIME_SPELLING)
  .describe("Port-local time today, HH:MM (24-hour), in the port's time zone");

/** A port-local `HH:MM` or an instant (the ends of a departure window). */
export const LocalTimeOrInstantSchema = z.union([LocalTimeSchema, InstantSchema], {
  error: `expected a port-local time of day, ${LOCAL_TIME_SPELLING}, or an instant, ${INSTANT_SPELLING}`,
});

/** The port-local date of an instant as a traveller reads it: `Sat 28 Nov`. */
export function localDay(ms: number, timeZone: string): string {
  const local = utcToZoned(ms, timeZone);
  return new Date(Date.UTC(local.year, local.month - 1, local.day)).toLocaleDateString('en-GB', {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  });
}

/** An instant as a traveller reads it at a port: `Sat 28 Nov 08:00 Pacific Time`. */
export function localWhen(ms: number, timeZone: string): string {
  return `${localDay(ms, timeZone)} ${localClock(ms, timeZone)} ${zoneName(timeZone)}`;
}

/** `HH:MM` of an instant in a time zone. */
export function localClock(ms: number, timeZone: string): string {
  const local = utcToZoned(ms, timeZone);
  return `${String(local.hour).padStart(2, '0')}:${String(local.minute).padStart(2, '0')}`;
}

/**
 * A tool's text answer from its sentences: each one trimmed and ended with a full stop (unless it
 * ends in other punctuation), empty ones left out, joined by single spaces.
 */
export function sentences(...parts: (string | null | undefined | false)[]): string {
  return parts
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .map((part) => {
      const text = part.trim();
      return /[.!?:]$/.test(text) ? text : `${text}.`;
    })
    .join(' ');
}
