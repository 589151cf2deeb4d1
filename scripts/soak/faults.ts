/**
 * The fault schedule: each fault is set on one feed of the simulator for at least one complete
 * ingest cycle, and the served data (`/api/v1/port-current?include=ports`, through the edge) is
 * compared before and after. A fault may not lose a lane, move one back in time, or (unless the
 * fault can leave a usable part of a document, as a truncated CSV does) change the faulted
 * source's lanes at all.
 */
import type { SourceOutcome } from '../../functions/core/ingest/ingest.ts';
import type { Fault, SimulatedFeed } from '../../infra/local/simulator/server.ts';

export interface ScheduledFault {
  name: string;
  feed: SimulatedFeed;
  fault: Fault;
  /** A part of the document may be usable (rows before the cut): forward changes are allowed. */
  partial?: boolean;
}

const MIB = 1024 * 1024;
const HOUR = 3_600_000;

/** The nine faults, on the feed where each bites first; `round` alternates the feeds. */
export function faultRound(round: number, maxBytes: number): ScheduledFault[] {
  const swap = (feed: SimulatedFeed): SimulatedFeed =>
    round % 2 === 0 ? feed : feed === 'cbp' ? 'cbsa' : 'cbp';
  return [
    { name: 'HTTP 500', feed: swap('cbp'), fault: { kind: 'status', status: 500 } },
    { name: 'hang', feed: swap('cbsa'), fault: { kind: 'hang' } },
    { name: 'truncated', feed: swap('cbp'), fault: { kind: 'truncated' }, partial: true },
    { name: 'empty', feed: swap('cbsa'), fault: { kind: 'empty' } },
    { name: 'shrunken (5 ports)', feed: swap('cbp'), fault: { kind: 'few-ports', ports: 5 } },
    {
      name: 'wrong content type',
      feed: swap('cbsa'),
      fault: { kind: 'content-type', contentType: 'text/html; charset=utf-8' },
    },
    { name: 'oversized', feed: swap('cbp'), fault: { kind: 'oversized', bytes: maxBytes + MIB } },
    { name: 'hostile XML (entity bomb)', feed: 'cbp', fault: { kind: 'entity-bomb' } },
    { name: 'older document replayed', feed: swap('cbp'), fault: { kind: 'older', ageMs: 4 * HOUR } },
  ];
}

/** The served state of one lane. */
export interface LaneState {
  source: string;
  status: string;
  delayMinutes: number | null;
  lanesOpen: number | null;
  observedAt: string | null;
}

export type Snapshot = Map<string, LaneState>;

interface PortCurrent {
  ports: {
    id: string;
    current: {
      lanes: (LaneState & { direction: string; mode: string; lane: string })[];
    } | null;
  }[];
}

/** Every served lane, keyed `port direction mode lane`. */
export async function snapshot(baseUrl: string): Promise<Snapshot> {
  const response = await fetch(`${baseUrl}/api/v1/port-current?include=ports`, {
    headers: { 'cache-control': 'no-cache' },
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`port-current answered ${response.status}`);
  const body = (await response.json()) as PortCurrent;
  const lanes: Snapshot = new Map();
  for (const port of body.ports) {
    for (const lane of port.current?.lanes ?? []) {
      lanes.set(`${port.id} ${lane.direction} ${lane.mode} ${lane.lane}`, {
        source: lane.source,
        status: lane.status,
        delayMinutes: lane.delayMinutes,
        lanesOpen: lane.lanesOpen,
        observedAt: lane.observedAt,
      });
    }
  }
  return lanes;
}

export interface Comparison {
  lanes: number;
  /** Lanes served before and gone after. */
  lost: string[];
  /** Lanes whose reading is older after than before. */
  movedBack: string[];
  /** Lanes of the faulted source that changed although the fault leaves nothing usable. */
  changed: string[];
  /** Lanes that moved forward (allowed for partial faults and the other source). */
  forward: number;
}

const SOURCE_OF_FEED: Record<SimulatedFeed, string> = { cbp: 'cbp', cbsa: 'cbsa', graph: 'cbp' };

const same = (a: LaneState, b: LaneState) =>
  a.status === b.status &&
  a.delayMinutes === b.delayMinutes &&
  a.lanesOpen === b.lanesOpen &&
  a.observedAt === b.observedAt;

export function compare(before: Snapshot, after: Snapshot, fault: ScheduledFault): Comparison {
  const result: Comparison = { lanes: before.size, lost: [], movedBack: [], changed: [], forward: 0 };
  for (const [key, was] of before) {
    const now = after.get(key);
    if (!now) {
      result.lost.push(key);
      continue;
    }
    if (same(was, now)) continue;
    const wasAt = was.observedAt === null ? null : Date.parse(was.observedAt);
    const nowAt = now.observedAt === null ? null : Date.parse(now.observedAt);
    // The healthy source may legitimately report a lane as closed or pending (no reading, so no
    // time): that is the feed moving on, not the fault losing data.
    const healthySourceClosed =
      was.source !== SOURCE_OF_FEED[fault.feed] && nowAt === null && now.status !== was.status;
    if (wasAt !== null && (nowAt === null || nowAt < wasAt) && !healthySourceClosed) {
      result.movedBack.push(`${key} ${was.observedAt} -> ${now.observedAt}`);
      continue;
    }
    if (was.source === SOURCE_OF_FEED[fault.feed] && !fault.partial) {
      result.changed.push(`${key} ${JSON.stringify(was)} -> ${JSON.stringify(now)}`);
      continue;
    }
    result.forward += 1;
  }
  return result;
}

/** What the ingest said about the faulted feed in the cycles under the fault. */
export function outcomeText(outcomes: readonly SourceOutcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) {
    const text = outcome.error
      ? `${outcome.outcome}: ${outcome.error.replace(/\s+/g, ' ').slice(0, 80)}`
      : outcome.outcome;
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  return (
    [...counts].map(([text, count]) => (count > 1 ? `${count}x ${text}` : text)).join('; ') || 'no cycle'
  );
}
