/**
 * What every tool shares: its dependencies, result helpers (structuredContent plus a short text),
 * the read-only annotations, and readers of the published documents.
 */
import type { AuthInfo, CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ExportStore } from '../adapters/s3/exports.ts';
import type { AlertStore } from '../core/alerts.ts';
import { PORTS } from '../core/catalogue.ts';
import type { HourlyAverage } from '../core/model.ts';
import type { ReadApi } from '../core/read-api.ts';
import type { Clock } from '../core/stores.ts';
import type { Current, PublishedPort } from '../core/views.ts';
import { planIncludes, type Scope, TIER_OF_SCOPE } from './auth.ts';

export interface ToolDeps {
  readApi: ReadApi;
  clock: Clock;
  alerts: AlertStore;
  exports: ExportStore;
  settings: {
    upgradeUrl: string;
    exportInlineMaxBytes: number;
    exportUrlTtlSeconds: number;
    allowPrivateWebhooks: boolean;
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

/** Catches store and network failures so no internal message reaches the client. */
export async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error: unknown) {
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

/** Ports as published (catalogue plus uncatalogued ones seen), or the catalogue before the first ingest. */
export async function loadPorts(readApi: ReadApi): Promise<PublishedPort[]> {
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
  readApi: ReadApi,
  idOrSlug: string,
): Promise<PublishedPort | undefined> {
  const ports = await loadPorts(readApi);
  const lower = idOrSlug.toLowerCase();
  return ports.find((p) => p.id === idOrSlug) ?? ports.find((p) => p.slug === lower);
}

export function unknownPort(idOrSlug: string): CallToolResult {
  return toolError(
    `Unknown port "${idOrSlug}". Use search_crossings to find the id or slug (e.g. 250401 or san-ysidro).`,
  );
}

/** The current view with ports, or null before the first ingest. */
export async function loadCurrent(
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
