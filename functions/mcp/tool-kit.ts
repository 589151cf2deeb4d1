/**
 * What every tool shares: its dependencies, result helpers (structuredContent plus a short text),
 * the read-only annotations, and readers of the published documents.
 */

import type { AuthInfo, CallToolResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { AlertQuota } from '../core/alert-quota.ts';
import type { AlertStore } from '../core/alerts.ts';
import { PORTS } from '../core/catalogue.ts';
import { InvalidQueryError, NotFoundError } from '../core/errors.ts';
import type { PortForecastBody } from '../core/forecast-views.ts';
import type { HourlyAverage } from '../core/model.ts';
import type { ReadApi } from '../core/read-api.ts';
import type { Clock, ExportStore } from '../core/stores.ts';
import type { Current, PublishedPort } from '../core/views.ts';
import { planIncludes, type Scope, TIER_OF_SCOPE } from './auth.ts';

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

export type ToolRegistrar = (server: McpServer, deps: ToolDeps) => void;

export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** `structuredContent` validated (and trimmed) by its schema, plus a short text for older clients. */
export function ok<S extends z.ZodType>(schema: S, data: z.input<S>, text: string): CallToolResult {
  const structured = schema.parse(data) as Record<string, unknown>;
  return {
    content: [{ type: 'text', text: `${text}\n${JSON.stringify(structured)}` }],
    structuredContent: structured,
  };
}

/** A tool execution error the model can act on (wrong argument, unknown port, missing plan). */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Catches store and network failures so no internal message reaches the client. A query the core
 * refuses (a bad cursor, an unknown port) is the caller's to fix: its message, written for users,
 * is the tool error.
 */
export async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error: unknown) {
    if (error instanceof InvalidQueryError || error instanceof NotFoundError) return toolError(error.message);
    console.error('mcp tool failed', error);
    return toolError('The wait-time store is unavailable right now; try again in a minute.');
  }
}

/**
 * The signed-in user (token subject) for a tool needing `scope`, or the `isError` result to return. The gate has
 * already answered 401/403; what is left is a plan that lacks the tier.
 */
export function requireScope(
  auth: AuthInfo | undefined,
  scope: Scope,
  upgradeUrl: string,
): string | CallToolResult {
  const tier = TIER_OF_SCOPE[scope];
  if (!auth) return toolError(`This tool requires sign-in with a ${tier} plan.`);
  if (!auth.scopes.includes(scope) || !planIncludes(auth, scope)) {
    return toolError(
      `This tool needs a ${tier === 'pro' ? 'Pro' : 'Business'} plan, which your account does not have. ` +
        `Upgrade at ${upgradeUrl}; signing in again will not change the plan.`,
    );
  }
  return String(auth.extra?.sub ?? auth.clientId);
}

export const SourceSchema = z.string().describe('Where the data comes from');

/**
 * The published port list and current view change once a minute at most (each ingest): a warm
 * function keeps them this long instead of reading them from S3 on every call. Freshness is
 * recomputed at each call from the readings' own times, so the cache never makes a reading look
 * younger than it is.
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

/** Ports as published (catalogue plus uncatalogued ones seen), or the catalogue before the first ingest. */
export function loadPorts(deps: DocumentDeps): Promise<PublishedPort[]> {
  return cachedDocument(deps, 'ports', () => readPorts(deps.readApi));
}

async function readPorts(readApi: ReadApi): Promise<PublishedPort[]> {
  try {
    const result = await readApi.ports({});
    if (result.kind === 'document')
      return (JSON.parse(result.document.body) as { ports: PublishedPort[] }).ports;
  } catch {
    // Not published yet: the catalogue is the answer.
  }
  return PORTS.map((port) => ({ ...port, catalogued: true }));
}

export async function findPublishedPort(
  deps: DocumentDeps,
  idOrSlug: string,
): Promise<PublishedPort | undefined> {
  const ports = await loadPorts(deps);
  const lower = idOrSlug.toLowerCase();
  return ports.find((p) => p.id === idOrSlug) ?? ports.find((p) => p.slug === lower);
}

export function unknownPort(idOrSlug: string): CallToolResult {
  return toolError(
    `Unknown port "${idOrSlug}". Use search_crossings to find the id or slug (e.g. 250401 or san-ysidro).`,
  );
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
  } catch {
    return null;
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

/** A forecast method's track record at one horizon, as the forecast tools return it. */
export const SkillSchema = z
  .object({
    mae: z.number().nullable(),
    bias: z.number().nullable(),
    coverage: z.number().nullable(),
    n: z.number().int(),
  })
  .describe(
    'Track record (28 days) of the published forecasts at this horizon: MAE and bias in minutes, 80% interval coverage',
  );
