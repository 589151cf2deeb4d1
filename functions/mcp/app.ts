/**
 * The `/mcp` endpoint as `Request -> Response`: Protected Resource Metadata, the Host check, POST
 * only, a body-size cap, the OAuth gate, then the SDK. Modern (2026-07-28) requests go through
 * `createMcpHandler`; legacy (2025-06-18, 2025-11-25) ones through a stateless transport answering
 * plain JSON, so a buffered Lambda never waits on a stream.
 *
 * Any web origin may call it: it authenticates with bearer tokens, never cookies, so a page on
 * another site gains nothing a script outside a browser would not have. Every answer carries the
 * CORS headers (the edge answers the preflights, infra/edge/viewer-request.js), and DNS rebinding
 * is refused by the Host check where the server runs on a developer's machine.
 */
import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  type OAuthTokenVerifier,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { COUNTER_PREFIXES } from '../contract.ts';
import {
  consume,
  type LimitDecision,
  type LimitPolicy,
  type LimitStore,
  limitHeaders,
  policyHeader,
} from '../core/access/limits.ts';
import type { Clock } from '../core/stores.ts';
import { type AuthSettings, authGate, protectedResourceMetadata } from './auth.ts';
import { createMcpServer } from './create-mcp-server.ts';
import { MCP_RESPONSE_HEADERS } from './response-headers.ts';
import type { ToolDeps } from './tool-kit.ts';

export interface McpAppOptions {
  auth: AuthSettings;
  verifier: OAuthTokenVerifier;
  tools: ToolDeps;
  /** Empty: no Host check (behind CloudFront the Host is the origin's). */
  allowedHosts: readonly string[];
  maxBodyBytes: number;
  /** Counts tools/call per client IP (anonymous) or per user (signed in). */
  limits?: { store: LimitStore; perIp: LimitPolicy; perUser: LimitPolicy; clock: Clock };
  log?: (line: string) => void;
}

/** What the host knows of the caller beyond the request (the viewer IP behind CloudFront). */
export interface McpCallContext {
  clientIp?: string;
}

/**
 * How many calls a body counts for against the limit: every message of a batch (the older-protocol
 * transport runs up to 100 of them at once, so counting the HTTP request would let one request do
 * the work of a hundred), and a single message when it is a `tools/call`.
 */
export function countedCalls(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  return body !== null && typeof body === 'object' && (body as { method?: unknown }).method === 'tools/call'
    ? 1
    : 0;
}

/** The same response with extra headers. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: merged,
  });
}

/** A JSON-RPC id as the request gave it (string, number or null). */
function idOf(message: unknown): string | number | null {
  const id = message !== null && typeof message === 'object' ? (message as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * A JSON-RPC error answering `body`: one error object carrying the request's `id` (null when the
 * body had none, or could not be read), or, for a batch, one per request of the batch.
 */
function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  body: unknown = undefined,
): Response {
  const error = (id: string | number | null) => ({ jsonrpc: '2.0', error: { code, message }, id });
  const payload = Array.isArray(body)
    ? body.filter((m) => idOf(m) !== null).map((m) => error(idOf(m)))
    : error(idOf(body));
  return Response.json(payload, { status, headers });
}

export { MCP_RESPONSE_HEADERS };

/**
 * `subscriptions/listen` (2026-07-28) opens a stream of change notifications. This server is
 * stateless and its tool list never changes (`listChanged: false`), so it offers none: a defined
 * error, where the SDK (with no subscription allowed) would answer -32603, an internal error.
 */
const LISTEN_REFUSAL =
  'subscriptions/listen is not offered: this server is stateless and its tool list never changes (listChanged is false); call tools/list when you need it.';

