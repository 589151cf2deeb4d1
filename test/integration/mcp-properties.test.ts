/**
 * Properties of every MCP tool under arbitrary arguments, through the SDK's own client over HTTP
 * against the local runtime: anonymous for the anonymous tools, real development-IdP tokens (Pro and
 * Business) for all of them. Arguments are drawn from each tool's advertised input schema (so a new
 * tool is covered as soon as it is listed): right and wrong types, numbers for ids and numeric
 * strings for numbers, out-of-range values, unknown ports, hostile strings, extra keys.
 *
 * - Any arguments: the answer is a tool result or a JSON-RPC error; never a 5xx, never a hang.
 * - Well-formed arguments spelled as assistants spell them (a numeric-looking id as a number, a
 *   number as a numeric string): the same success as the canonical spelling.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_SCOPES } from '../../functions/mcp/auth.ts';
import { clientOptions, ERAS, type Era, tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');
const RUNS = 1_000;
/** Longest a call may take before it counts as hung. */
const CALL_TIMEOUT_MS = 15_000;

type Identity = 'anonymous' | 'pro' | 'business';
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
}
interface ListedTool {
  name: string;
  inputSchema: JsonSchema;
}

let stack: TestStack;
let tools: ListedTool[] = [];
const clients = new Map<string, Client>();
/** Every HTTP status the clients saw, and the 5xx answers with their bodies. */
const statuses = new Map<number, number>();
const serverErrors: string[] = [];

/** fetch that records what the server answered, for the "never a 5xx" half of the property. */
const recordingFetch: typeof fetch = async (input, init) => {
  // On a loaded machine the server may close an idle keep-alive connection just as the client
  // reuses it (ECONNRESET before any answer, so nothing ran): such a request is sent once more.
  const response = await fetch(input, init).catch((error: unknown) => {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
    return fetch(input, init);
  });
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  if (response.status >= 500) {
    serverErrors.push(
      `${response.status} ${String(init?.body).slice(0, 300)} -> ${await response.clone().text()}`,
    );
  }
  return response;
};

async function connect(era: Era, token?: string): Promise<Client> {
  const client = new Client({ name: 'border-waits-properties', version: '0.0.0' }, clientOptions(era));
  const transport = new StreamableHTTPClientTransport(new URL(stack.service.mcpUrl), {
    fetch: recordingFetch,
    ...(token ? { authProvider: { token: async () => token } } : {}),
  });
  await client.connect(transport);
  return client;
}

const clientFor = (identity: Identity, era: Era): Client => {
  const client = clients.get(`${identity} ${era}`);
  if (!client) throw new Error(`no client ${identity} ${era}`);
  return client;
};

/** Identities that reach a tool's own code (the anonymous 401 challenge is mcp-auth's subject). */
const identitiesFor = (tool: string): Identity[] =>
  TOOL_SCOPES[tool] ? ['pro', 'business'] : ['anonymous', 'pro', 'business'];

// Published ports of both borders (filled once the stack has ingested); the all-digit ids without
// a leading zero read the same as numbers.
const PORT_IDS: string[] = [];
const NUMERIC_IDS: string[] = [];
const SLUGS: string[] = [];

const junk = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.integer(), { maxKeys: 2 }),
  fc.constantFrom('', ' ', '__proto__', 'constructor', '../../etc/passwd', '%00', '\u0000', 'ñ'.repeat(300)),
);

