/**
 * Forecasts through the whole local stack: rollups seeded with three weeks of the simulator's
 * readings, then ingest cycles and forecast runs issue forecasts; the API serves them (CDN and keyed) and the MCP
 * tools answer a departure window and an arrival time from them, with the skill.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { loadRollups } from '../../functions/adapters/dynamo/rollups.ts';
import { getPort } from '../../functions/core/catalogue/catalogue.ts';
import { HORIZONS_MINUTES } from '../../functions/core/forecast/forecast.ts';
import type { PortForecastBody } from '../../functions/core/forecast/forecast-views.ts';
import { contributionsOfDay, localBucketOf } from '../../functions/core/history/rollups.ts';
import type { Observation } from '../../functions/core/model.ts';
import { observationsSeen } from '../../infra/local/simulator/model.ts';
import { TABLES } from '../../infra/manifest.ts';
import { callTool } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const PORTS = ['250401', '250601'];
// Wednesday 2026-05-06, 09:06 Pacific.
const AT = Date.parse('2026-05-06T16:06:00Z');
let stack: TestStack;

async function seedRollups(endpoint: string): Promise<void> {
  const doc = createDocumentClient({ endpoint });
  try {
    const contributions = PORTS.flatMap((id) => {
      const port = getPort(id);
      if (!port) throw new Error(id);
      const polls: number[] = [];
      for (let t = AT - 21 * 86_400_000; t < AT - 3_600_000; t += 5 * 60_000) polls.push(t);
      const byDate = new Map<string, Observation[]>();
      for (const o of observationsSeen(port, polls)) {
        const { localDate } = localBucketOf(Date.parse(o.observedAt), port.timeZone);
        byDate.set(localDate, [
          ...(byDate.get(localDate) ?? []),
          { ...o, maxLanes: null, fetchedAt: o.observedAt },
        ]);
      }
      return [...byDate].flatMap(([date, list]) => contributionsOfDay(id, date, port.timeZone, list));
    });
    await loadRollups(doc, TABLES.rollups.name, contributions);
  } finally {
    doc.destroy();
  }
}

beforeAll(async () => {
  // Only the two compared ports in the feeds: the forecast step has two ports to do.
  stack = await startStack({ atMs: AT - 30 * 60_000, ports: PORTS });
  await seedRollups(stack.service.endpoints.dynamodb);
  // Readings of the last half hour, each slot's forecast run, then the run that issues the 09:00 slot.
  for (const ms of [AT - 30 * 60_000, AT - 15 * 60_000, AT]) {
    stack.clock.set(ms);
    await stack.service.ingestNow();
    await stack.service.forecastNow();
  }
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

const structured = <T>(body: Awaited<ReturnType<typeof callTool>>['body']) =>
  body?.result?.structuredContent as T;
/** A tool result's text. */
const text = (body: Awaited<ReturnType<typeof callTool>>['body']): string =>
  ((body?.result?.content ?? []) as { type: string; text?: string }[])
    .map((part) => part.text ?? '')
    .join('\n');

describe('port-forecast and forecast-skill views', () => {
  it('serves a port forecast by id and slug with points for lanes that have history', async () => {
    const byId = await stack.json<PortForecastBody>('/api/v1/port-forecast?port_id=250401');
    const bySlug = await stack.json<PortForecastBody>(
      `/api/v1/port-forecast?port_id=${getPort('250401')?.slug}`,
    );
    expect(byId.status).toBe(200);
    expect(bySlug.body).toEqual(byId.body);
    expect(byId.body.issuedAt).toBe('2026-05-06T16:00:00.000Z');
    const lane = byId.body.lanes.find((l) => l.mode === 'passenger' && l.lane === 'standard');
    // Every horizon to +24 h whose hour has history in this world's profile.
    expect(lane?.points.map((p) => p.horizonMinutes).slice(0, 9)).toEqual([
      15, 30, 45, 60, 120, 180, 240, 300, 360,
    ]);
    expect(Math.max(...(lane?.points.map((p) => p.horizonMinutes) ?? []))).toBeGreaterThanOrEqual(1380);
    expect(lane?.method).toBe('model');
    expect(lane?.reason).toMatch(/no (track record|champion) yet/);
  });

  it('answers an unknown port with 404 problem+json, a missing port_id with 400', async () => {
    const unknown = await stack.get('/api/v1/port-forecast?port_id=no-such-port');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await stack.get('/api/v1/port-forecast')).status).toBe(400);
  });

  it('serves the skill summary', async () => {
    const { status, body } = await stack.json<{ horizons: { horizonMinutes: number }[] }>(
      '/api/v1/forecast-skill',
    );
    expect(status).toBe(200);
    expect(body.horizons.map((h) => h.horizonMinutes)).toEqual([...HORIZONS_MINUTES]);
  });
});