export function createMcpApp(
  options: McpAppOptions,
): (request: Request, context?: McpCallContext) => Promise<Response> {
  const log = options.log ?? ((line: string) => console.error(line));
  const mcpPath = new URL(options.auth.resourceUrl).pathname;
  const metadata = protectedResourceMetadata(options.auth);
  const build = () => createMcpServer(options.tools);
  // Modern leg only ('reject'); the legacy leg below answers JSON instead of SSE bodies.
  const modern = createMcpHandler(build, {
    legacy: 'reject',
    responseMode: 'json',
    maxSubscriptions: 0,
    maxRequestBodySize: options.maxBodyBytes,
    onerror: (error) => log(`mcp: ${error.message}`),
  });

  async function legacy(request: Request, authInfo: AuthInfo | undefined, parsedBody: unknown) {
    const server = build();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { ...(authInfo ? { authInfo } : {}), parsedBody });
    } finally {
      await server.close();
    }
  }

  return async (request, context = {}) => withHeaders(await answer(request, context), MCP_RESPONSE_HEADERS);

  async function answer(request: Request, context: McpCallContext): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith('/.well-known/oauth-protected-resource')) {
      // The path-inserted document (RFC 9728 section 3.1) and the root one describe the same resource.
      if (
        pathname !== '/.well-known/oauth-protected-resource' &&
        pathname !== `/.well-known/oauth-protected-resource${mcpPath}`
      ) {
        return Response.json({ error: 'not_found' }, { status: 404 });
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
      }
      return Response.json(metadata, {
        headers: { 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' },
      });
    }
    if (pathname !== mcpPath) return jsonRpcError(404, -32601, 'Not found');
    if (options.allowedHosts.length > 0) {
      const rejected = hostHeaderValidationResponse(request, [...options.allowedHosts]);
      if (rejected) return rejected;
    }
    if (request.method !== 'POST') {
      return jsonRpcError(
        405,
        -32000,
        'Method not allowed: this endpoint is stateless and answers POST only.',
        {
          allow: 'POST',
        },
      );
    }
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > options.maxBodyBytes) return jsonRpcError(413, -32600, 'Request body too large');
    const text = await request.text();
    if (Buffer.byteLength(text, 'utf8') > options.maxBodyBytes) {
      return jsonRpcError(413, -32600, 'Request body too large');
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined; // the SDK answers the parse error
    }
    if (
      !Array.isArray(body) &&
      (body as { method?: unknown } | undefined)?.method === 'subscriptions/listen'
    ) {
      return jsonRpcError(200, -32601, LISTEN_REFUSAL, {}, body);
    }
    const gate = await authGate(request, body, options.verifier, options.auth);
    if (gate instanceof Response) return gate;
    let rateHeaders: Record<string, string> = {};
    const calls = countedCalls(body);
    if (options.limits && calls > 0) {
      const { store, perIp, perUser, clock } = options.limits;
      const sub = gate.authInfo?.extra?.sub;
      const [policy, subject] = sub
        ? [perUser, `${COUNTER_PREFIXES.mcp.user}${String(sub)}`]
        : [perIp, `${COUNTER_PREFIXES.mcp.ip}${context.clientIp ?? 'unknown'}`];
      let decision: LimitDecision | null = null;
      try {
        decision = await consume(store, policy, subject, clock.now(), calls);
      } catch (error: unknown) {
        // Fail open, as the API does: an unreachable counter store must not take the tools down.
        // No counter was consulted, so the answer carries the policy but no RateLimit field.
        log(`mcp: limiter failed: ${error instanceof Error ? error.message : String(error)}`);
        rateHeaders = { 'ratelimit-policy': policyHeader(policy) };
      }
      if (decision) rateHeaders = limitHeaders(decision);
      if (decision && !decision.admitted) {
        return jsonRpcError(
          429,
          -32000,
          `Too many tool calls: ${decision.policy.quota} per ${decision.policy.windowSeconds} s${calls > 1 ? ` (this batch counts ${calls})` : ''}; retry after ${decision.resetSeconds} s.`,
          rateHeaders,
          body,
        );
      }
    }
    const forward = new Request(request.url, { method: 'POST', headers: request.headers, body: text });
    const response =
      body !== undefined && (await isLegacyRequest(forward, body))
        ? await legacy(forward, gate.authInfo, body)
        : await modern.fetch(forward, {
            ...(gate.authInfo ? { authInfo: gate.authInfo } : {}),
            ...(body !== undefined ? { parsedBody: body } : {}),
          });
    return Object.keys(rateHeaders).length > 0 ? withHeaders(response, rateHeaders) : response;
  }
}
