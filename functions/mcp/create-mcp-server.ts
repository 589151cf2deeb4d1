/**
 * One `McpServer` per request (stateless; the SDK refuses to reuse an instance). Every caller sees
 * the same tool list, in the same order, so `tools/list` is publicly cacheable; the tier tools say
 * what they need and the gate in front answers 401/403 when they are called.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { TOOLS } from './registry.ts';
import type { ToolDeps } from './tool-kit.ts';

export const SERVER_INFO = { name: 'border-waits', title: 'US land border wait times', version: '0.1.0' };

export function createMcpServer(deps: ToolDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Wait times at US land ports of entry (CBP into the US, CBSA into Canada). Start with search_crossings ' +
      'to find a port id. Every reading carries its own observedAt and freshness; say how old a number is. ' +
      'Alerts need a Pro plan, history and exports a Business plan (OAuth sign-in).',
    // listChanged false: a 2026 client would otherwise open subscriptions/listen, a stream that
    // never ends and would hold a buffered Lambda until its timeout.
    capabilities: { tools: { listChanged: false } },
    // The SDK validates elicitation answers with JSON Schema; the service elicits nothing. This
    // validator is the SDK's lighter one, and the same one whether run locally or bundled (where
    // BUNDLE_ALIASES keeps the unused Ajv default of the SDK's Node build out: 150 KB).
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    cacheHints: {
      'tools/list': { ttlMs: 600_000, cacheScope: 'public' },
      'server/discover': { ttlMs: 600_000, cacheScope: 'public' },
    },
  });
  for (const tool of TOOLS) tool.register(server, deps);
  return server;
}