/** Values a careful client would send for a property (within the schema, ids of real ports). */
function plausible(name: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) return fc.oneof(...variants.map((variant) => plausible(name, variant)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (name === 'port_id') return fc.constantFrom(...PORT_IDS, ...SLUGS);
  if (name === 'port_ids')
    return fc.uniqueArray(fc.constantFrom(...PORT_IDS, ...SLUGS), { minLength: 2, maxLength: 5 });
  if (name === 'alert_id') return fc.constantFrom('al_missing', 'al_0000');
  if (name === 'webhook_url')
    return fc.constantFrom('https://example.com/hooks/waits', 'https://hooks.example.org/b');
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (type === 'integer' || type === 'number') {
    const low = Math.ceil(schema.minimum ?? 0);
    const high = Math.floor(Math.min(schema.maximum ?? low + 1_000, low + 1_000));
    return fc.integer({ min: low, max: Math.max(low, high) });
  }
  if (type === 'boolean') return fc.boolean();
  if (type === 'array') return fc.array(plausible(name, schema.items ?? {}), { minLength: 1, maxLength: 3 });
  if (type === 'object' && schema.properties) return plausibleArguments(schema);
  if (name === 'state') return fc.constantFrom('TX', 'CA', 'MI', 'WA', 'NY');
  return fc.constantFrom('el paso', 'Tijuana', 'detroit', 'blaine', 'laredo', 'nogales');
}

/** Anything at all for a property: wrong types, numbers for ids, numeric strings, hostile strings. */
function wild(name: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const portIdLike = fc.oneof(
    fc.constantFrom(...NUMERIC_IDS.map(Number)),
    fc.constantFrom('999999', '000000', 'l99999', 'not-a-port', '250401 ', 2.5e5),
    fc.integer({ min: 0, max: 999_999 }),
    junk,
  );
  if (name === 'port_id') return portIdLike;
  if (name === 'port_ids') return fc.oneof(fc.array(portIdLike, { maxLength: 16 }), junk);
  if (name === 'alert_id')
    return fc.oneof(
      fc.string({ maxLength: 70 }).map((s) => `al_${s}`),
      junk,
    );
  if (name === 'webhook_url')
    return fc.oneof(
      fc.webUrl(),
      fc.constantFrom(
        'http://127.0.0.1:9/hook',
        'https://[::ffff:127.0.0.1]/',
        'https://[::ffff:7f00:1]/',
        'https://169.254.169.254/latest',
        'https://user:pass@example.com/',
        'ftp://example.com/',
        'not a url',
      ),
      junk,
    );
  if (type === 'integer' || type === 'number') {
    const inRange = plausible(name, schema) as fc.Arbitrary<number>;
    return fc.oneof(
      inRange.map(String),
      fc.integer(),
      fc.double(),
      fc.constantFrom(' 24 ', '1e3', '0x10', '-0', 'NaN', 'Infinity', ''),
      junk,
    );
  }
  if (type === 'array') return fc.oneof(fc.array(wild(name, schema.items ?? {}), { maxLength: 8 }), junk);
  if (type === 'object' && schema.properties) return fc.oneof(wildArguments(schema), junk);
  return junk;
}

/** Every required property and some optional ones, all plausible. */
function plausibleArguments(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    shape[name] = plausible(name, property);
  return fc.record(shape, { requiredKeys: (schema.required ?? []).filter((key) => key in shape) });
}

/** Any subset of the properties, each plausible or wild, sometimes with extra keys. */
function wildArguments(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    shape[name] = fc.oneof(plausible(name, property), wild(name, property));
  }
  return fc
    .tuple(
      fc.record(shape, { requiredKeys: [] }),
      fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), junk, { maxKeys: 3 }), { freq: 5 }),
    )
    .map(([known, extra]) => ({ ...(extra ?? {}), ...known }));
}

/** Arguments for a tool: well-formed, well-formed but for one property, or anything. */
function argumentsFor(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(schema.properties ?? {});
  const oneOff =
    names.length === 0
      ? plausibleArguments(schema)
      : fc
          .tuple(plausibleArguments(schema), fc.constantFrom(...names))
          .chain(([args, name]) =>
            wild(name, schema.properties?.[name] ?? {}).map((value) => ({ ...args, [name]: value })),
          );
  return fc.oneof(plausibleArguments(schema), oneOff, wildArguments(schema));
}

type Answer = { kind: 'result'; isError: boolean; text: string } | { kind: 'rpc-error'; code: number };

