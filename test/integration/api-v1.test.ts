import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTS } from '../../functions/core/catalogue/catalogue.ts';
import { DIRECTIONS, FRESHNESS, LANE_STATUSES, LANES, MODES, SOURCES } from '../../functions/core/model.ts';
import { withContract } from './contract.ts';
import { issueKey } from './keys.ts';
import { startStack, type TestStack } from './stack.ts';

// A Wednesday afternoon: every crossing busy, every status somewhere.
const AT = Date.parse('2026-11-18T20:10:00Z');
/** One key for the port-spelling cases (a key allows 60 requests a minute). */
let keyForSpellings: string | undefined;

interface LaneWaitBody {
  direction: string;
  mode: string;
  lane: string;
  status: string;
  delayMinutes: number | null;
  lanesOpen: number | null;
  maxLanes: number | null;
  observedAt: string | null;
  freshness: string;
  source: string;
}

function expectLaneWait(lane: LaneWaitBody) {
  expect(DIRECTIONS).toContain(lane.direction);
  expect(MODES).toContain(lane.mode);
  expect(LANES).toContain(lane.lane);
  expect(LANE_STATUSES).toContain(lane.status);
  expect(FRESHNESS).toContain(lane.freshness);
  expect(SOURCES).toContain(lane.source);
  for (const field of ['delayMinutes', 'lanesOpen', 'maxLanes'] as const) {
    expect(lane[field] === null || Number.isInteger(lane[field])).toBe(true);
  }
  if (lane.status !== 'open') expect(lane.delayMinutes).toBeNull();
  if (lane.observedAt !== null) expect(lane.observedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
}

async function expectProblem(response: Response, status: number) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({
    status,
    title: expect.any(String),
    detail: expect.any(String),
    type: expect.any(String),
  });
  // API Gateway's own answers (a refused key) have no `instance`; the function's name the path.
  if ('instance' in body) expect(body.instance).toEqual(expect.any(String));
  expect(String(body.instance ?? '')).not.toMatch(/^\/prod\//);
  return body;
}

describe('/api/v1 on the local runtime', () => {
  let stack: TestStack;

  beforeAll(async () => {
    // Every response below is checked against the served OpenAPI document.
    stack = await withContract(await startStack({ atMs: AT }));
    const outcomes = await stack.service.ingestNow();
    expect(outcomes.map((o) => o.outcome)).toEqual(['stored', 'stored']);
    expect((await stack.service.forecastNow()).skipped).toBe(false);
  });
  afterAll(() => stack?.stop());

  it('lists every port with the fields the contract fixes', async () => {
    const { status, body, headers } = await stack.json<{
      generatedAt: string;
      count: number;
      ports: Record<string, unknown>[];
    }>('/api/v1/ports');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(Date.parse(body.generatedAt)).toBeGreaterThan(0);
    expect(body.count).toBe(body.ports.length);
    expect(body.count).toBeGreaterThanOrEqual(PORTS.length);
    for (const port of body.ports) {
      expect(port).toMatchObject({
        id: expect.any(String),
        slug: expect.stringMatching(/^[a-z0-9]+(-[a-z0-9]+)*$/),
        name: expect.any(String),
        border: expect.stringMatching(/^(mx|ca)$/),
        state: expect.any(String),
        city: expect.any(String),
        timeZone: expect.any(String),
        directions: expect.any(Array),
      });
      expect(port).toHaveProperty('crossing');
      expect(port).toHaveProperty('hours');
      expect(port.location === null || typeof port.location === 'object').toBe(true);
    }
  });

  it.each(['mx', 'ca'] as const)('narrows the ports to border=%s', async (border) => {
    const all = await stack.json<{ ports: { id: string; border: string }[] }>('/api/v1/ports');
    const { status, body } = await stack.json<{ count: number; ports: { id: string; border: string }[] }>(
      `/api/v1/ports?border=${border}`,
    );
    expect(status).toBe(200);
    expect(body.ports.length).toBeGreaterThan(0);
    expect(body.ports.every((p) => p.border === border)).toBe(true);
    expect(body.ports.map((p) => p.id)).toEqual(
      all.body.ports.filter((p) => p.border === border).map((p) => p.id),
    );
  });

  it('refuses border=xx with a 400 problem', async () => {
    const body = await expectProblem(await stack.get('/api/v1/ports?border=xx'), 400);
    expect(String(body.detail)).toContain('border');
  });

  it('answers port-current with one entry per port lane', async () => {
    const { status, body } = await stack.json<{
      generatedAt: string;
      count: number;
      current: (LaneWaitBody & { portId: string })[];
    }>('/api/v1/port-current');
    expect(status).toBe(200);
    expect(body.count).toBe(body.current.length);
    expect(body.current.length).toBeGreaterThan(100);
    for (const lane of body.current) {
      expect(lane.portId).toEqual(expect.any(String));
      expectLaneWait(lane);
    }
    const directions = new Set(body.current.map((lane) => lane.direction));
    expect(directions).toEqual(new Set(['into-us', 'into-canada']));
  });

  it('joins ports with include=ports, each with slug and current', async () => {
    const { status, body } = await stack.json<{
      count: number;
      ports: {
        slug: string;
        id: string;
        current: { status: string; updatedAt: string; notice: string | null; lanes: LaneWaitBody[] };
      }[];
    }>('/api/v1/port-current?include=ports');
    expect(status).toBe(200);
    expect(body.count).toBe(body.ports.length);
    expect(body.ports.length).toBeGreaterThan(50);
    for (const port of body.ports) {
      expect(port.slug).toEqual(expect.any(String));
      expect(['open', 'closed']).toContain(port.current.status);
      expect(Date.parse(port.current.updatedAt)).toBeGreaterThan(0);
      expect(port.current).toHaveProperty('notice');
      port.current.lanes.forEach(expectLaneWait);
    }
  });

  it('refuses include=other with a 400 problem', async () => {
    await expectProblem(await stack.get('/api/v1/port-current?include=other'), 400);
  });

  it('clamps hours=1000 to the 336-hour retention', async () => {
    const { status, body } = await stack.json<Record<string, unknown>>(
      '/api/v1/wait-observations?port_id=250401&hours=1000',
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ portId: '250401', hours: 336, retentionHours: 336 });
    expect(Date.parse(String(body.to)) - Date.parse(String(body.from))).toBe(336 * 3_600_000);
  });

  it('returns observations of the last 24 hours by default, by id or slug', async () => {
    const port = PORTS.find((p) => p.id === '250401');
    expect(port).toBeDefined();
    const byId = await stack.json<{ hours: number; count: number; observations: Record<string, unknown>[] }>(
      '/api/v1/wait-observations?port_id=250401',
    );
    const bySlug = await stack.json<typeof byId.body>(`/api/v1/wait-observations?port_id=${port?.slug}`);
    expect(byId.body.hours).toBe(24);
    expect(byId.body.count).toBeGreaterThan(0);
    expect(bySlug.body.observations).toEqual(byId.body.observations);
    for (const observation of byId.body.observations) {
      expect(Object.keys(observation).sort()).toEqual(
        expect.arrayContaining([
          'direction',
          'mode',
          'lane',
          'status',
          'delayMinutes',
          'lanesOpen',
          'observedAt',
          'source',
        ]),
      );
    }
  });

  it('answers an unknown port_id with a 404 problem', async () => {
    await expectProblem(await stack.get('/api/v1/wait-observations?port_id=no-such-port'), 404);
    await expectProblem(await stack.get('/api/v1/port-hourly-averages?port_id=no-such-port'), 404);
  });

  const PORT_PATHS = [
    '/api/v1/wait-observations',
    '/api/v1/port-hourly-averages',
    '/api/v1/port-forecast',
    '/api/v1/port-typical-waits',
  ];
  // 250401 is San Ysidro; CBP spells Madawaska's id with a capital (L01901).
  const SPELLINGS = [
    ['250401', '250401'],
    ['san-ysidro', '250401'],
    ['SAN-YSIDRO', '250401'],
    ['San-Ysidro', '250401'],
    ['L01901', 'L01901'],
    ['l01901', 'L01901'],
    ['Madawaska-L01901', 'L01901'],
  ];
  it.each(
    PORT_PATHS.flatMap((path) =>
      SPELLINGS.flatMap(([spelling, id]) => [
        [path, spelling, id, 'keyless'],
        [path, spelling, id, 'keyed'],
      ]),
    ),
  )('%s finds port_id=%s as %s, %s', async (path, spelling, id, face) => {
    keyForSpellings ??= (await issueKey(stack)).key;
    const headers: Record<string, string> = face === 'keyed' ? { 'x-api-key': keyForSpellings } : {};
    const response = await stack.get(`${path}?port_id=${spelling}`, { headers });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { portId?: string } | { portId: string }[];
    const portIds = Array.isArray(body) ? body.map((row) => row.portId) : [body.portId];
    for (const portId of portIds) expect(portId).toBe(id);
  });

  it.each(PORT_PATHS)('%s names the fix for an unknown port_id', async (path) => {
    keyForSpellings ??= (await issueKey(stack)).key;
    const response = await stack.get(`${path}?port_id=no-such-port`, {
      headers: { 'x-api-key': keyForSpellings },
    });
    const body = await expectProblem(response, 404);
    expect(body.detail).toContain('GET /api/v1/ports');
  });

  it('answers a missing port_id with a 400 problem', async () => {
    await expectProblem(await stack.get('/api/v1/wait-observations'), 400);
    await expectProblem(await stack.get('/api/v1/port-hourly-averages'), 400);
  });

  it.each([
    [
      'hours=0',
      /^hours must be a whole number of hours, 1 or more, of at most 9 digits \(above 336 reads as 336\)$/,
    ],
    ['hours=abc', /^hours must be a whole number of hours/],
    ['hours=1.5', /^hours must be a whole number of hours/],
    ['hours=1000000000', /^hours must be a whole number of hours, 1 or more, of at most 9 digits/],
    ['direction=sideways', /^direction must be one of "into-us", "into-canada"$/],
    ['cursor=%25%25', /^cursor must be the opaque `next` cursor of a previous page, unchanged$/],
  ])('refuses %s with a problem saying what the parameter must be', async (query, detail) => {
    const body = await expectProblem(
      await stack.get(`/api/v1/wait-observations?port_id=250401&${query}`),
      400,
    );
    expect(body.detail).toMatch(detail);
  });

  it('ignores unknown query parameters', async () => {
    const plain = await stack.json('/api/v1/ports?border=mx');
    const extra = await stack.json('/api/v1/ports?border=mx&utm_source=test');
    expect(extra.status).toBe(200);
    expect(extra.body).toEqual(plain.body);
  });

  it('answers HEAD with the headers and no body', async () => {
    for (const path of ['/api/v1/ports', '/api/v1/wait-observations?port_id=250401']) {
      const response = await stack.get(path, { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBeTruthy();
      expect(await response.text()).toBe('');
    }
  });

  it.each([
    '/api/v1/ports',
    '/api/v1/port-current?include=ports',
    '/api/v1/wait-observations?port_id=250401',
  ])('answers If-None-Match on %s with 304', async (path) => {
    const first = await stack.get(path);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(first.headers.get('last-modified')).toBeTruthy();
    expect(first.headers.get('link')).toContain('rel="author"');
    const second = await stack.get(path, { headers: { 'if-none-match': etag ?? '' } });
    expect(second.status).toBe(304);
    expect(await second.text()).toBe('');
  });

  it.each([
    '/api/v1/ports',
    '/api/v1/ports?border=ca',
    '/api/v1/port-current',
    '/api/v1/port-current?include=ports',
    '/api/v1/port-hourly-averages?port_id=250401',
    '/api/v1/port-forecast?port_id=250401',
    '/api/v1/forecast-skill',
    '/api/v1/port-typical-waits?port_id=250401',
    '/api/v1/wait-observations?port_id=250401',
  ])('gives a request with a valid key the same body as a keyless one: %s', async (path) => {
    const { key } = await issueKey(stack);
    // A request with x-api-key goes through the gateway to the api function, not the CDN copy.
    const keyless = await stack.get(path);
    const keyed = await stack.get(path, { headers: { 'x-api-key': key } });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('x-amzn-requestid')).toBeTruthy();
    expect(keyed.headers.get('ratelimit-policy')).toBe('"key";q=60;w=60');
    expect(keyed.headers.get('ratelimit')).toMatch(/^"key";r=59;t=\d+$/);
    expect(keyed.headers.get('cache-control')).toMatch(/\bprivate\b/);
    expect(await keyed.text()).toBe(await keyless.text());
  });

  it.each([
    ['an unknown key of the right form', 'bw_live_0000000000000000000000000000000000000000'],
    ['a garbled key', 'not-a-key'],
    ['an empty key', ''],
  ])('answers %s with 401 problem+json, never the public view', async (_what, key) => {
    const response = await stack.get('/api/v1/port-current', { headers: { 'x-api-key': key } });
    const body = await expectProblem(response, 401);
    expect(body.type).toBe('https://border-waits.dev/problems/invalid-key');
    expect(response.headers.get('www-authenticate')).toBeNull();
  });
});

describe('hourly averages before aggregates', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await withContract(await startStack({ atMs: AT }));
    stack.simulator.setFault('cbp', { kind: 'status', status: 500 });
    stack.simulator.setFault('cbsa', { kind: 'status', status: 500 });
    await stack.service.ingestNow();
  });
  afterAll(() => stack?.stop());

  it('is an empty array for a known port', async () => {
    for (const port of [PORTS[0], PORTS[PORTS.length - 1]]) {
      const { status, body } = await stack.json(`/api/v1/port-hourly-averages?port_id=${port?.id}`);
      expect(status).toBe(200);
      expect(body).toEqual([]);
      const bySlug = await stack.json(`/api/v1/port-hourly-averages?port_id=${port?.slug}`);
      expect(bySlug.body).toEqual([]);
    }
  });
});
