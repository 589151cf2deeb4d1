import { describe, expect, it } from 'vitest';
import { type Alert, whyNotFiring } from '../../../../functions/core/alerts/alerts.ts';
import type { LatestReading } from '../../../../functions/core/model.ts';

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
