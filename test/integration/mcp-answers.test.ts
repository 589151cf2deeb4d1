/**
 * What the MCP answers say, as a client outside the project reads them: texts are readable
 * sentences (not the structured JSON again), times come with the port's time zone, time inputs
 * take ISO instants everywhere and port-local HH:MM where a tool takes a local time, and methods
 * the server does not offer are refused with a defined JSON-RPC error. No forecast has been
 * issued in this stack, so the forecast questions meet "no forecast yet".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Era, rpcBody, rpcRequest, tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

// Wednesday 2026-11-18, 09:10 in San Ysidro (America/Los_Angeles).
const AT = Date.parse('2026-11-18T17:10:00Z');
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ atMs: AT, ports: ['250401', '250601', '230401'] });
  await stack.service.ingestNow();
});
afterAll(() => stack?.stop());

type Content = { type: string; text?: string }[];
const textOf = (body: Awaited<ReturnType<typeof callTool>>['body']) =>
  ((body?.result?.content ?? []) as Content).find((c) => c.type === 'text')?.text ?? '';

describe('text answers', () => {
  it.each([
    ['search_crossings', { query: 'san ysidro' }],
    ['get_current_waits', { port_id: '250401' }],
    ['compare_crossings', { port_ids: ['250401', '250601'], direction: 'into-us' }],
    ['best_time_to_cross', { port_id: '250401', direction: 'into-us' }],
  ])('%s answers a readable summary, not the structured JSON repeated', async (tool, args) => {
    const { body } = await callTool(stack, '2026-07-28', tool, args);
    expect(body?.result?.isError).toBeFalsy();
    const text = textOf(body);
    expect(text.length).toBeGreaterThan(10);
    expect(text).not.toMatch(/[{}]|"\w+":/);
    expect(text).toMatch(/[.]$/);
  });

  it('compare_crossings puts the current ranking first when no forecast exists for the arrival', async () => {
    const { body } = await callTool(stack, '2025-11-25', 'compare_crossings', {
      port_ids: ['250401', '250601'],
      direction: 'into-us',
      in_minutes: 90,
    });
    expect(body?.result?.isError).toBeFalsy();
    const text = textOf(body);
    expect(text).toMatch(/^Shortest into-us passenger standard wait now: 1\. /);
    expect(text).toMatch(
      /\. No forecast for an arrival at Wed 18 Nov 10:40 Pacific Time at these crossings yet/,
    );
  });

  it('best_time_to_cross separates its sentences', async () => {
    const { body } = await callTool(stack, '2025-11-25', 'best_time_to_cross', {
      port_id: '250401',
      direction: 'into-us',
      depart_between: { from: '10:00', to: '12:00' },
    });
    const text = textOf(body);
    // The window's sentence ends before the averages' one starts.
    expect(text).toMatch(
      /^San Ysidro, departing Wed 18 Nov 10:00-12:00 Pacific Time: [^.]+\. San Ysidro: no hourly averages/,
    );
  });
});

describe('names', () => {
  it('name each crossing of a city that has several, in texts and answers alike', async () => {
    const search = await callTool(stack, '2026-07-28', 'search_crossings', { query: 'blaine' });
    expect(textOf(search.body)).toContain('Blaine (Peace Arch) (id 300402, Pacific Time)');
    expect(textOf(search.body)).toContain('Blaine (Point Roberts) (id 300403, Pacific Time)');
    const current = await callTool(stack, '2026-07-28', 'get_current_waits', {
      port_id: 'blaine-peace-arch',
    });
    expect(current.body?.result?.structuredContent).toMatchObject({ name: 'Blaine', crossing: 'Peace Arch' });
    expect(textOf(current.body)).toMatch(/^Blaine \(Peace Arch\): no current readings/);
  });

  it('compare_crossings says so when no crossing matches the state asked', async () => {
    const { body } = await callTool(stack, '2026-07-28', 'compare_crossings', {
      direction: 'into-us',
      state: 'ZZ',
    });
    expect(body?.result?.isError).toBe(true);
    expect(textOf(body)).toBe(
      'No crossing in ZZ has into-us wait times (search_crossings lists the crossings by state, border or place).',
    );
  });
});

describe('times and time zones', () => {
  it('compare_crossings gives each ranked crossing its time zone', async () => {
    const { body } = await callTool(stack, '2026-07-28', 'compare_crossings', {
      port_ids: ['250401', '230401'],
      direction: 'into-us',
    });
    const content = body?.result?.structuredContent as { ranked: { portId: string; timeZone: string }[] };
    const ranked = content.ranked;
    expect(ranked.length).toBeGreaterThan(0);
    const zones = Object.fromEntries(ranked.map((r) => [r.portId, r.timeZone]));
    expect(zones).toMatchObject({ '250401': 'America/Los_Angeles' });
    if (zones['230401']) expect(zones['230401']).toBe('America/Chicago');
  });

  it.each([
    ['port-local HH:MM', { from: '10:00', to: '12:00' }],
    ['ISO instants', { from: '2026-11-18T18:00:00Z', to: '2026-11-18T12:00:00-08:00' }],
  ])(
    'best_time_to_cross takes a departure window as %s, and answers both spellings',
    async (_name, window) => {
      const { body } = await callTool(stack, '2026-07-28', 'best_time_to_cross', {
        port_id: '250401',
        direction: 'into-us',
        depart_between: window,
      });
      expect(body?.result?.isError).toBeFalsy();
      const structured = body?.result?.structuredContent as {
        timeZone: string;
        today: { from: string; to: string; fromAt: string; toAt: string };
      };
      expect(structured.timeZone).toBe('America/Los_Angeles');
      expect(structured.today).toMatchObject({
        from: '10:00',
        to: '12:00',
        fromAt: '2026-11-18T18:00:00.000Z',
        toAt: '2026-11-18T20:00:00.000Z',
      });
    },
  );

  it('compare_crossings refuses an arrival that is not an ISO instant, naming the format', async () => {
    const { body } = await callTool(stack, '2026-07-28', 'compare_crossings', {
      port_ids: ['250401', '250601'],
      direction: 'into-us',
      arrive_at: '10:30',
    });
    expect(body?.result?.isError).toBe(true);
    expect(textOf(body)).toMatch(/arrive_at/);
  });

  it('an alert carries its port’s time zone, and list_alerts says what each alert watches', async () => {
    const token = await tokenFor(stack, 'pro');
    const created = await callTool(
      stack,
      '2026-07-28',
      'create_alert',
      { port_id: '250401', direction: 'into-us', threshold_minutes: 20 },
      token,
    );
    expect(created.body?.result?.structuredContent).toMatchObject({
      alert: { portId: '250401', timeZone: 'America/Los_Angeles' },
    });
    const listed = await callTool(stack, '2025-11-25', 'list_alerts', {}, token);
    expect(listed.body?.result?.structuredContent).toMatchObject({
      alerts: [{ portId: '250401', timeZone: 'America/Los_Angeles' }],
    });
    expect(textOf(listed.body)).toMatch(
      /^You have 1 alert\(s\)\. al_\S+: San Ysidro into-us passenger standard below 20 min/,
    );
  });
});

describe('exports', () => {
  it('export_observations names each port’s time zone and says what it holds in a sentence', async () => {
    const token = await tokenFor(stack, 'business');
    const { body } = await callTool(
      stack,
      '2026-07-28',
      'export_observations',
      { port_ids: ['250401', '230401'], hours: 2, format: 'json' },
      token,
    );
    expect(body?.result?.isError).toBeFalsy();
    expect(body?.result?.structuredContent).toMatchObject({
      timeZones: { '250401': 'America/Los_Angeles', '230401': 'America/Chicago' },
    });
    expect(textOf(body)).toMatch(/^\d+ observations of 250401, 230401 from \S+Z to \S+Z/);
  });
});

describe('methods this server does not offer', () => {
  it.each(['2026-07-28'] as Era[])(
    'subscriptions/listen is refused with -32601 and a reason (%s)',
    async (era) => {
      const response = await fetch(
        stack.service.mcpUrl,
        rpcRequest(era, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 9 }),
      );
      const body = await rpcBody(response);
      expect(body).toMatchObject({ id: 9, error: { code: -32601 } });
      expect(body.error?.message).toMatch(/not offered.*stateless/);
    },
  );
});
