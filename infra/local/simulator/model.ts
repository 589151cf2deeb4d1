/**
 * The simulated "truth" behind the feed simulator: the state of every lane of every catalogued port
 * at any instant. Pure and deterministic (a seeded hash, never `Math.random`), so a document built
 * for an instant, the state computed here and a reference of what an ingest would store always
 * agree, whatever the clock.
 *
 * Patterns, in the port's own time zone: rush hours around 7-9 and 16-19, heavier on Fridays and
 * Sundays, busier on the Mexican border; commercial traffic peaks at midday on weekdays. Updates:
 * manual ports publish on the hour, automated (Bluetooth/RFID) ports every 5 minutes at minutes
 * that are never round. Every status occurs: `update-pending` from local midnight until the first
 * update of the day, `port-closed` outside a part-time port's hours, `lanes-closed` for some night
 * lanes and at random, `not-applicable` for lanes a port does not have, and CBSA's `--`
 * (`not-reported`).
 */

import { PORTS } from '../../../functions/core/catalogue/catalogue.ts';
import type { Direction, Lane, LaneStatus, Mode, Port, Reading } from '../../../functions/core/model.ts';
import { toIsoSeconds, utcToZoned } from '../../../functions/core/time.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const FIVE_MINUTES_MS = 5 * MINUTE_MS;

// ---------------------------------------------------------------------------------------------
// Seeded hash

/** FNV-1a over the text, then murmur3's finaliser for a good spread of nearby keys. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A deterministic number in [0, 1) for a key. */
export function unitHash(...parts: readonly (string | number)[]): number {
  return hash32(parts.join('|')) / 4_294_967_296;
}

/**
 * Per-port facts (size, lanes, hours) never change for a port id: computed once. Keyed by text so a
 * test's hand-made port with another id gets its own entries.
 */
const facts = new Map<string, unknown>();

