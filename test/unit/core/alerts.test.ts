import { describe, expect, it } from 'vitest';
import { type Alert, type AlertStore, evaluateAlerts, whyNotFiring } from '../../../functions/core/alerts.ts';
import type { LatestReading } from '../../../functions/core/model.ts';
import type { LatestStore } from '../../../functions/core/stores.ts';

const NOW = Date.parse('2026-11-18T18:00:00Z');

const alert = (over: Partial<Alert> = {}): Alert => ({
  id: 'al_1',
  owner: 'u1',
  portId: '250401',
  direction: 'into-us',
  mode: 'passenger',
  lane: 'standard',
  comparison: 'below',
  thresholdMinutes: 30,
  cooldownMinutes: 60,
  webhookUrl: null,
  createdAt: '2026-11-18T00:00:00Z',
  lastFiredAt: null,
  lastFiredObservedAt: null,
  firings: [],
  ...over,
});

const reading = (over: Partial<LatestReading> = {}): LatestReading => ({
  portId: '250401',
  direction: 'into-us',
  mode: 'passenger',
  lane: 'standard',
  status: 'open',
  delayMinutes: 20,
  lanesOpen: 5,
  maxLanes: 10,
  observedAt: new Date(NOW - 10 * 60_000).toISOString(),
  fetchedAt: new Date(NOW).toISOString(),
  source: 'cbp',
  ...over,
});

describe('whyNotFiring', () => {
  it.each([
    ['fires on a fresh reading under the threshold', alert(), reading(), null],
    ['not above a below-threshold', alert(), reading({ delayMinutes: 30 }), 'condition not met'],
    ['above works the other way', alert({ comparison: 'above' }), reading({ delayMinutes: 31 }), null],
    [
      'never on a stale reading',
      alert(),
      reading({ observedAt: new Date(NOW - 90 * 60_000).toISOString() }),
      'reading not fresh',
    ],
    [
      'never on update pending',
      alert(),
      reading({ status: 'update-pending', delayMinutes: null }),
      'lane update-pending',
    ],
    [
      'not within the cooldown',
      alert({ lastFiredAt: new Date(NOW - 59 * 60_000).toISOString() }),
      reading(),
      'cooling down',
    ],
    [
      'again after the cooldown',
      alert({ lastFiredAt: new Date(NOW - 61 * 60_000).toISOString() }),
      reading(),
      null,
    ],
    [
      'never twice on one reading',
      alert({ lastFiredObservedAt: reading().observedAt }),
      reading(),
      'already fired on this reading',
    ],
    ['nothing without a reading', alert(), undefined, 'no reading for this lane'],
  ] as const)('%s', (_name, a, r, expected) => {
    expect(whyNotFiring(a, r, NOW)).toBe(expected);
  });
});

describe('evaluateAlerts', () => {
  it('records the firing and the delivery outcome, and a crash-safe marker first', async () => {
    const saved: Alert[] = [];
    let stored = [alert({ webhookUrl: 'https://hooks.example/x' })];
    const alerts: AlertStore = {
      listByOwner: async () => stored,
      get: async () => stored[0],
      put: async (a) => {
        saved.push(structuredClone(a));
        stored = [a];
      },
      delete: async () => false,
      all: async () => stored,
    };
    const latest: LatestStore = {
      all: async () => ({ readings: [reading()], ports: [] }),
      putReadings: async () => {},
      putPorts: async () => {},
    };
    const result = await evaluateAlerts({
      alerts,
      latest,
      clock: { now: () => NOW },
      delivery: { deliver: async () => ({ status: 'delivered', attempts: 1, error: null }) },
    });
    expect(result.fired).toEqual([{ alertId: 'al_1', owner: 'u1', delivery: 'delivered' }]);
    expect(saved[0]?.lastFiredAt).toBe(new Date(NOW).toISOString());
    expect(saved[0]?.firings[0]?.delivery.error).toBe('delivery pending');
    expect(saved[1]?.firings).toHaveLength(1);
    expect(saved[1]?.firings[0]).toMatchObject({ delayMinutes: 20, delivery: { status: 'delivered' } });
    // A second evaluation on the same reading does nothing.
    const again = await evaluateAlerts({
      alerts,
      latest,
      clock: { now: () => NOW + 3 * 3_600_000 },
      delivery: { deliver: async () => ({ status: 'delivered', attempts: 1, error: null }) },
    });
    expect(again.fired).toEqual([]);
  });
});
