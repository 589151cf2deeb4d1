/**
 * Helpers for the MCP tests: raw JSON-RPC over HTTP in either era (no initialize: the server is
 * stateless), the SDK client per era, and tokens from the development IdP.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { devLogin } from '../../infra/local/dev-idp-login.ts';
import type { TestStack } from './stack.ts';

export const ERAS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type Era = (typeof ERAS)[number];

/** A JSON-RPC request as a client of `era` sends it (headers and `_meta` of 2026-07-28). */
export function rpcRequest(
  era: Era,
  method: string,
  params: Record<string, unknown> = {},
  options: { token?: string; headers?: Record<string, string>; id?: number | string } = {},
): RequestInit {
  const modern = era === '2026-07-28';
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': era,
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...(modern ? { 'mcp-method': method } : {}),
    ...(modern && method === 'tools/call' ? { 'mcp-name': String(params.name) } : {}),
    ...options.headers,
  };
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? 1,
    method,
    params: modern
      ? {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': era,
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '0' },
          },
        }
      : params,
  };
  return { method: 'POST', headers, body: JSON.stringify(body) };
}

/** Reads a JSON or SSE (`data:` line) JSON-RPC answer. */
export async function rpcBody(response: Response): Promise<{
  result?: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown[] } & Record<
    string,
    unknown
  >;
  error?: { code: number; message: string };
}> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const line = text.split('\n').find((l) => l.startsWith('data:'));
    return JSON.parse(line?.slice(5) ?? '{}');
  }
  return JSON.parse(text);
}

export async function callTool(
  stack: TestStack,
  era: Era,
  name: string,
  args: Record<string, unknown>,
  token?: string,
) {
  const response = await fetch(
    stack.service.mcpUrl,
    rpcRequest(era, 'tools/call', { name, arguments: args }, token ? { token } : {}),
  );
  return { response, status: response.status, body: response.ok ? await rpcBody(response) : undefined };
}

/** Client options that make the SDK speak `era`. */
export function clientOptions(era: Era) {
  if (era === '2026-07-28') return { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
  return { supportedProtocolVersions: [era] };
}

export async function connectClient(stack: TestStack, era: Era, token?: string): Promise<Client> {
  const client = new Client({ name: 'border-waits-test', version: '0.0.0' }, clientOptions(era));
  const transport = new StreamableHTTPClientTransport(
    new URL(stack.service.mcpUrl),
    token ? { authProvider: { token: async () => token } } : {},
  );
  await client.connect(transport);
  return client;
}

export async function tokenFor(stack: TestStack, user: 'pro' | 'business', scope?: string): Promise<string> {
  const tokens = await devLogin({
    issuer: stack.service.issuer,
    user,
    resource: stack.service.mcpUrl,
    ...(scope ? { scope } : {}),
  });
  return tokens.access_token;
}

/** The `structuredContent` of a tool call's answer (throws when there is none). */
export function structured<T>(call: { body?: Awaited<ReturnType<typeof rpcBody>> | undefined }): T {
  const content = call.body?.result?.structuredContent;
  if (!content) throw new Error(`no structuredContent in ${JSON.stringify(call.body)}`);
  return content as T;
}