describe('MCP tools on the forecast', () => {
  it('best_time_to_cross answers a departure window today from the forecast', async () => {
    const { body } = await callTool(stack, '2025-11-25', 'best_time_to_cross', {
      port_id: '250401',
      direction: 'into-us',
      depart_between: { from: '10:00', to: '13:00' },
    });
    expect(body?.result?.isError).toBeFalsy();
    const today = structured<{
      today: {
        options: { localTime: string; delayMinutes: number; method: string }[];
        best: { delayMinutes: number } | null;
      };
    }>(body).today;
    // Points at +60 (10:00), +120, +180, +240 (13:00) local.
    expect(today.options.map((o) => o.localTime).sort()).toEqual(['10:00', '11:00', '12:00', '13:00']);
    expect(today.best?.delayMinutes).toBe(Math.min(...today.options.map((o) => o.delayMinutes)));
    expect(today.options.every((o) => o.method === 'model')).toBe(true);
  });

  it('best_time_to_cross answers a window tomorrow morning from the day-ahead forecast', async () => {
    const { body } = await callTool(stack, '2025-11-25', 'best_time_to_cross', {
      port_id: '250401',
      direction: 'into-us',
      depart_between: { from: '06:00', to: '08:00', day: 'tomorrow' },
    });
    expect(body?.result?.isError).toBeFalsy();
    const today = structured<{
      today: { fromAt: string; options: { localTime: string; horizonMinutes: number }[] };
    }>(body).today;
    // Thursday 06:00-08:00 Pacific: +21 h to +23 h from the 09:00 issue.
    expect(today.fromAt).toBe('2026-05-07T13:00:00.000Z');
    expect(today.options.map((o) => o.localTime).sort()).toEqual(['06:00', '07:00', '08:00']);
    expect(today.options.map((o) => o.horizonMinutes).sort((a, b) => a - b)).toEqual([1260, 1320, 1380]);
  });

  it('compare_crossings takes an arrival 20 hours ahead', async () => {
    const { body } = await callTool(stack, '2025-11-25', 'compare_crossings', {
      port_ids: PORTS,
      direction: 'into-us',
      in_minutes: 20 * 60,
    });
    expect(body?.result?.isError).toBeFalsy();
    const atArrival = structured<{ atArrival: { ranked: { horizonMinutes: number }[] } }>(body).atArrival;
    expect(atArrival.ranked.length).toBeGreaterThan(0);
    expect(atArrival.ranked.every((r) => r.horizonMinutes >= 1140)).toBe(true);
  });

  it('best_time_to_cross says why when no forecast point falls in a window', async () => {
    // Tomorrow 06:10-06:50 Pacific: between the hourly points of +21 h and +22 h.
    const { body } = await callTool(stack, '2025-11-25', 'best_time_to_cross', {
      port_id: '250401',
      direction: 'into-us',
      depart_between: { from: '06:10', to: '06:50', day: 'tomorrow' },
    });
    expect(body?.result?.isError).toBeFalsy();
    const today = structured<{ today: { options: unknown[]; reason: string } }>(body).today;
    expect(today.options).toEqual([]);
    expect(today.reason).toMatch(/no forecast point falls in the window/);
    expect(text(body)).toContain('departing Thu 7 May 06:10-06:50 Pacific Time');
  });

  it("best_time_to_cross names the window's date and zone, and leaves out points already past", async () => {
    // 09:46 Pacific: of the 09:00 issue's points, 09:15, 09:30 and 09:45 are past.
    stack.clock.set(AT + 40 * 60_000);
    try {
      const { body } = await callTool(stack, '2025-11-25', 'best_time_to_cross', {
        port_id: '250401',
        direction: 'into-us',
        depart_between: { from: '09:00', to: '11:00' },
      });
      expect(body?.result?.isError).toBeFalsy();
      const today = structured<{ today: { options: { localTime: string }[] } }>(body).today;
      expect(today.options.map((o) => o.localTime).sort()).toEqual(['10:00', '11:00']);
      expect(text(body)).toMatch(
        /^San Ysidro, departing Wed 6 May 09:00-11:00 Pacific Time: best at 1[01]:00/,
      );
    } finally {
      stack.clock.set(AT);
    }
  });

  it('best_time_to_cross reads HH:MM ends across midnight as one night', async () => {
    const { body } = await callTool(stack, '2025-11-25', 'best_time_to_cross', {
      port_id: '250401',
      direction: 'into-us',
      depart_between: { from: '22:00', to: '02:00' },
    });
    expect(body?.result?.isError).toBeFalsy();
    const today = structured<{ today: { fromAt: string; toAt: string; options: { localTime: string }[] } }>(
      body,
    ).today;
    expect([today.fromAt, today.toAt]).toEqual(['2026-05-07T05:00:00.000Z', '2026-05-07T09:00:00.000Z']);
    expect(today.options.map((o) => o.localTime).sort()).toEqual([
      '00:00',
      '01:00',
      '02:00',
      '22:00',
      '23:00',
    ]);
    expect(text(body)).toContain('departing Wed 6 May 22:00 to Thu 7 May 02:00 Pacific Time');
  });

  it.each([
    [
      'a window already over today',
      { from: '06:00', to: '08:00' },
      /The window Wed 6 May 06:00-08:00 Pacific Time is already over: it is 09:06 there now\. For the same hours tomorrow, add day: "tomorrow"\./,
    ],
    [
      'a window beyond the forecasts',
      { from: '20:00', to: '22:00', day: 'tomorrow' },
      /The window Thu 7 May 20:00-22:00 Pacific Time starts more than 24 hours from now; the forecasts reach 24 hours ahead \(to about Thu 7 May 09:06 Pacific Time\)/,
    ],
    [
      'a window whose instants end before they start',
      { from: '2026-05-06T20:00:00Z', to: '2026-05-06T18:00:00Z' },
      /depart_between ends before it starts \(Wed 6 May 13:00-11:00 Pacific Time\)/,
    ],
    [
      'a clock time without its leading zero',
      { from: '6:00', to: '08:00' },
      /HH:MM, 24-hour, in the port's own time/,
    ],
    [
      'an instant without an offset',
      { from: '2026-05-06T18:00:00', to: '08:00' },
      /an ISO 8601 date and time with seconds and Z or an offset/,
    ],
  ])('best_time_to_cross refuses %s, saying what to ask instead', async (_, window, message) => {
    const { body } = await callTool(stack, '2025-11-25', 'best_time_to_cross', {
      port_id: '250401',
      direction: 'into-us',
      depart_between: window,
    });
    expect(body?.result?.isError).toBe(true);
    expect(text(body)).toMatch(message);
  });

  it("compare_crossings gives the arrival in the crossings' own time, and refuses an instant without an offset", async () => {
    const { body } = await callTool(stack, '2025-11-25', 'compare_crossings', {
      port_ids: PORTS,
      direction: 'into-us',
      in_minutes: 90,
    });
    expect(text(body)).toMatch(/^Forecast for an arrival at Wed 6 May 10:36 Pacific Time: 1\. /);
    expect(text(body)).toMatch(/San Ysidro|Otay Mesa/);
    const refused = await callTool(stack, '2025-11-25', 'compare_crossings', {
      port_ids: PORTS,
      direction: 'into-us',
      arrive_at: '2026-05-06T18:00:00',
    });
    expect(refused.body?.result?.isError).toBe(true);
    expect(text(refused.body)).toMatch(/arrive_at: .*2026-11-28T08:00:00-08:00 for 8 am at a UTC-8 port/);
  });

  it('compare_crossings ranks by the forecast at arrival, with interval, method and skill', async () => {
    const { body } = await callTool(stack, '2026-07-28', 'compare_crossings', {
      port_ids: PORTS,
      direction: 'into-us',
      lanes: ['standard', 'ready'],
      in_minutes: 90,
    });
    expect(body?.result?.isError).toBeFalsy();
    const atArrival = structured<{
      atArrival: {
        at: string;
        ranked: { rank: number; delayMinutes: number; low: number; high: number; method: string }[];
      };
    }>(body).atArrival;
    expect(atArrival.at).toBe(new Date(AT + 90 * 60_000).toISOString());
    expect(atArrival.ranked.map((r) => r.rank)).toEqual([1, 2]);
    expect(atArrival.ranked[0]?.delayMinutes).toBeLessThanOrEqual(atArrival.ranked[1]?.delayMinutes ?? 0);
    for (const r of atArrival.ranked) {
      expect(r.low).toBeLessThanOrEqual(r.delayMinutes);
      expect(r.high).toBeGreaterThanOrEqual(r.delayMinutes);
      expect(r.method).toBe('model');
    }
  });

  it('compare_crossings refuses an arrival beyond 24 hours', async () => {
    const { body } = await callTool(stack, '2025-11-25', 'compare_crossings', {
      port_ids: PORTS,
      direction: 'into-us',
      arrive_at: new Date(AT + 26 * 3_600_000).toISOString(),
    });
    expect(body?.result?.isError).toBe(true);
  });
});