/** Calls a tool; a tool result or a JSON-RPC error come back, anything else is thrown. */
async function answer(
  identity: Identity,
  era: Era,
  name: string,
  args: Record<string, unknown>,
): Promise<Answer> {
  try {
    const result = await clientFor(identity, era).callTool(
      { name, arguments: args },
      { timeout: CALL_TIMEOUT_MS },
    );
    if (!Array.isArray(result.content)) throw new Error(`${name}: a result without content`);
    const first = result.content[0] as { text?: string } | undefined;
    return { kind: 'result', isError: result.isError === true, text: first?.text ?? '' };
  } catch (error: unknown) {
    if (error instanceof ProtocolError) return { kind: 'rpc-error', code: error.code };
    throw error;
  }
}

beforeAll(async () => {
  // Limits are the subject of other tests; here they would turn most calls into 429s.
  stack = await startStack({
    atMs: AT,
    env: { MCP_RATE_LIMIT_PER_MINUTE: '1000000', MCP_USER_RATE_LIMIT_PER_MINUTE: '1000000' },
  });
  await stack.service.ingestNow();
  stack.clock.set(AT + 10 * 60_000);
  await stack.service.ingestNow();
  const { body } = await stack.json<{ ports: { id: string; slug: string; border: string }[] }>(
    '/api/v1/ports',
  );
  for (const border of ['mx', 'ca']) {
    const ports = body.ports.filter((port) => port.border === border);
    for (const port of ports.filter((_, i) => i % Math.ceil(ports.length / 6) === 0)) {
      PORT_IDS.push(port.id);
      SLUGS.push(port.slug);
      if (/^[1-9]\d*$/.test(port.id)) NUMERIC_IDS.push(port.id);
    }
  }
  const tokens = { pro: await tokenFor(stack, 'pro'), business: await tokenFor(stack, 'business') };
  for (const era of ERAS) {
    clients.set(`anonymous ${era}`, await connect(era));
    clients.set(`pro ${era}`, await connect(era, tokens.pro));
    clients.set(`business ${era}`, await connect(era, tokens.business));
  }
  tools = (await clientFor('anonymous', '2026-07-28').listTools()).tools as ListedTool[];
}, 120_000);

afterAll(async () => {
  for (const client of clients.values()) await client.close().catch(() => undefined);
  await stack?.stop();
});

