/**
 * A fresh service is useful from its first slot: CBP's typical waits are fetched at the first
 * forecast run and the model starts from them where our own history is thin, so the first slot
 * forecasts every CBP lane that has a reading, each with its method; and the local runtime runs that
 * first slot right after the first ingest.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPort } from '../../functions/core/catalogue/catalogue.ts';
import { openAt, openHoursOf } from '../../functions/core/catalogue/port-hours.ts';
import { HORIZONS_MINUTES } from '../../functions/core/forecast/forecast.ts';
import type { LatestReading } from '../../functions/core/model.ts';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { startLocal } from '../../infra/local/start-local.ts';
import { startStack, type TestStack } from './stack.ts';

interface LaneForecast {
  direction: string;
  mode: string;
  lane: string;
  method: string | null;
  reason: string | null;
  base?: string;
  points: { horizonMinutes: number; delayMinutes: number; method: string }[];
}

/** How many of a slot's targets fall in the port's published hours, port-local. */
function openTargets(portId: string, issuedMs: number): number {
  const port = getPort(portId);
  const hours = openHoursOf(port?.hours);
  return HORIZONS_MINUTES.filter((h) => {
    const [hour = 0, minute = 0] = new Intl.DateTimeFormat('en-GB', {
      timeZone: port?.timeZone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .format(issuedMs + h * 60_000)
      .split(':')
      .map(Number);
    return openAt(hours, hour * 60 + minute);
  }).length;
}

// Wednesday 2026-03-11 15:07 UTC (the morning at the Mexican border, midday at the Canadian one).
const AT = Date.parse('2026-03-11T15:07:00Z');

describe('the first slot of a fresh service (every catalogue port, simulated feeds)', () => {
  let stack: TestStack;
  let withReading: LatestReading[];

  beforeAll(async () => {
    stack = await startStack({ atMs: AT });
    await stack.service.ingestNow();
    const { body } = await stack.json<{ current: LatestReading[] }>('/api/v1/port-current');
    withReading = body.current.filter((r) => r.source === 'cbp' && r.delayMinutes !== null);
    expect((await stack.service.forecastNow()).skipped).toBe(false);
  }, 300_000);
  afterAll(() => stack?.stop());

  it("forecasts every CBP lane that has a reading (313: 296 from CBP's typical wait, 17 at ports without a graph say why), each with its method", async () => {
    expect(withReading.length).toBe(313);
    const byPort = new Map<string, LatestReading[]>();
    for (const r of withReading) byPort.set(r.portId, [...(byPort.get(r.portId) ?? []), r]);
    const methods = new Map<string, number>();
    for (const [portId, lanes] of byPort) {
      const { body } = await stack.json<{ issuedAt: string | null; lanes: LaneForecast[] }>(
        `/api/v1/port-forecast?port_id=${portId}`,
      );
      for (const r of lanes) {
        const lane = body.lanes.find(
          (l) => l.direction === r.direction && l.mode === r.mode && l.lane === r.lane,
        );
        const label = `${portId} ${r.mode} ${r.lane}: ${lane?.reason}`;
        methods.set(String(lane?.method), (methods.get(String(lane?.method)) ?? 0) + 1);
        if (getPort(portId)?.bwtId) {
          expect(lane?.method, label).toBe('model');
          // A point for every target the port is open for (its hours, read in its own zone).
          expect(lane?.points.length, label).toBe(openTargets(portId, Date.parse(body.issuedAt ?? '')));
          expect(lane?.base, label).toBe('cbp-typical');
          expect(lane?.reason, label).toMatch(/starts from CBP's typical wait/);
        } else {
          // CBP lists no graph for the port: no typical wait to start from, and one ingest is no history.
          expect(lane?.method, label).toBeNull();
          expect(lane?.reason, label).toMatch(/no typical wait of CBP's is known/);
        }
      }
    }
    // 296 lanes at ports CBP lists a graph for; 17 at the ports it lists none for (no bwtId in the
    // crossings list: L01901, 202401, 231002, 250603, 260305), which say why instead of a number.
    expect(Object.fromEntries(methods)).toEqual({ model: 296, null: 17 });
  });

  it("keeps CBP's typical waits out of our own averages, which hold the first ingest's readings only", async () => {
    const { body } = await stack.json<{ samples: number }[]>('/api/v1/port-hourly-averages?port_id=250401');
    expect(body.length).toBeGreaterThan(0);
    expect(body.every((a) => a.samples === 1)).toBe(true);
  });
});

describe('the local runtime with its schedules on (as npm run demo)', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'border-waits-first-slot-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('publishes forecasts within 2 minutes of starting', async () => {
    const simulator = await startSimulator({ ports: ['250401', '300401', '090101'] });
    const started = Date.now();
    const service = await startLocal({
      port: 0,
      dataDir,
      cbpFeedUrl: simulator.cbpXmlUrl,
      cbsaFeedUrl: simulator.cbsaEnUrl,
      ingestIntervalSeconds: 60,
      log: () => {},
    });
    try {
      // Any of the three ports: at some hours of the night the simulator, like CBP, has a port's
      // every lane "Update Pending" (San Ysidro around midnight Pacific), and such a lane has
      // nothing to forecast from.
      let lanes: LaneForecast[] = [];
      while (Date.now() - started < 120_000) {
        lanes = [];
        for (const portId of ['250401', '300401', '090101']) {
          const response = await fetch(`${service.url}/api/v1/port-forecast?port_id=${portId}`);
          if (response.ok) lanes.push(...((await response.json()) as { lanes: LaneForecast[] }).lanes);
        }
        if (lanes.some((lane) => lane.points.length > 0)) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(lanes.filter((lane) => lane.points.length > 0).length).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(120_000);
    } finally {
      await service.stop();
      await simulator.stop();
    }
  }, 180_000);
});
