import { describe, expect, it } from 'vitest';
import { compare, type LaneState, type ScheduledFault, type Snapshot } from '../../../scripts/soak/faults.ts';

const cbsaFault: ScheduledFault = { name: 'HTTP 500', feed: 'cbsa', fault: { kind: 'status', status: 500 } };
const reading = (source: string, observedAt: string | null, status = 'open'): LaneState => ({
  source,
  status,
  delayMinutes: observedAt === null ? null : 10,
  lanesOpen: observedAt === null ? null : 2,
  observedAt,
});

const cases: {
  name: string;
  before: LaneState;
  after: LaneState | undefined;
  verdict: 'kept' | 'lost' | 'movedBack' | 'changed';
}[] = [
  {
    name: 'unchanged lane',
    before: reading('cbsa', '2026-11-27T06:00:00Z'),
    after: reading('cbsa', '2026-11-27T06:00:00Z'),
    verdict: 'kept',
  },
  { name: 'lane gone', before: reading('cbp', '2026-11-27T06:00:00Z'), after: undefined, verdict: 'lost' },
  {
    name: 'faulted source older',
    before: reading('cbsa', '2026-11-27T06:00:00Z'),
    after: reading('cbsa', '2026-11-27T05:00:00Z'),
    verdict: 'movedBack',
  },
  {
    name: 'faulted source loses its reading',
    before: reading('cbsa', '2026-11-27T06:00:00Z'),
    after: reading('cbsa', null, 'lanes-closed'),
    verdict: 'movedBack',
  },
  {
    name: 'faulted source moves forward',
    before: reading('cbsa', '2026-11-27T06:00:00Z'),
    after: reading('cbsa', '2026-11-27T06:05:00Z'),
    verdict: 'changed',
  },
  {
    name: 'healthy source moves forward',
    before: reading('cbp', '2026-11-27T06:00:00Z'),
    after: reading('cbp', '2026-11-27T06:05:00Z'),
    verdict: 'kept',
  },
  {
    name: 'healthy source reports the lane closed',
    before: reading('cbp', '2026-11-27T06:58:00Z'),
    after: reading('cbp', null, 'lanes-closed'),
    verdict: 'kept',
  },
  {
    name: 'healthy source drops the time, same status',
    before: reading('cbp', '2026-11-27T06:58:00Z'),
    after: reading('cbp', null),
    verdict: 'movedBack',
  },
  {
    name: 'healthy source older',
    before: reading('cbp', '2026-11-27T06:58:00Z'),
    after: reading('cbp', '2026-11-27T06:00:00Z'),
    verdict: 'movedBack',
  },
];

describe('soak fault comparison', () => {
  it.each(cases)('$name: $verdict', ({ before, after, verdict }) => {
    const was: Snapshot = new Map([['250401 into-us passenger standard', before]]);
    const now: Snapshot = new Map(after ? [['250401 into-us passenger standard', after]] : []);
    const result = compare(was, now, cbsaFault);
    const found =
      result.lost.length > 0
        ? 'lost'
        : result.movedBack.length > 0
          ? 'movedBack'
          : result.changed.length > 0
            ? 'changed'
            : 'kept';
    expect(found).toBe(verdict);
  });
});