describe('every MCP tool under arbitrary arguments', () => {
  it(`answers ${RUNS} random argument sets with a tool result or a JSON-RPC error, never a 5xx or a hang`, async () => {
    expect(tools.length).toBeGreaterThanOrEqual(9);
    const calls = fc.oneof(
      ...tools.map((tool) =>
        fc.record({
          name: fc.constant(tool.name),
          identity: fc.constantFrom(...identitiesFor(tool.name)),
          era: fc.constantFrom(...ERAS),
          args: argumentsFor(tool.inputSchema),
        }),
      ),
    );
    const seen = new Map<string, { results: number; errors: number; rpcErrors: number }>();
    await fc.assert(
      fc.asyncProperty(calls, async ({ name, identity, era, args }) => {
        const before = serverErrors.length;
        const got = await answer(identity, era, name, args);
        const tally = seen.get(name) ?? { results: 0, errors: 0, rpcErrors: 0 };
        if (got.kind === 'rpc-error') tally.rpcErrors += 1;
        else if (got.isError) tally.errors += 1;
        else tally.results += 1;
        seen.set(name, tally);
        // An internal error is a 5xx in JSON-RPC clothing; so is the store-failure message while
        // the store is up (the tool caught something it should have answered). A store call can
        // time out on a loaded machine: the same call again must not fail the same way.
        if (got.kind === 'rpc-error') expect(got.code, `${name} ${JSON.stringify(args)}`).not.toBe(-32603);
        else if (/unavailable right now/.test(got.text)) {
          await new Promise((done) => setTimeout(done, 1_000));
          const again = await answer(identity, era, name, args);
          if (again.kind === 'result') {
            expect(again.text, `${name} ${JSON.stringify(args)}`).not.toMatch(/unavailable right now/);
          }
        }
        expect(serverErrors.slice(before), `${name} ${JSON.stringify(args)}`).toEqual([]);
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 280_000, markInterruptAsFailure: true },
    );
    // Every tool was exercised, and arguments reached the tools' own code (not only the schema check).
    for (const tool of tools) {
      const tally = seen.get(tool.name);
      expect(tally, tool.name).toBeDefined();
      expect(
        (tally?.results ?? 0) + (tally?.errors ?? 0) + (tally?.rpcErrors ?? 0),
        tool.name,
      ).toBeGreaterThan(20);
    }
    const successes = [...seen.values()].reduce((sum, t) => sum + t.results, 0);
    expect(successes).toBeGreaterThan(RUNS / 10);
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
  }, 300_000);

  it('answers well-formed arguments the same when ids come as numbers and numbers as strings', async () => {
    // [tool, canonical arguments, the same spelled as assistants and the MCP Inspector send them]
    const cases = fc.oneof(
      fc
        .record({ id: fc.constantFrom(...NUMERIC_IDS), era: fc.constantFrom(...ERAS) })
        .map(({ id, era }) => ({
          era,
          name: 'get_current_waits',
          canonical: { port_id: id },
          liberal: { port_id: Number(id) } as Record<string, unknown>,
        })),
      fc
        .record({
          id: fc.constantFrom(...NUMERIC_IDS),
          era: fc.constantFrom(...ERAS),
          samples: fc.integer({ min: 1, max: 3 }),
          limit: fc.integer({ min: 1, max: 24 }),
        })
        .map(({ id, era, samples, limit }) => ({
          era,
          name: 'best_time_to_cross',
          canonical: { port_id: id, direction: 'into-us', min_samples: samples, limit },
          liberal: {
            port_id: Number(id),
            direction: 'into-us',
            min_samples: String(samples),
            limit: String(limit),
          },
        })),
      fc
        .record({
          id: fc.constantFrom(...NUMERIC_IDS),
          era: fc.constantFrom(...ERAS),
          hours: fc.integer({ min: 1, max: 48 }),
        })
        .map(({ id, era, hours }) => ({
          era,
          name: 'get_wait_history',
          canonical: { port_id: id, hours },
          liberal: { port_id: Number(id), hours: String(hours) },
        })),
      fc
        .record({
          ids: fc.uniqueArray(fc.constantFrom(...NUMERIC_IDS), { minLength: 2, maxLength: 4 }),
          era: fc.constantFrom(...ERAS),
        })
        .map(({ ids, era }) => ({
          era,
          name: 'compare_crossings',
          canonical: { direction: 'into-us', port_ids: ids },
          liberal: { direction: 'into-us', port_ids: ids.map(Number), limit: '5' },
        })),
      fc
        .record({
          id: fc.constantFrom(...NUMERIC_IDS),
          era: fc.constantFrom(...ERAS),
          hours: fc.integer({ min: 1, max: 6 }),
        })
        .map(({ id, era, hours }) => ({
          era,
          name: 'export_observations',
          canonical: { port_ids: [id], hours, format: 'json' },
          liberal: { port_ids: [Number(id)], hours: String(hours), format: 'json' },
        })),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ era, name, canonical, liberal }) => {
        const identity: Identity = TOOL_SCOPES[name] ? 'business' : 'anonymous';
        const plain = await answer(identity, era, name, canonical);
        expect(plain, `${name} ${JSON.stringify(canonical)}`).toMatchObject({
          kind: 'result',
          isError: false,
        });
        const spelled = await answer(identity, era, name, liberal);
        expect(spelled, `${name} ${JSON.stringify(liberal)}`).toMatchObject({
          kind: 'result',
          isError: false,
        });
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