function memo<T>(key: string, compute: () => T): T {
  if (facts.has(key)) return facts.get(key) as T;
  const value = compute();
  facts.set(key, value);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Ports and lanes

/** The lanes a feed can carry, in CBP's document order, with the mode each belongs to. */
export interface LaneSlot {
  direction: Direction;
  mode: Mode;
  lane: Lane;
}

/** CBP's 7 lane slots of a port (`NEXUS_SENTRI_lanes` is `sentri` on the Mexican border, `nexus` on the Canadian). */
export function cbpSlots(port: Port): LaneSlot[] {
  const trusted: Lane = port.border === 'mx' ? 'sentri' : 'nexus';
  return [
    { direction: 'into-us', mode: 'commercial', lane: 'standard' },
    { direction: 'into-us', mode: 'commercial', lane: 'fast' },
    { direction: 'into-us', mode: 'passenger', lane: 'standard' },
    { direction: 'into-us', mode: 'passenger', lane: trusted },
    { direction: 'into-us', mode: 'passenger', lane: 'ready' },
    { direction: 'into-us', mode: 'pedestrian', lane: 'standard' },
    { direction: 'into-us', mode: 'pedestrian', lane: 'ready' },
  ];
}

/** CBSA's two Canada-bound flows of an office (commercial and travellers, one lane each). */
export const CBSA_SLOTS: readonly LaneSlot[] = [
  { direction: 'into-canada', mode: 'commercial', lane: 'standard' },
  { direction: 'into-canada', mode: 'passenger', lane: 'standard' },
];

/** Every lane slot a port has in the feeds: CBP's 7 when it has `into-us`, CBSA's 2 when `into-canada`. */
export function laneSlots(port: Port): LaneSlot[] {
  return [
    ...(port.directions.includes('into-us') ? cbpSlots(port) : []),
    ...(port.directions.includes('into-canada') ? CBSA_SLOTS : []),
  ];
}

/** The ports in CBP's documents, in CBP's order: Canadian border first, then by name and crossing. */
export const CBP_PORTS: readonly Port[] = PORTS.filter((port) => port.directions.includes('into-us')).sort(
  (a, b) =>
    (a.border === b.border ? 0 : a.border === 'ca' ? -1 : 1) ||
    a.name.localeCompare(b.name, 'en') ||
    (a.crossing ?? '').localeCompare(b.crossing ?? '', 'en') ||
    a.id.localeCompare(b.id, 'en'),
);

/** The offices in CBSA's CSV (ports with `into-canada`), in catalogue order (east to west). */
export const CBSA_PORTS: readonly Port[] = PORTS.filter((port) => port.directions.includes('into-canada'));

/** The busiest crossings: more lanes, longer waits, FAST and trusted-traveller lanes. */
const BIG_PORTS = new Set([
  '250401',
  '250601',
  '250602',
  '250302',
  '260401',
  '260402',
  '240201',
  '240202',
  '240203',
  '230401',
  '230402',
  '230404',
  '230501',
  '230502',
  '535501',
  '535504',
  '300401',
  '300402',
  '380001',
  '380002',
  '380102',
  '380201',
  '090101',
  '090104',
  '071201',
]);

/** Ports whose passenger and commercial waits come from sensors (Bluetooth/RFID) every 5 minutes. */
const AUTOMATED_PORTS = new Set(['090101', '090104', '300401', '300402', '240201', '230404']);

/**
 * Arizona ports that print `PST` all year though they keep Arizona time, UTC-7 (feeds.md 1.4):
 * Douglas (260101) and Naco (2603xx). Other Arizona ports print `MST`.
 */
function printsPacific(port: Port): boolean {
  return port.id === '260101' || port.id.startsWith('2603');
}

/** How big a port is, in [0, 1): known big crossings above 0.8, the others spread below 0.6. */
export function portSize(port: Port): number {
  return memo(`size|${port.id}`, () => {
    const h = unitHash('size', port.id);
    return BIG_PORTS.has(port.id) ? 0.8 + 0.2 * h : 0.05 + 0.55 * h;
  });
}

/** True when the port's `mode` lanes publish every 5 minutes (Bluetooth/RFID) rather than hourly. */
export function isAutomated(port: Port, mode: Mode): boolean {
  return AUTOMATED_PORTS.has(port.id) && mode !== 'pedestrian';
}

type PortKind = 'pedestrian-only' | 'commercial-only' | 'mixed';

function portKind(port: Port): PortKind {
  const text = `${port.name} ${port.crossing ?? ''}`;
  if (/pedestrian|pedwest|cross border (?:express|xpress)|morley gate/i.test(text)) return 'pedestrian-only';
  if (/\bcommercial\b|world trade/i.test(text)) return 'commercial-only';
  return 'mixed';
}

/** Crossings that take no trucks (Rainbow Bridge: commercial `Not applicable` on both sides, feeds.md 5.1). */
function noTrucks(port: Port): boolean {
  return /rainbow|whirlpool|tunnel|point roberts/i.test(port.crossing ?? '');
}

function hasCommercial(port: Port): boolean {
  const kind = portKind(port);
  if (kind !== 'mixed') return kind === 'commercial-only';
  if (noTrucks(port)) return false;
  return portSize(port) > 0.45 || unitHash('commercial', port.id) < (port.border === 'mx' ? 0.45 : 0.7);
}

/**
 * Whether a lane exists at a port (a lane that does not is `not-applicable`): pedestrian lanes
 * mostly on the Mexican border, SENTRI on the Mexican and NEXUS on the Canadian border, FAST at
 * the big commercial ports, Ready lanes at some.
 */
export function laneExists(port: Port, direction: Direction, mode: Mode, lane: Lane): boolean {
  return memo(`exists|${port.id}|${port.directions.join()}|${direction}|${mode}|${lane}`, () =>
    computeLaneExists(port, direction, mode, lane),
  );
}

function computeLaneExists(port: Port, direction: Direction, mode: Mode, lane: Lane): boolean {
  if (!port.directions.includes(direction)) return false;
  if (direction === 'into-canada') {
    // CBSA publishes one value per flow; a crossing without trucks prints `Not Applicable`.
    if (lane !== 'standard' || mode === 'pedestrian') return false;
    return mode === 'passenger' || !port.directions.includes('into-us') || hasCommercial(port);
  }
  const kind = portKind(port);
  const size = portSize(port);
  const mx = port.border === 'mx';
  switch (mode) {
    case 'commercial':
      if (!hasCommercial(port)) return false;
      if (lane === 'standard') return true;
      return lane === 'fast' && (kind === 'commercial-only' || size > 0.55);
    case 'passenger':
      if (kind !== 'mixed') return false;
      if (lane === 'standard') return true;
      if (lane === 'sentri') return mx && size > 0.3;
      if (lane === 'nexus') return !mx && size > 0.4;
      return lane === 'ready' && (mx ? size > 0.25 : size > 0.75);
    case 'pedestrian':
      if (kind === 'commercial-only') return false;
      if (lane === 'standard') {
        return kind === 'pedestrian-only' || (mx ? size > 0.15 : /rainbow/i.test(port.crossing ?? ''));
      }
      return lane === 'ready' && mx && (kind === 'pedestrian-only' ? size > 0.3 : size > 0.6);
  }
}

/** The `maximum_lanes` CBP prints for a mode: null (`N/A`) when the port has no lane of it. */
export function maxLanesOf(port: Port, mode: Mode): number | null {
  return memo(`max|${port.id}|${port.directions.join()}|${mode}`, () => computeMaxLanes(port, mode));
}

function computeMaxLanes(port: Port, mode: Mode): number | null {
  if (!port.directions.includes('into-us')) return null;
  const any = cbpSlots(port).some(
    (slot) => slot.mode === mode && laneExists(port, 'into-us', mode, slot.lane),
  );
  if (!any) return null;
  const size = portSize(port);
  const range = { passenger: 22, commercial: 9, pedestrian: 12 }[mode];
  return 2 + Math.floor(size * range);
}

// ---------------------------------------------------------------------------------------------
// Hours and clocks

/** Opening hours in minutes of the local day: `[open, close)`. */
export interface OpeningHours {
  openMinute: number;
  closeMinute: number;
}

function clockMinute(value: string, meridiem: string | undefined, closing: boolean): number | null {
  const word = value.toLowerCase();
  if (word === 'midnight') return closing ? 1440 : 0;
  if (word === 'noon') return 720;
  const hour = Number(value);
  if (!Number.isInteger(hour) || hour < 1 || hour > 12 || meridiem === undefined) return null;
  const h24 = (hour % 12) + (meridiem.toLowerCase() === 'pm' ? 12 : 0);
  return h24 === 0 && closing ? 1440 : h24 * 60;
}

/**
 * The catalogue's `hours` (`6 am-10 pm`, `8 am-Midnight`) as minutes of the local day; null for
 * `24 hrs/day`, a missing value or a form this does not read (the port is then always open).
 */
export function parseHours(hours: string | null): OpeningHours | null {
  return hours === null ? null : memo(`hours|${hours}`, () => computeHours(hours));
}

function computeHours(hours: string): OpeningHours | null {
  const match = /^\s*(\d{1,2}|noon|midnight)\s*(am|pm)?\s*-\s*(\d{1,2}|noon|midnight)\s*(am|pm)?\s*$/i.exec(
    hours,
  );
  if (!match?.[1] || !match[3]) return null;
  const openMinute = clockMinute(match[1], match[2], false);
  const closeMinute = clockMinute(match[3], match[4], true);
  if (openMinute === null || closeMinute === null || closeMinute <= openMinute) return null;
  return { openMinute, closeMinute };
}

/** A wall-clock reading in the port's zone. */
interface LocalClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** Minutes since local midnight. */
  minuteOfDay: number;
  /** 0 = Sunday. */
  dayOfWeek: number;
  /** `YYYY-MM-DD`, a key for per-day choices. */
  date: string;
}

