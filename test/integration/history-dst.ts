/**
 * Three weeks of simulated documents across each US daylight-saving change of 2026, with ports on
 * New York, Chicago, Denver, Phoenix (no DST), Los Angeles and Saskatchewan (no DST) time: the
 * stored observations and the published hourly averages equal a reference computed from the
 * simulator's model alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_HOURS } from '../../infra/manifest.ts';
import {
  localWeekdayHour,
  observationsSeen,
  pollInstants,
  referenceAverages,
  startWorld,
  type World,
} from './history-world.ts';

const PORTS = [
  '090101', // Buffalo Peace Bridge: New York time, automated (5-minute readings), both directions
  '230404', // Laredo World Trade Bridge: Chicago time, automated
  '240201', // El Paso BOTA: Denver time, automated
  '260101', // Douglas: Arizona time, prints PST all year
  '300401', // Blaine Pacific Highway: Los Angeles time, automated, both directions
  'cbsa-north-portal', // North Portal: Saskatchewan time (CST all year)
];

const HOUR = 3_600_000;
/** Polls 2.5 hours apart walk through every local hour of the week; the change nights are dense. */
const STEP_MS = 150 * 60_000;
const at = (iso: string) => Date.parse(iso);

export interface DstWindow {
  name: string;
  fromMs: number;
  toMs: number;
  dense: { fromMs: number; toMs: number };
  denseStepMs: number;
  changeDay: string;
}

export const WINDOWS = {
  spring: {
    name: 'spring forward, 2026-03-08',
    fromMs: at('2026-02-26T00:07:00Z'),
    toMs: at('2026-03-19T00:07:00Z'),
    // The night of the change, every 10 minutes, from 02:00 Eastern to 03:00 Pacific.
    dense: { fromMs: at('2026-03-08T06:00:00Z'), toMs: at('2026-03-08T11:00:00Z') },
    denseStepMs: 10 * 60_000,
    changeDay: '2026-03-08',
  },
  autumn: {
    name: 'fall back, 2026-11-01',
    fromMs: at('2026-10-22T00:07:00Z'),
    toMs: at('2026-11-12T00:07:00Z'),
    // Every repeated 1 am hour, Eastern to Pacific, every 5 minutes.
    dense: { fromMs: at('2026-11-01T04:30:00Z'), toMs: at('2026-11-01T10:30:00Z') },
    denseStepMs: 5 * 60_000,
    changeDay: '2026-11-01',
  },
} satisfies Record<string, DstWindow>;

/** The whole check for one window (one test file per window, so the two run in parallel). */
export function describeDstWindow(window: DstWindow): void {
  describe(`three weeks across the ${window.name} change`, () => {
    let world: World;
    const polls = pollInstants(window.fromMs, window.toMs, STEP_MS, [window.dense], window.denseStepMs);

    beforeAll(async () => {
      world = await startWorld(PORTS);
      for (const poll of polls) {
        const outcomes = await world.ingestAt(poll);
        const failed = outcomes.filter((o) => o.outcome === 'failed' || o.outcome === 'refused');
        if (failed.length > 0)
          throw new Error(`ingest at ${new Date(poll).toISOString()}: ${failed[0]?.error}`);
      }
    }, 600_000);

    afterAll(async () => {
      await world?.stop();
    });

    it.each(PORTS)('port %s: the stored observations are exactly the ones the polls saw', async (portId) => {
      const port = world.ports.find((p) => p.id === portId);
      if (!port) throw new Error(portId);
      // Only what is still inside the 14-day window at the end of the run is returned.
      const horizon = window.toMs - RETENTION_HOURS * HOUR;
      const expected = observationsSeen(port, polls)
        .filter((o) => Date.parse(o.observedAt) > horizon)
        .map((o) => `${o.observedAt} ${o.direction} ${o.mode} ${o.lane} ${o.delayMinutes}`);
      const stored = (await world.storedObservations(portId))
        .filter((o) => Date.parse(o.observedAt) > horizon)
        .map((o) => `${o.observedAt} ${o.direction} ${o.mode} ${o.lane} ${o.delayMinutes}`);
      expect(stored.sort()).toEqual(expected.sort());
      expect(stored.length).toBeGreaterThan(0);
    });

    it.each(PORTS)('port %s: the published averages equal the reference', async (portId) => {
      const port = world.ports.find((p) => p.id === portId);
      if (!port) throw new Error(portId);
      const expected = referenceAverages(port, observationsSeen(port, polls));
      expect(expected.length).toBeGreaterThan(0);
      expect(await world.publishedAverages(portId)).toEqual(expected);
      // Read by its slug too, as the CDN reads it.
      expect(await world.publishedAverages(port.slug)).toEqual(expected);
    });

    it('the run covers the change: the local hours of the change night are as the calendar says', () => {
      const ny = world.ports.find((p) => p.id === '090101');
      if (!ny) throw new Error('090101');
      const seen = observationsSeen(ny, polls).filter((o) => o.observedAt.startsWith(window.changeDay));
      const localHours = seen.map((o) => localWeekdayHour(Date.parse(o.observedAt), ny.timeZone).hour);
      if (window.changeDay === '2026-03-08') {
        // 02:00-02:59 does not exist on the spring day; 01:xx and 03:xx do.
        expect(localHours).not.toContain(2);
        expect(localHours).toEqual(expect.arrayContaining([1, 3]));
      } else {
        // 01:xx happens twice: readings an hour apart share the local hour 1.
        const hourOne = seen.filter(
          (o) => localWeekdayHour(Date.parse(o.observedAt), ny.timeZone).hour === 1 && o.lane === 'standard',
        );
        const instants = hourOne.map((o) => Date.parse(o.observedAt));
        expect(Math.max(...instants) - Math.min(...instants)).toBeGreaterThan(HOUR);
      }
    });
  });
}
