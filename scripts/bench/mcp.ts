/**
 * `npm run bench -- mcp`: `tools/call` latency of each anonymous tool through the local runtime's
 * /mcp (edge, local HTTP API, a new McpServer per request), median and p99, in the legacy
 * (2025-11-25) and current (2026-07-28) eras; the plain API's port-current next to
 * get_current_waits; and the cost of a JWT check with a warm JWKS cache (a Pro call with a token
 * next to an anonymous one, and the verifier alone). Calls include the tool-call rate limiter (one
 * DynamoDB update each).
 */
import { createJwtVerifier, resourceMetadataUrlOf } from '../../functions/mcp/auth.ts';
import { devLogin } from '../../infra/local/dev-idp-login.ts';
import { startBenchService } from './_local.ts';
import { median, percentile, timeRuns } from './_stats.ts';

const RUNS = 300;
// Simulated time runs at the wall clock's pace, so caches expire as they would in service.
const startedAt = Date.now();
const clock = { now: () => Date.parse('2026-11-18T17:10:00Z') + (Date.now() - startedAt) };
// The per-IP and per-user tool-call limits would stop a benchmark: lifted here.
const bench = await startBenchService('mcp', clock, {
  MCP_RATE_LIMIT_PER_MINUTE: '1000000',
  MCP_USER_RATE_LIMIT_PER_MINUTE: '1000000',
});
const { service } = bench;

const TOOLS: [string, Record<string, unknown>][] = [
  ['search_crossings', { query: 'el paso' }],
  ['get_current_waits', { port_id: '250401' }],
  ['compare_crossings', { direction: 'into-us', border: 'mx', lanes: ['standard', 'sentri'] }],
  ['best_time_to_cross', { port_id: '250401', direction: 'into-us', min_samples: 1 }],
];

function init(era: string, name: string, args: Record<string, unknown>, token?: string): RequestInit {
  const modern = era === '2026-07-28';
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': era,
      ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': name } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...(modern
          ? {
              _meta: {
                'io.modelcontextprotocol/protocolVersion': era,
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            }
          : {}),
      },
    }),
  };
}

async function call(request: RequestInit): Promise<void> {
  const response = await fetch(service.mcpUrl, request);
  const text = await response.text();
  if (!response.ok || text.includes('"isError":true'))
    throw new Error(`${response.status} ${text.slice(0, 200)}`);
}

const row = (label: string, times: number[]) =>
  `${label.padEnd(44)} median ${median(times).toFixed(2).padStart(6)} ms   p99 ${percentile(times, 99).toFixed(2).padStart(6)} ms`;

try {
  await service.ingestNow();
  console.log(
    `tools/call over HTTP through the local runtime, ${RUNS} sequential calls each (after warm-up)`,
  );
  const medians = new Map<string, number>();
  for (const era of ['2025-11-25', '2026-07-28']) {
    for (const [name, args] of TOOLS) {
      const times = await timeRuns(() => call(init(era, name, args)), RUNS, 10);
      medians.set(`${era} ${name}`, median(times));
      console.log(row(`${era} ${name}`, times));
    }
  }
  const plain = await timeRuns(
    async () => {
      const response = await fetch(`${service.url}/api/v1/port-current?include=ports`);
      await response.arrayBuffer();
    },
    RUNS,
    10,
  );
  console.log(row('plain API GET /api/v1/port-current?include=ports', plain));
  const current = medians.get('2026-07-28 get_current_waits') ?? Number.NaN;
  console.log(`get_current_waits (2026-07-28) / plain API: ${(current / median(plain)).toFixed(2)}x`);

  const token = (await devLogin({ issuer: service.issuer, user: 'pro', resource: service.mcpUrl }))
    .access_token;
  const anonymous = await timeRuns(
    () => call(init('2026-07-28', 'search_crossings', { state: 'TX' })),
    RUNS,
    10,
  );
  const withToken = await timeRuns(() => call(init('2026-07-28', 'list_alerts', {}, token)), RUNS, 10);
  console.log(row('2026-07-28 search_crossings, no token', anonymous));
  console.log(row('2026-07-28 list_alerts, Pro token (JWT + DynamoDB)', withToken));
  const verifier = createJwtVerifier({
    resourceUrl: service.mcpUrl,
    resourceMetadataUrl: resourceMetadataUrlOf(service.mcpUrl),
    issuer: service.issuer,
    audience: service.mcpUrl,
    tierClaim: 'tier',
  });
  const verify = await timeRuns(() => verifier.verifyAccessToken(token), 2_000, 20);
  console.log(
    `JWT verification alone (RS256, JWKS cached after the first call): median ${(median(verify) * 1000).toFixed(0)} µs, p99 ${(percentile(verify, 99) * 1000).toFixed(0)} µs`,
  );
} finally {
  await bench.stop();
}
