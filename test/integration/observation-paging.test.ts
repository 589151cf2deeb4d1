/**
 * `wait-observations` returns the whole window page by page: 336 hours of a port with more
 * observations than one page holds are read through `next` (body) and `Link: rel="next"`, and
 * every stored observation of the window comes exactly once; the store's own pages agree at any
 * page size; a cursor the API did not issue is a 400 problem+json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStores, type Stores } from '../../functions/adapters/stores.ts';
import { parseConfig, StoreConfigSchema, storeSettingsOf } from '../../functions/config.ts';
import { PORTS } from '../../functions/core/catalogue/catalogue.ts';
import type { Observation } from '../../functions/core/model.ts';
import { MAX_OBSERVATIONS } from '../../functions/core/views/queries.ts';
import { RETENTION_HOURS } from '../../infra/manifest.ts';
import { callTool, structured, tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-20T15:07:00Z');
const PORT = '250401';
const OTHER_PORT = PORTS.find((p) => p.id !== PORT)?.id ?? '';
const LANES = [
  ['into-us', 'passenger', 'standard'],
  ['into-us', 'passenger', 'ready'],
  ['into-us', 'passenger', 'sentri'],
  ['into-us', 'pedestrian', 'standard'],
  ['into-us', 'commercial', 'standard'],
] as const;

/** Every 5 minutes on five lanes from 340 hours ago to 2 hours ahead: about 2.5 pages of the window. */
function seeded(): Observation[] {
  const out: Observation[] = [];
  for (let t = NOW - 340 * HOUR; t <= NOW + 2 * HOUR; t += 5 * 60_000) {
    LANES.forEach(([direction, mode, lane], i) => {
      out.push({
        portId: PORT,
        source: 'cbp',
        direction,
        mode,
        lane,
        status: 'open',
        delayMinutes: (Math.floor(t / 60_000) + i) % 90,
        lanesOpen: 1 + i,
        maxLanes: 10,
        observedAt: new Date(t).toISOString().replace('.000', ''),
        fetchedAt: new Date(t + 60_000).toISOString(),
      });
    });
  }
  return out;
}

const identity = (o: { observedAt: string; direction: string; mode: string; lane: string }) =>
  `${o.observedAt}|${o.direction}|${o.mode}|${o.lane}`;

interface Page {
  count: number;
  truncated: boolean;
  next: string | null;
  from: string;
  to: string;
  observations: { observedAt: string; direction: string; mode: string; lane: string; delayMinutes: number }[];
}

