/**
 * A port's `updatedAt` in the current view is its newest reading's own time: a lane that has no
 * time (closed, not applicable) says only when it was fetched, and must not make an old reading
 * look new.
 */
import { describe, expect, it } from 'vitest';
import type { LatestReading } from '../../../../functions/core/model.ts';
import { currentByPort } from '../../../../functions/core/views/views.ts';

const FETCHED = '2026-11-28T00:21:00.726Z';

const reading = (lane: LatestReading['lane'], over: Partial<LatestReading>): LatestReading => ({
  portId: '300402',
  direction: 'into-us',
  mode: 'passenger',
  lane,
  status: 'open',
  delayMinutes: 20,
  lanesOpen: 4,
  maxLanes: 10,
  observedAt: '2026-11-28T00:00:00Z',
  source: 'cbp',
  fetchedAt: FETCHED,
  ...over,
});

const updatedAt = (readings: LatestReading[]) =>
  currentByPort(readings, [], Date.parse(FETCHED)).get('300402')?.updatedAt;

describe("a port's updatedAt", () => {
  it.each([
    [
      'the newest observedAt, not the fetch time of a lane without one',
      [
        reading('standard', { observedAt: '2026-11-28T00:00:00Z' }),
        reading('ready', { observedAt: '2026-11-27T23:45:00Z' }),
        reading('sentri', { status: 'lanes-closed', delayMinutes: null, observedAt: null }),
      ],
      '2026-11-28T00:00:00Z',
    ],
    [
      'the newest by time, whatever the spelling',
      [
        reading('standard', { observedAt: '2026-11-28T00:00:00Z' }),
        reading('ready', { observedAt: '2026-11-28T00:05:00.000Z' }),
      ],
      '2026-11-28T00:05:00.000Z',
    ],
    [
      'the newest fetch time when no lane has a time of its own',
      [
        reading('standard', { status: 'update-pending', delayMinutes: null, observedAt: null }),
        reading('ready', {
          status: 'not-applicable',
          delayMinutes: null,
          observedAt: null,
          fetchedAt: '2026-11-28T00:20:00.000Z',
        }),
      ],
      FETCHED,
    ],
  ])('is %s', (_, readings, expected) => {
    expect(updatedAt(readings)).toBe(expected);
  });
});
