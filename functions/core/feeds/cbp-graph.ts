/**
 * CBP's hourly graph, `api/bwtwaittimegraph/{bwtId}/{YYYY-MM-DD}` (feeds.md 2.5): for one port and
 * date, 24 port-local hourly slots per mode, each lane with today's wait and CBP's typical wait of
 * that hour (`*_average_wait`, with `*_min_wait` and `*_max_wait`). Only the typical waits are read
 * here; today's waits are the live feeds' business.
 *
 * Quirks: the pedestrian group is spelled `pedestrain_time_slots` / `pedestrain_slot` (sic); an
 * hour that has not happened yet, or one CBP missed, holds `""`, which is no value, never 0; the
 * passenger `fast_lane_*` keys are the trusted-traveller lane (SENTRI on the Mexican border, NEXUS
 * on the Canadian one), and some ports may name them `nexus_lane_*` or `sentri_lane_*` (reported by
 * izworskic/chrisizworski-com, unverified), which are read too.
 */
import { FeedFormatError } from '../errors.ts';
import type { Border, Lane, Mode } from '../model.ts';

/** CBP's typical wait of one lane at one port-local hour of one date. */
export interface GraphTypicalWait {
  mode: Mode;
  lane: Lane;
  /** Port-local hour, 0-23. */
  hour: number;
  averageMinutes: number;
  minMinutes: number | null;
  maxMinutes: number | null;
}

/** One parsed graph document. */
export interface ParsedGraph {
  portNumber: string;
  /** The date the graph is for, `YYYY-MM-DD` (port-local). */
  date: string;
  /** The typical waits of the lanes CBP runs there, by mode, lane and hour. */
  typical: GraphTypicalWait[];
}

interface GroupSpec {
  mode: Mode;
  group: readonly string[];
  slots: readonly string[];
  /** Key prefix (`standard_lane`) -> lane; `trusted` is SENTRI or NEXUS by border. */
  lanes: readonly (readonly [string, Lane | 'trusted'])[];
}

const GROUPS: readonly GroupSpec[] = [
  {
    mode: 'commercial',
    group: ['commercial_time_slots'],
    slots: ['commercial_slot'],
    lanes: [
      ['standard_lane', 'standard'],
      ['fast_lane', 'fast'],
    ],
  },
  {
    mode: 'passenger',
    group: ['private_time_slots', 'passenger_time_slots'],
    slots: ['private_slot', 'passenger_slot'],
    lanes: [
      ['standard_lane', 'standard'],
      ['fast_lane', 'trusted'],
      ['nexus_lane', 'trusted'],
      ['sentri_lane', 'trusted'],
      ['ready_lane', 'ready'],
    ],
  },
  {
    mode: 'pedestrian',
    // "pedestrain" (sic) is CBP's spelling; the correct one is accepted too.
    group: ['pedestrain_time_slots', 'pedestrian_time_slots'],
    slots: ['pedestrain_slot', 'pedestrian_slot'],
    lanes: [
      ['standard_lane', 'standard'],
      ['ready_lane', 'ready'],
    ],
  },
];

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A minute value: a number >= 0, or null for `""`, `null`, `N/A` or anything else (never 0). */
export function graphMinutes(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : null;
}

function pick(object: Record<string, unknown>, names: readonly string[]): unknown {
  for (const name of names) if (Object.hasOwn(object, name)) return object[name];
  return undefined;
}

function toValue(input: unknown): unknown {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return input;
  const text = typeof input === 'string' ? input : new TextDecoder('utf-8').decode(input);
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error: unknown) {
    throw new FeedFormatError(`graph is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Parses one graph document (text, bytes or parsed JSON). `border` says which trusted-traveller
 * lane the passenger `fast_lane_*` keys are. A lane whose every value in the document is 0 is one
 * CBP does not run at the port (the real capture fills Blaine's pedestrian lanes with zeros) and
 * is left out; an empty value is left out, never read as 0.
 * @throws FeedFormatError when the document is not a graph (not JSON, no port object, no slot).
 */
export function parseCbpGraph(input: unknown, border: Border): ParsedGraph {
  const value = toValue(input);
  const port = Array.isArray(value) ? value[0] : value;
  if (!isObject(port))
    throw new FeedFormatError('graph has no port object (expected [{ port_number, ... }])');
  const portNumber = typeof port.port_number === 'string' ? port.port_number.trim() : '';
  const date = typeof port.date === 'string' ? port.date.trim().slice(0, 10) : '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    throw new FeedFormatError(`graph date "${String(port.date)}" is not YYYY-MM-DD`);
  }
  const trusted: Lane = border === 'mx' ? 'sentri' : 'nexus';
  const typical: GraphTypicalWait[] = [];
  let slotsSeen = 0;
  for (const spec of GROUPS) {
    const group = pick(port, spec.group);
    const slots = isObject(group) ? pick(group, spec.slots) : undefined;
    if (!Array.isArray(slots)) continue;
    const byLane = new Map<Lane, GraphTypicalWait[]>();
    const running = new Set<Lane>();
    for (const slot of slots) {
      if (!isObject(slot)) continue;
      const hour = graphMinutes(slot.time);
      if (hour === null || !Number.isInteger(hour) || hour > 23) continue;
      slotsSeen++;
      for (const [prefix, named] of spec.lanes) {
        const lane = named === 'trusted' ? trusted : named;
        const averageMinutes = graphMinutes(slot[`${prefix}_average_wait`]);
        if (averageMinutes === null) continue;
        const list = byLane.get(lane) ?? [];
        // Two keys of one lane (fast and nexus): the first one with a value wins.
        if (list.some((wait) => wait.hour === hour)) continue;
        const minMinutes = graphMinutes(slot[`${prefix}_min_wait`]);
        const maxMinutes = graphMinutes(slot[`${prefix}_max_wait`]);
        list.push({ mode: spec.mode, lane, hour, averageMinutes, minMinutes, maxMinutes });
        byLane.set(lane, list);
        if (averageMinutes > 0 || (minMinutes ?? 0) > 0 || (maxMinutes ?? 0) > 0) running.add(lane);
      }
    }
    for (const [lane, list] of byLane) {
      if (running.has(lane)) typical.push(...list.sort((a, b) => a.hour - b.hour));
    }
  }
  if (slotsSeen === 0) {
    throw new FeedFormatError('graph has no hourly slot (commercial, private or pedestrain time slots)');
  }
  return { portNumber, date, typical };
}