describe('wait-observations pages', () => {
  let stack: TestStack;
  let stores: Stores;
  let stored: Observation[];

  beforeAll(async () => {
    stack = await startStack({ atMs: NOW });
    await stack.service.ingestNow();
    stores = createStores(
      storeSettingsOf(
        parseConfig(StoreConfigSchema, {
          AWS_ENDPOINT_URL_DYNAMODB: stack.service.endpoints.dynamodb,
          AWS_ENDPOINT_URL_S3: stack.service.endpoints.s3,
        }),
      ),
      { now: () => NOW },
    );
    await stores.observations.putMany(seeded());
    // What the window holds: every stored observation of the port from NOW - 336 h to NOW.
    stored = (await stores.observations.query(PORT, 0, NOW + 10 * HOUR)).filter((o) => {
      const at = Date.parse(o.observedAt);
      return at >= NOW - RETENTION_HOURS * HOUR && at <= NOW;
    });
  }, 120_000);

  afterAll(async () => {
    stores?.dynamo.destroy();
    stores?.s3.destroy();
    await stack?.stop();
  });

  it('reads all 336 hours page by page through next and Link, each stored observation exactly once', async () => {
    expect(stored.length).toBeGreaterThan(2 * MAX_OBSERVATIONS);
    const seen: string[] = [];
    let path: string | null = `/api/v1/wait-observations?port_id=${PORT}&hours=336`;
    let pages = 0;
    while (path !== null) {
      const response: { status: number; body: Page; headers: Headers } = await stack.json<Page>(path);
      const { status, body, headers } = response;
      expect(status).toBe(200);
      pages += 1;
      expect(body.count).toBe(body.observations.length);
      expect(body.count).toBeLessThanOrEqual(MAX_OBSERVATIONS);
      expect(body.to).toBe(new Date(NOW).toISOString());
      const link = headers.get('link') ?? '';
      expect(link).toContain('rel="author"');
      if (body.next === null) {
        expect(body.truncated).toBe(false);
        expect(link).not.toContain('rel="next"');
      } else {
        expect(body.truncated).toBe(true);
        expect(body.count).toBe(MAX_OBSERVATIONS);
        expect(link).toContain(`<${body.next}>; rel="next"`);
      }
      seen.push(...body.observations.map(identity));
      path = body.next;
    }
    expect(pages).toBe(Math.ceil(stored.length / MAX_OBSERVATIONS));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(stored.map(identity));
  });

  it('keeps the filter across pages', async () => {
    const first = await stack.json<Page>(
      `/api/v1/wait-observations?port_id=${PORT}&hours=336&mode=passenger`,
    );
    expect(first.body.next).toContain('mode=passenger');
    const second = await stack.json<Page>(first.body.next ?? '');
    expect(second.body.next).toBeNull();
    const modes = new Set(
      [...first.body.observations, ...second.body.observations].map((o) => (o as { mode?: string }).mode),
    );
    expect([...modes]).toEqual(['passenger']);
    expect(first.body.count + second.body.count).toBe(stored.filter((o) => o.mode === 'passenger').length);
  });

  it.each([
    [1, 3],
    [7, 30],
    [36, 30],
    [1000, 336],
  ])(
    'the store pages of %i over %i hours give the window exactly once, oldest first',
    async (limit, hours) => {
      const fromMs = NOW - hours * HOUR;
      const expected = stored.filter((o) => Date.parse(o.observedAt) >= fromMs).map(identity);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await stores.observations.page(PORT, fromMs, NOW, {}, cursor, limit);
        expect(page.observations.length).toBeLessThanOrEqual(limit);
        seen.push(...page.observations.map(identity));
        cursor = page.next;
      } while (cursor !== null);
      expect(seen).toEqual(expected);
    },
  );

  it('a cursor without its sizing hint (as the previous release issued them) reads on the same', async () => {
    const fromMs = NOW - 336 * HOUR;
    const expected = stored.filter((o) => Date.parse(o.observedAt) >= fromMs).map(identity);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await stores.observations.page(PORT, fromMs, NOW, {}, cursor, 500);
      seen.push(...page.observations.map(identity));
      if (page.next === null) break;
      const { d, ...rest } = JSON.parse(Buffer.from(page.next, 'base64url').toString('utf8'));
      expect(d).toBeGreaterThan(0);
      cursor = Buffer.from(JSON.stringify(rest)).toString('base64url');
    } while (cursor !== null);
    expect(seen).toEqual(expected);
  });

  it('get_wait_history pages with cursor and nextCursor through the same window, each observation once', async () => {
    const token = await tokenFor(stack, 'business');
    const seen: string[] = [];
    let cursor: string | null = null;
    let calls = 0;
    do {
      const call = await callTool(
        stack,
        '2026-07-28',
        'get_wait_history',
        { port_id: PORT, hours: 336, include_averages: false, ...(cursor ? { cursor } : {}) },
        token,
      );
      const page = structured<{
        nextCursor: string | null;
        truncated: boolean;
        count: number;
        observations: Page['observations'];
      }>(call);
      expect(page.count).toBe(page.observations.length);
      expect(page.truncated).toBe(page.nextCursor !== null);
      seen.push(...page.observations.map(identity));
      cursor = page.nextCursor;
      calls += 1;
    } while (cursor !== null && calls < 100);
    expect(calls).toBeGreaterThan(1);
    expect(seen).toEqual(stored.map(identity));
  }, 120_000);

  it('export_observations exports every observation of the window, past one page', async () => {
    const token = await tokenFor(stack, 'business');
    const call = await callTool(
      stack,
      '2026-07-28',
      'export_observations',
      { port_ids: [PORT], hours: 336, format: 'json' },
      token,
    );
    expect(structured<{ rows: number }>(call).rows).toBe(stored.length);
  }, 120_000);

  it.each([
    ['garbage', 'not-a-cursor'],
    ['a cursor of another port', 'OTHER'],
    ['base64 of something else', Buffer.from('{"s":"x","to":1}').toString('base64url')],
  ])('answers %s with a 400 problem naming cursor', async (_name, value) => {
    let cursor = value;
    if (value === 'OTHER') {
      const page = await stack.json<Page>(`/api/v1/wait-observations?port_id=${PORT}&hours=336`);
      cursor = new URL(page.body.next ?? '', 'http://x').searchParams.get('cursor') ?? '';
    }
    const response = await fetch(
      `${stack.service.url}/api/v1/wait-observations?port_id=${value === 'OTHER' ? OTHER_PORT : PORT}&cursor=${cursor}`,
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = (await response.json()) as { detail: string; errors?: { name: string }[] };
    expect(problem.detail).toMatch(/cursor/);
  });
});