/** Wall clocks by zone and minute: `Intl` formatting dominates the cost of a simulated week. */
const localClocks = new Map<string, LocalClock>();

function localClock(atMs: number, timeZone: string): LocalClock {
  const key = `${timeZone}|${Math.floor(atMs / MINUTE_MS)}`;
  const cached = localClocks.get(key);
  if (cached) return cached;
  if (localClocks.size >= 100_000) localClocks.clear();
  const clock = computeLocalClock(atMs, timeZone);
  localClocks.set(key, clock);
  return clock;
}

function computeLocalClock(atMs: number, timeZone: string): LocalClock {
  const t = utcToZoned(atMs, timeZone);
  const date = `${t.year}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;
  return {
    year: t.year,
    month: t.month,
    day: t.day,
    hour: t.hour,
    minute: t.minute,
    minuteOfDay: t.hour * 60 + t.minute,
    dayOfWeek: new Date(Date.UTC(t.year, t.month - 1, t.day)).getUTCDay(),
    date,
  };
}

/** `open` or `closed` (CBP's `port_status`): a part-time port is closed outside its hours. */
export function portStatusAt(port: Port, atMs: number): 'open' | 'closed' {
  const hours = parseHours(port.hours);
  if (hours === null) return 'open';
  const { minuteOfDay } = localClock(atMs, port.timeZone);
  return minuteOfDay >= hours.openMinute && minuteOfDay < hours.closeMinute ? 'open' : 'closed';
}

/** Minute of the hour (1-4) at which an automated port's 5-minute cycle starts: never round. */
function automatedPhase(port: Port): number {
  return 1 + Math.floor(unitHash('phase', port.id) * 4);
}

/** Minute of the hour (0-59) at which a CBSA office's row is refreshed. */
function cbsaRowMinute(port: Port): number {
  return Math.floor(unitHash('cbsa-minute', port.id) * 60);
}

// All zones of the catalogue are whole hours from UTC, so "top of the local hour" and "minute of
// the local hour" can be computed on the epoch directly.

/** The latest CBP update of a port's mode at or before `atMs` (schedule only, ignoring hours). */
function lastScheduledUpdate(port: Port, mode: Mode, atMs: number): number {
  if (!isAutomated(port, mode)) return Math.floor(atMs / HOUR_MS) * HOUR_MS;
  const phase = automatedPhase(port) * MINUTE_MS;
  return Math.floor((atMs - phase) / FIVE_MINUTES_MS) * FIVE_MINUTES_MS + phase;
}

/** The latest CBSA row refresh at or before `atMs`. */
function lastCbsaUpdate(port: Port, atMs: number): number {
  const offset = cbsaRowMinute(port) * MINUTE_MS;
  return Math.floor((atMs - offset) / HOUR_MS) * HOUR_MS + offset;
}

/**
 * Whether the port publishes a midnight reading on that local date (`At Midnight CST`); on the
 * other days its lanes stay `Update Pending` through the first hour. Arizona ports never do: CBP
 * dates their JSON in the zone it maps them to (Pacific for Douglas and Naco, feeds.md 2.2), which
 * in winter is still the previous day at Arizona midnight, and a midnight reading under yesterday's
 * date would resolve a day early.
 */
function publishesAtMidnight(port: Port, date: string): boolean {
  return port.timeZone !== 'America/Phoenix' && unitHash('midnight', port.id, date) < 0.3;
}

/** Minute of the local day of the first CBP update (before it, lanes are `Update Pending`). */
function firstUpdateMinute(port: Port, mode: Mode, local: LocalClock): number {
  const hours = parseHours(port.hours);
  const automated = isAutomated(port, mode) ? automatedPhase(port) : 0;
  if (hours !== null && hours.openMinute > 0) return hours.openMinute + automated;
  return (publishesAtMidnight(port, local.date) ? 0 : 60) + automated;
}

// ---------------------------------------------------------------------------------------------
// Waits

const HOURLY_TRAVEL = [
  0.15, 0.1, 0.08, 0.08, 0.12, 0.3, 0.6, 1.1, 1.35, 1.2, 0.9, 0.8, 0.8, 0.85, 0.9, 1.0, 1.25, 1.45, 1.4, 1.1,
  0.8, 0.6, 0.4, 0.25,
];
const HOURLY_COMMERCIAL = [
  0.1, 0.1, 0.1, 0.1, 0.1, 0.2, 0.5, 0.8, 1.0, 1.2, 1.3, 1.3, 1.25, 1.2, 1.2, 1.1, 1.0, 0.8, 0.6, 0.4, 0.3,
  0.2, 0.15, 0.1,
];
/** Sunday first. Travellers crowd Friday and Sunday; trucks run on weekdays. */
const DAILY_TRAVEL = [1.35, 1.0, 0.9, 0.9, 1.0, 1.3, 1.1];
const DAILY_COMMERCIAL = [0.25, 1.1, 1.05, 1.0, 1.0, 1.0, 0.45];

const BASE_MINUTES: Readonly<
  Record<Direction, Readonly<Record<'mx' | 'ca', Readonly<Record<Mode, number>>>>>
> = {
  'into-us': {
    mx: { passenger: 45, pedestrian: 30, commercial: 50 },
    ca: { passenger: 18, pedestrian: 8, commercial: 15 },
  },
  'into-canada': {
    mx: { passenger: 0, pedestrian: 0, commercial: 0 },
    ca: { passenger: 20, pedestrian: 0, commercial: 12 },
  },
};

const LANE_FACTOR: Readonly<Record<Lane, number>> = {
  standard: 1,
  ready: 0.6,
  sentri: 0.3,
  nexus: 0.25,
  fast: 0.45,
};

const LANE_SHARE: Readonly<Record<Lane, number>> = {
  standard: 0.7,
  ready: 0.35,
  sentri: 0.2,
  nexus: 0.15,
  fast: 0.3,
};

/** The wait of a lane as published at `updatedAtMs` (minutes). */
function delayAt(port: Port, slot: LaneSlot, updatedAtMs: number, local: LocalClock): number {
  const commercial = slot.mode === 'commercial';
  const hourly = (commercial ? HOURLY_COMMERCIAL : HOURLY_TRAVEL)[local.hour] ?? 1;
  const daily = (commercial ? DAILY_COMMERCIAL : DAILY_TRAVEL)[local.dayOfWeek] ?? 1;
  const base = BASE_MINUTES[slot.direction][port.border][slot.mode];
  const laneFactor = LANE_FACTOR[slot.lane] * (slot.mode === 'pedestrian' && slot.lane === 'ready' ? 0.9 : 1);
  const hourBucket = Math.floor(updatedAtMs / HOUR_MS);
  const hourlyNoise =
    0.6 + 0.8 * unitHash('delay', port.id, slot.direction, slot.mode, slot.lane, hourBucket);
  const fineNoise =
    updatedAtMs % HOUR_MS === 0
      ? 1
      : 0.85 + 0.3 * unitHash('jitter', port.id, slot.direction, slot.mode, slot.lane, updatedAtMs);
  const minutes = base * hourly * daily * laneFactor * (0.3 + portSize(port)) * hourlyNoise * fineNoise;
  return Math.min(240, Math.max(0, Math.round(minutes)));
}

/**
 * The typical wait of a lane at a port-local weekday and hour, with its range: the middle of what
 * {@link delayAt} publishes then (its hourly noise spans 0.6 to 1.4 of it). What the simulator's
 * hourly graph prints as CBP's average, minimum and maximum.
 */
export function typicalDelay(
  port: Port,
  slot: LaneSlot,
  dayOfWeek: number,
  hour: number,
): { average: number; min: number; max: number } {
  const commercial = slot.mode === 'commercial';
  const hourly = (commercial ? HOURLY_COMMERCIAL : HOURLY_TRAVEL)[hour] ?? 1;
  const daily = (commercial ? DAILY_COMMERCIAL : DAILY_TRAVEL)[dayOfWeek] ?? 1;
  const base = BASE_MINUTES[slot.direction][port.border][slot.mode];
  const laneFactor = LANE_FACTOR[slot.lane] * (slot.mode === 'pedestrian' && slot.lane === 'ready' ? 0.9 : 1);
  const minutes = base * hourly * daily * laneFactor * (0.3 + portSize(port));
  const clamp = (value: number) => Math.min(240, Math.max(0, Math.round(value)));
  return { average: clamp(minutes), min: clamp(minutes * 0.6), max: clamp(minutes * 1.4) };
}

function lanesOpenAt(port: Port, slot: LaneSlot, delayMinutes: number): number {
  const max = maxLanesOf(port, slot.mode) ?? 1;
  const load = Math.min(1, delayMinutes / 60);
  return Math.max(1, Math.min(max, Math.round(max * LANE_SHARE[slot.lane] * (0.4 + 0.6 * load))));
}

/**
 * Lanes closed at the moment of an update: Ready and SENTRI lanes of the smaller Mexican ports
 * close at night (23:00-05:00), and any lane now and then for an hour.
 */
function laneClosedAt(port: Port, slot: LaneSlot, updatedAtMs: number, local: LocalClock): boolean {
  const night = local.hour >= 23 || local.hour < 5;
  if (
    night &&
    port.border === 'mx' &&
    (slot.lane === 'ready' || slot.lane === 'sentri') &&
    portSize(port) < 0.8
  ) {
    return true;
  }
  const hourBucket = Math.floor(updatedAtMs / HOUR_MS);
  return unitHash('lanes-closed', port.id, slot.direction, slot.mode, slot.lane, hourBucket) < 0.02;
}

// ---------------------------------------------------------------------------------------------
// What the CBP feed prints for a lane

/** A CBP lane as the feed prints it. */
/**
 * The first CBP port that is open at some instant `openAt` (on a `stepMs` grid from `fromMs`, within
 * two days) and closed at `openAt + stepMs`: for tests of what happens when a port closes.
 */
export function nextPortClosing(
  fromMs: number,
  stepMs = 15 * MINUTE_MS,
): { port: Port; openAt: number; closedAt: number } {
  for (let t = fromMs; t < fromMs + 2 * 24 * HOUR_MS; t += stepMs) {
    for (const port of CBP_PORTS) {
      if (portStatusAt(port, t) === 'open' && portStatusAt(port, t + stepMs) === 'closed') {
        return { port, openAt: t, closedAt: t + stepMs };
      }
    }
  }
  throw new Error('no simulated port closes within two days');
}

export type CbpLaneView =
  | { kind: 'reading'; delayMinutes: number; lanesOpen: number; updatedAtMs: number }
  | { kind: 'lanes-closed' }
  | { kind: 'update-pending' }
  | { kind: 'not-applicable' };

/** The state of an existing CBP lane at an update instant of an open port. */
function cbpUpdate(port: Port, slot: LaneSlot, updatedAtMs: number): CbpLaneView {
  const local = localClock(updatedAtMs, port.timeZone);
  if (laneClosedAt(port, slot, updatedAtMs, local)) return { kind: 'lanes-closed' };
  const delayMinutes = delayAt(port, slot, updatedAtMs, local);
  return { kind: 'reading', delayMinutes, lanesOpen: lanesOpenAt(port, slot, delayMinutes), updatedAtMs };
}

/** Closed ports that keep printing their last reading of the day (Santa Teresa, feeds.md 1.3). */
function keepsStaleReading(port: Port): boolean {
  return unitHash('stale', port.id) < 0.5;
}

/**
 * What CBP's documents print for a lane at `atMs` (lane slot in CBP's terms, `sentri`/`nexus` by
 * border). A closed port prints either its last reading of the day (until local midnight) or
 * `Update Pending`; `port_status` tells the port is closed ({@link portStatusAt}).
 */
export function cbpLaneView(port: Port, mode: Mode, lane: Lane, atMs: number): CbpLaneView {
  if (!laneExists(port, 'into-us', mode, lane)) return { kind: 'not-applicable' };
  const slot: LaneSlot = { direction: 'into-us', mode, lane };
  const local = localClock(atMs, port.timeZone);
  const hours = parseHours(port.hours);
  if (hours !== null && (local.minuteOfDay < hours.openMinute || local.minuteOfDay >= hours.closeMinute)) {
    if (local.minuteOfDay < hours.closeMinute || !keepsStaleReading(port)) return { kind: 'update-pending' };
    const closedForMs = (local.minuteOfDay - hours.closeMinute) * MINUTE_MS;
    const closingMs = Math.floor(atMs / MINUTE_MS) * MINUTE_MS - closedForMs;
    return cbpUpdate(port, slot, lastScheduledUpdate(port, mode, closingMs - 1));
  }
  const updatedAtMs = lastScheduledUpdate(port, mode, atMs);
  const updatedLocalMinute = local.minuteOfDay - Math.round((atMs - updatedAtMs) / MINUTE_MS);
  if (updatedLocalMinute < firstUpdateMinute(port, mode, local)) return { kind: 'update-pending' };
  return cbpUpdate(port, slot, updatedAtMs);
}

// ---------------------------------------------------------------------------------------------
// What the CBSA feed prints for a flow

/** A CBSA cell: a wait, `Not Applicable`, `Closed` or `--`. */
export type CbsaValue =
  | { kind: 'delay'; minutes: number }
  | { kind: 'not-applicable' }
  | { kind: 'closed' }
  | { kind: 'not-reported' };

/** A CBSA row's time and its Canada-bound flows. */
export interface CbsaRowView {
  updatedAtMs: number;
  commercial: CbsaValue;
  passenger: CbsaValue;
}

function cbsaValue(port: Port, mode: Mode, updatedAtMs: number): CbsaValue {
  if (!laneExists(port, 'into-canada', mode, 'standard')) return { kind: 'not-applicable' };
  const local = localClock(updatedAtMs, port.timeZone);
  const hours = parseHours(port.hours);
  if (hours !== null && (local.minuteOfDay < hours.openMinute || local.minuteOfDay >= hours.closeMinute)) {
    return { kind: 'closed' };
  }
  // Smaller offices close their commercial operations overnight.
  if (mode === 'commercial' && portSize(port) < 0.3 && local.hour < 6) return { kind: 'closed' };
  const roll = unitHash('cbsa', port.id, mode, Math.floor(updatedAtMs / HOUR_MS));
  if (roll < 0.015) return { kind: 'not-reported' };
  if (roll < 0.03) return { kind: 'closed' };
  const slot: LaneSlot = { direction: 'into-canada', mode, lane: 'standard' };
  return { kind: 'delay', minutes: delayAt(port, slot, updatedAtMs, local) };
}

/** What CBSA's CSV prints for an office at `atMs`: the row refreshes hourly at its own minute. */
export function cbsaRowView(port: Port, atMs: number): CbsaRowView {
  const updatedAtMs = lastCbsaUpdate(port, atMs);
  return {
    updatedAtMs,
    commercial: cbsaValue(port, 'commercial', updatedAtMs),
    passenger: cbsaValue(port, 'passenger', updatedAtMs),
  };
}

// ---------------------------------------------------------------------------------------------
// The simulated truth, in the service's vocabulary

/** The state of one lane at an instant, as the service should report it after parsing the feeds. */
export interface SimulatedLane {
  status: LaneStatus;
  /** Minutes, when the feed gives a number. */
  delayMinutes: number | null;
  /** CBP only, when the feed gives it. */
  lanesOpen: number | null;
  /** CBP's `maximum_lanes` of the mode (null for `N/A` and for CBSA). */
  maxLanes: number | null;
  /** The reading's own time (CBP `update_time`, CBSA `Last updated`), or null when it has none. */
  updatedAtMs: number | null;
}

const NOT_APPLICABLE: SimulatedLane = {
  status: 'not-applicable',
  delayMinutes: null,
  lanesOpen: null,
  maxLanes: null,
  updatedAtMs: null,
};

/**
 * The "true" state of a lane at `atMs`: what a correct parser reads from the simulator's documents
 * for that instant. A lane the port does not have is `not-applicable`; every lane of a closed port
 * is `port-closed` (the closed port overrides its stale readings, feeds.md quirk 9).
 */
export function simulatedLane(
  port: Port,
  direction: Direction,
  mode: Mode,
  lane: Lane,
  atMs: number,
): SimulatedLane {
  if (!port.directions.includes(direction)) return NOT_APPLICABLE;
  if (direction === 'into-canada') {
    if (lane !== 'standard' || mode === 'pedestrian') return NOT_APPLICABLE;
    const row = cbsaRowView(port, atMs);
    const value = mode === 'commercial' ? row.commercial : row.passenger;
    const status: LaneStatus =
      value.kind === 'delay'
        ? 'open'
        : value.kind === 'closed'
          ? 'lanes-closed'
          : value.kind === 'not-reported'
            ? 'not-reported'
            : 'not-applicable';
    return {
      status,
      delayMinutes: value.kind === 'delay' ? value.minutes : null,
      lanesOpen: null,
      maxLanes: null,
      updatedAtMs: row.updatedAtMs,
    };
  }
  if (!cbpSlots(port).some((slot) => slot.mode === mode && slot.lane === lane)) return NOT_APPLICABLE;
  const maxLanes = maxLanesOf(port, mode);
  const empty = { delayMinutes: null, lanesOpen: null, maxLanes, updatedAtMs: null };
  if (portStatusAt(port, atMs) === 'closed') return { status: 'port-closed', ...empty };
  const view = cbpLaneView(port, mode, lane, atMs);
  switch (view.kind) {
    case 'reading':
      return {
        status: 'open',
        delayMinutes: view.delayMinutes,
        lanesOpen: view.lanesOpen,
        maxLanes,
        updatedAtMs: view.updatedAtMs,
      };
    case 'lanes-closed':
      return { status: 'lanes-closed', ...empty };
    case 'update-pending':
      return { status: 'update-pending', ...empty };
    case 'not-applicable':
      return { status: 'not-applicable', ...empty };
  }
}

// ---------------------------------------------------------------------------------------------
// Zones as the feeds print them

interface ZoneFamily {
  /** `E`, `C`, `M`, `P`, `A`. */
  letter: string;
  daylight: boolean;
}

const STANDARD_LETTER: Readonly<Record<number, string>> = {
  [-240]: 'A',
  [-300]: 'E',
  [-360]: 'C',
  [-420]: 'M',
  [-480]: 'P',
};

function offsetMinutes(atMs: number, timeZone: string): number {
  const t = utcToZoned(atMs, timeZone);
  const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  return Math.round((asUtc - Math.floor(atMs / 1000) * 1000) / MINUTE_MS);
}

const standardOffsets = new Map<string, number>();

function zoneFamily(timeZone: string, atMs: number): ZoneFamily {
  const year = new Date(atMs).getUTCFullYear();
  const key = `${timeZone}|${year}`;
  let standard = standardOffsets.get(key);
  if (standard === undefined) {
    standard = Math.min(
      offsetMinutes(Date.UTC(year, 0, 1), timeZone),
      offsetMinutes(Date.UTC(year, 6, 1), timeZone),
    );
    standardOffsets.set(key, standard);
  }
  return { letter: STANDARD_LETTER[standard] ?? 'E', daylight: offsetMinutes(atMs, timeZone) > standard };
}

/**
 * The zone abbreviation CBP prints in a port's `update_time` at `atMs` (`EDT`, `CST` ...): summer-
 * or winter-correct, except Arizona (`PST` all year at Douglas and Naco, `MST` elsewhere).
 */
export function cbpZoneLabel(port: Port, atMs: number): string {
  if (port.timeZone === 'America/Phoenix') return printsPacific(port) ? 'PST' : 'MST';
  const family = zoneFamily(port.timeZone, atMs);
  return `${family.letter}${family.daylight ? 'D' : 'S'}T`;
}

/**
 * The zone CBP's JSON dates a port's `date`+`time` in: the port's own, except Arizona, which CBP
 * maps to "Pacific with DST" (Douglas, Naco) or "Mountain with DST" (the others), feeds.md 2.2.
 */
export function cbpJsonTimeZone(port: Port): string {
  if (port.timeZone !== 'America/Phoenix') return port.timeZone;
  return printsPacific(port) ? 'America/Los_Angeles' : 'America/Denver';
}

/** The zone of a CBSA office's clock: the Canadian side's (Atlantic in New Brunswick). */
export function cbsaTimeZone(port: Port): string {
  if (port.twinRegion === 'NB') return 'America/Moncton';
  if (port.twinRegion === 'SK') return 'America/Regina';
  return port.timeZone;
}

const FRENCH_LETTER: Readonly<Record<string, string>> = { A: 'A', E: 'E', C: 'C', M: 'R', P: 'P' };

/**
 * The abbreviation of CBSA's `Last updated`: `ADT`, `EST` ... in English, `HAA`, `HNE` ... in
 * French (A = avancée/daylight, N = normale/standard; Mountain is `R`, Rocheuses). Saskatchewan
 * (North Portal) has no DST and prints `CST` all year.
 */
export function cbsaZoneLabel(port: Port, atMs: number, language: 'en' | 'fr'): string {
  const family = zoneFamily(cbsaTimeZone(port), atMs);
  if (language === 'en') return `${family.letter}${family.daylight ? 'D' : 'S'}T`;
  return `H${family.daylight ? 'A' : 'N'}${FRENCH_LETTER[family.letter] ?? 'E'}`;
}

// ---------------------------------------------------------------------------------------------
// Notices

const NOTICES: Readonly<Record<'mx' | 'ca', readonly string[]>> = {
  mx: [
    'A Ready Lane is available from 2-6pm Monday through Thursday. ',
    'Ready Lane is open from 6AM - 10PM seven days a week.  Go to www.GetYouHome.gov for more information.',
    'File FinCEN105 - Currency and Monetary Instrument Report (CMIR) online at https://fincen105.cbp.dhs.gov/ Provide confirmation number to CBP Officer upon making entry or departing the U.S.',
    'Reparación del carril peatonal: use la entrada del lado oeste. Tune in to AM 1610 for border crossing information.',
  ],
  ca: [
    'Be prepared for construction that may cause some delays in the southbound lanes; lanes 3 & 4 closed until further notice.',
    'File FinCEN105 - Currency and Monetary Instrument Report (CMIR) online at https://fincen105.cbp.dhs.gov/ Provide confirmation number to CBP Officer upon making entry or departing the U.S.',
    'Travaux sur le pont : prévoir des délais. Construction on the bridge deck, expect delays.',
  ],
};

/**
 * A port's `construction_notice`: text at a few ports (some with Latin-1 accents), an empty element
 * at some, none (absent) at the rest.
 */
export function constructionNotice(port: Port): string | null | undefined {
  const roll = unitHash('notice', port.id);
  const notices = NOTICES[port.border];
  if (roll < 0.2) return notices[Math.floor(unitHash('notice-text', port.id) * notices.length)] ?? null;
  if (roll < 0.3) return null;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Reference observations

/** An observation as an ingest stores it: a reading with its own time. */
export interface SimulatedObservation
  extends Pick<
    Reading,
    'portId' | 'direction' | 'mode' | 'lane' | 'status' | 'delayMinutes' | 'lanesOpen' | 'source'
  > {
  /** UTC ISO 8601 without milliseconds, as the parsers write it. */
  observedAt: string;
}

function observationOf(port: Port, slot: LaneSlot, state: SimulatedLane): SimulatedObservation | null {
  if (state.updatedAtMs === null) return null;
  return {
    portId: port.id,
    direction: slot.direction,
    mode: slot.mode,
    lane: slot.lane,
    status: state.status,
    delayMinutes: state.delayMinutes,
    lanesOpen: state.lanesOpen,
    observedAt: toIsoSeconds(state.updatedAtMs),
    source: slot.direction === 'into-us' ? 'cbp' : 'cbsa',
  };
}

function observationKey(observation: SimulatedObservation): string {
  return `${observation.portId}|${observation.direction}|${observation.mode}|${observation.lane}|${observation.observedAt}`;
}

function sortObservations(list: SimulatedObservation[]): SimulatedObservation[] {
  return list.sort((a, b) => (a.observedAt < b.observedAt ? -1 : a.observedAt > b.observedAt ? 1 : 0));
}

/**
 * What an ingest fetching the documents at each of `instants` stores for a port: every distinct
 * (lane, observedAt) among the readings that carry their own time (CBP lanes with a wait; every
 * CBSA flow of a row). Computed from the model alone, independent of the parsers.
 */
export function observationsSeen(port: Port, instants: Iterable<number>): SimulatedObservation[] {
  const seen = new Map<string, SimulatedObservation>();
  const slots = laneSlots(port);
  for (const atMs of instants) {
    for (const slot of slots) {
      const observation = observationOf(
        port,
        slot,
        simulatedLane(port, slot.direction, slot.mode, slot.lane, atMs),
      );
      if (observation) seen.set(observationKey(observation), observation);
    }
  }
  return sortObservations([...seen.values()]);
}

/** Options of {@link expectedObservations}. */
export interface ExpectedObservationsOptions {
  /** Only this direction (default both). */
  direction?: Direction;
}

/**
 * Every observation a port publishes with its own time in `[fromMs, toMs]`: what an ingest that
 * polls often enough over that window stores. A poll at minutes 4, 9, 14 ... of every hour sees
 * them all (an automated port's last reading before local midnight shows only until
 * `Update Pending` replaces it at midnight). The ingest may also keep, from its first poll, readings
 * published just before `fromMs`; {@link observationsSeen} gives the exact set for given polls.
 */
export function expectedObservations(
  port: Port,
  fromMs: number,
  toMs: number,
  options: ExpectedObservationsOptions = {},
): SimulatedObservation[] {
  const found: SimulatedObservation[] = [];
  const slots = laneSlots(port).filter(
    (slot) => options.direction === undefined || slot.direction === options.direction,
  );
  const first = Math.ceil(fromMs / MINUTE_MS) * MINUTE_MS;
  for (const slot of slots) {
    // Updates happen on whole minutes: on the hour (manual), every 5 minutes (automated), or at
    // the CBSA row's minute. Probe each candidate minute of the schedule; keep the ones that are
    // an update in fact (a lane can be pending, closed or not applicable at that time).
    const step =
      slot.direction === 'into-canada' ? HOUR_MS : isAutomated(port, slot.mode) ? FIVE_MINUTES_MS : HOUR_MS;
    const scheduleOf = (atMs: number): number =>
      slot.direction === 'into-canada'
        ? lastCbsaUpdate(port, atMs)
        : lastScheduledUpdate(port, slot.mode, atMs);
    let candidate = scheduleOf(first);
    if (candidate < first) candidate += step;
    for (; candidate <= toMs; candidate += step) {
      const state = simulatedLane(port, slot.direction, slot.mode, slot.lane, candidate);
      if (state.updatedAtMs !== candidate) continue;
      const observation = observationOf(port, slot, state);
      if (observation) found.push(observation);
    }
  }
  return sortObservations(found);
}
