/**
 * One tool, declared once: `defineTool` takes what a tool is (name, title, description, input and
 * output schemas, annotations, the scope it needs, the port arguments it takes) and a `run` that
 * only computes the answer. What every tool does around that is done here, once:
 *
 * 1. the plan check (the OAuth gate in front has already answered 401/403; a user whose plan lacks
 *    the tier gets an `isError` result with the upgrade link), which yields the `owner`;
 * 2. liberal input: ids sent as numbers and numbers sent as strings are respelled (`liberal`);
 * 3. port lookup: `port_id` becomes `port`, `port_ids` becomes `ports` (deduplicated, in order),
 *    an unknown one is a tool error naming the fix;
 * 4. errors: a {@link ToolError}, a refused query or an unknown port is a tool error with its
 *    message; anything else is logged and answered with a short "try again" (no internals leak);
 * 5. the envelope: `structuredContent` validated (and trimmed) by the output schema, plus a text
 *    for clients that read only text: a readable summary in sentences, not the JSON again (an
 *    assistant quoting it to a person should not have to translate braces).
 *
 * The scope a tool states here is also what the OAuth gate requires (`TOOL_SCOPES` in auth.ts is
 * derived from the registry).
 */
import type {
  AuthInfo,
  CallToolResult,
  ContentBlock,
  McpServer,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { laneOffered } from '../core/alerts/push-lanes.ts';
import { placeName } from '../core/catalogue/place-name.ts';
import { InvalidQueryError, NotFoundError } from '../core/errors.ts';
import { type Direction, LANES, type Lane, type Mode } from '../core/model.ts';
import { UnknownPortError } from '../core/views/port-directory.ts';
import type { PublishedPort } from '../core/views/views.ts';
import { planIncludes, type Scope, TIER_OF_SCOPE } from './scopes.ts';
import { liberal, READ_ONLY, type ToolDeps } from './tool-kit.ts';

/** A failure the caller can act on (a wrong argument, a missing plan): its message is the answer. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** Which port arguments the tool takes and `defineTool` resolves before `run`. */
export type PortArgument = 'port_id' | 'port_ids';

type PortsOf<P extends PortArgument | undefined> = P extends 'port_id'
  ? { port: PublishedPort }
  : P extends 'port_ids'
    ? {
        /** The ports `port_ids` names, each once, in order; empty when the argument is absent. */ ports: PublishedPort[];
      }
    : unknown;

type OwnerOf<S extends Scope | undefined> = S extends Scope
  ? { /** The signed-in user (token subject), entitled to the scope. */ owner: string }
  : unknown;

/** What `run` receives: the parsed input, the resolved port(s) and the owner, as the tool declares. */
export type ToolCall<
  I extends z.ZodObject,
  P extends PortArgument | undefined,
  S extends Scope | undefined,
> = { input: z.output<I> } & PortsOf<P> & OwnerOf<S>;

/** What `run` returns: the structured result, its one-line summary, and any extra content blocks. */
export interface ToolAnswer<O extends z.ZodObject> {
  structured: z.input<O>;
  text: string;
  content?: ContentBlock[];
}

export interface ToolSpec<
  I extends z.ZodObject,
  O extends z.ZodObject,
  P extends PortArgument | undefined = undefined,
  S extends Scope | undefined = undefined,
> {
  /** `verb_noun`. */
  name: string;
  title: string;
  /** States units, freshness and tier. */
  description: string;
  input: I;
  output: O;
  /** Default: read-only, idempotent, closed world. */
  annotations?: ToolAnnotations;
  /** The scope the tool needs; none: anonymous. */
  scope?: S;
  port?: P;
  /**
   * Computes the answer. TypeScript does not give `run`'s result the output schema as context while
   * it infers the schemas of the same call, so a literal a union expects (`'unknown'`) is written
   * `as const`; a wrong field is still a compile error.
   */
  run(call: ToolCall<I, P, S>, deps: ToolDeps): Promise<ToolAnswer<NoInfer<O>>>;
}

/** A tool ready to register, with what the OAuth gate needs to know of it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly scope: Scope | undefined;
  register(server: McpServer, deps: ToolDeps): void;
}

/** A tool execution error the model can act on (wrong argument, unknown port, missing plan). */
function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function unknownPortMessage(idOrSlug: string): string {
  return `Unknown port "${idOrSlug}". Use search_crossings to find the id or slug (e.g. 250401 or san-ysidro).`;
}

/** The signed-in user for a tool needing `scope`; a plan that lacks the tier is a {@link ToolError}. */
function ownerFor(auth: AuthInfo | undefined, scope: Scope, upgradeUrl: string): string {
  const tier = TIER_OF_SCOPE[scope];
  if (!auth) throw new ToolError(`This tool requires sign-in with a ${tier} plan.`);
  if (!auth.scopes.includes(scope) || !planIncludes(auth, scope)) {
    throw new ToolError(
      `This tool needs a ${tier === 'pro' ? 'Pro' : 'Business'} plan, which your account does not have. ` +
        `Upgrade at ${upgradeUrl}; signing in again will not change the plan.`,
    );
  }
  return String(auth.extra?.sub ?? auth.clientId);
}

async function resolvePorts(
  deps: ToolDeps,
  port: PortArgument | undefined,
  input: Record<string, unknown>,
): Promise<{ port?: PublishedPort; ports?: PublishedPort[] }> {
  if (port === 'port_id') return { port: await deps.readApi.resolvePort(input.port_id as string) };
  if (port === 'port_ids') {
    const ports: PublishedPort[] = [];
    for (const idOrSlug of (input.port_ids as string[] | undefined) ?? []) {
      const found = await deps.readApi.resolvePort(idOrSlug);
      if (!ports.some((p) => p.id === found.id)) ports.push(found);
    }
    return { ports };
  }
  return {};
}

function failure(error: unknown): CallToolResult {
  if (error instanceof ToolError) return toolError(error.message);
  if (error instanceof UnknownPortError) return toolError(unknownPortMessage(error.idOrSlug));
  // A query the core refuses (a bad cursor) is the caller's to fix: its message is written for users.
  if (error instanceof InvalidQueryError || error instanceof NotFoundError) return toolError(error.message);
  console.error('mcp tool failed', error);
  return toolError('The wait-time store is unavailable right now; try again in a minute.');
}

export function defineTool<
  I extends z.ZodObject,
  O extends z.ZodObject,
  P extends PortArgument | undefined = undefined,
  S extends Scope | undefined = undefined,
>(spec: ToolSpec<I, O, P, S>): ToolDefinition {
  return {
    name: spec.name,
    description: spec.description,
    scope: spec.scope,
    register(server, deps) {
      // Registered as plain objects: the callback re-types what it hands to `run` itself.
      server.registerTool<z.ZodObject, z.ZodObject>(
        spec.name,
        {
          title: spec.title,
          description: spec.description,
          inputSchema: liberal<z.ZodObject>(spec.input),
          outputSchema: spec.output,
          annotations: spec.annotations ?? READ_ONLY,
        },
        async (input, ctx): Promise<CallToolResult> => {
          try {
            const owner = spec.scope
              ? ownerFor(ctx.http?.authInfo, spec.scope, deps.settings.upgradeUrl)
              : undefined;
            const ports = await resolvePorts(deps, spec.port, input);
            const call = { input, owner, ...ports } as unknown as ToolCall<I, P, S>;
            const answer = await spec.run(call, deps);
            const structured = spec.output.parse(answer.structured) as Record<string, unknown>;
            return {
              content: [{ type: 'text', text: answer.text }, ...(answer.content ?? [])],
              structuredContent: structured,
            };
          } catch (error: unknown) {
            return failure(error);
          }
        },
      );
    },
  };
}

/** The port's `direction`, or a {@link ToolError} naming the directions it has. */
export function requireDirection(port: PublishedPort, direction: string): void {
  if (!port.directions.includes(direction as PublishedPort['directions'][number])) {
    throw new ToolError(
      `${placeName(port)} has no ${direction} wait times; it has ${port.directions.join(', ')}.`,
    );
  }
}

/** A lane the port publishes waits for, or a {@link ToolError} naming the lanes it has for that direction and mode. */
export function requireLane(
  port: PublishedPort,
  asked: { direction: Direction; mode: Mode; lane: Lane },
): void {
  requireDirection(port, asked.direction);
  if (laneOffered(port, asked.direction, asked.mode, asked.lane)) return;
  const offered = LANES.filter((lane) => laneOffered(port, asked.direction, asked.mode, lane));
  throw new ToolError(
    offered.length === 0
      ? `${placeName(port)} publishes no ${asked.direction} ${asked.mode} waits.`
      : `${placeName(port)} has no ${asked.direction} ${asked.mode} ${asked.lane} lane; its ${asked.direction} ${asked.mode} lanes: ${offered.join(', ')}.`,
  );
}
