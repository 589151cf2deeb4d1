/**
 * Lane normalisation shared by the CBP parsers (XML `bwt.xml`, the JSON APIs and the PHP
 * conversion of the XML). The format parsers only find the port objects; everything that turns
 * CBP's strings into readings lives here: the status vocabulary (English and Spanish), delay text,
 * `update_time` and the reading's own time, the closed-port override, and the lane accounting
 * (each of the 7 lanes of every port becomes exactly one reading or one reject).
 *
 * "Quirk n" refers to the checklist in `shared/reference/feeds.md` section 6.
 */
import { getPort } from '../catalogue/catalogue.ts';
import { FeedFormatError } from '../errors.ts';
import type {
  Border,
  FeedFormat,
  Lane,
  LaneStatus,
  Mode,
  ParsedFeed,
  PortSnapshot,
  Reading,
  Reject,
} from '../model.ts';
import {
  type LocalDateTime,
  offsetMinutesAt,
  previousDay,
  toIsoSeconds,
  utcToZoned,
  wallTimeInstants,
  ZONE_ABBREVIATION_OFFSETS,
  ZONE_FOR_ABBREVIATION,
  zonedToUtc,
  zonedToUtcNotAfter,
} from '../time.ts';

/** Options every CBP parser takes. */
export interface CbpParseOptions {
  /** When the document was fetched (epoch ms); default `Date.now()`. */
  fetchedAt?: number;
}

/**
 * Skew allowed between a lane's time and the document's: automated (Bluetooth) sites print times
 * a few minutes ahead of the header (Peace Bridge `At 9:18 pm EDT` under `21:14:36`, feeds.md 1.4).
 */
export const CLOCK_TOLERANCE_MS = 10 * 60_000;

/** The zone CBP's XML header (`last_updated_date`/`last_updated_time`) is written in. */
export const CBP_HEADER_TIME_ZONE = 'America/New_York';

/** A delay longer than a day is a corrupt value, not a wait. */
const MAX_DELAY_MINUTES = 24 * 60;
/** More lanes than any port of entry has (San Ysidro has 34 at most). */
const MAX_LANES = 99;
/** How much of an offending value a reject reason quotes. */
const QUOTE_LIMIT = 60;

/** Lower case, accents removed, runs of white space collapsed: for comparing CBP's words (quirk 5). */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Trimmed, runs of white space collapsed to one space (`International Bridge   SSM`); null when empty. */
export function collapseSpaces(text: string | null): string | null {
  if (text === null) return null;
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed === '' ? null : collapsed;
}

/** The lane statuses a CBP lane can carry itself (`port-closed` comes from the port, quirk 9). */
export type CbpLaneStatus = Exclude<LaneStatus, 'not-reported' | 'port-closed'>;

const LANE_STATUS_WORDS: Readonly<Record<string, CbpLaneStatus>> = {
  'no delay': 'open',
  delay: 'open',
  'lanes closed': 'lanes-closed',
  // Only checked defensively by a 2015 consumer; never seen in a capture.
  'lane closed': 'lanes-closed',
  'update pending': 'update-pending',
  'n/a': 'not-applicable',
  // Spanish values, served by `bwtpublicmod` depending on the server's locale (feeds.md 2.4).
  'sin demora': 'open',
  demora: 'open',
  'carriles cerrados': 'lanes-closed',
  'actualizacion pendiente': 'update-pending',
  'no aplica': 'not-applicable',
};

/** `operational_status` in English or Spanish, case- and accent-insensitive; null when unknown. */
export function classifyCbpLaneStatus(text: string): CbpLaneStatus | null {
  return LANE_STATUS_WORDS[foldText(text)] ?? null;
}

const PORT_STATUS_WORDS: Readonly<Record<string, 'open' | 'closed'>> = {
  open: 'open',
  closed: 'closed',
  abierto: 'open',
  cerrado: 'closed',
};

/** `port_status`: `Open`/`Closed` or `Abierto`/`Cerrado`; null when unknown. */
export function classifyCbpPortStatus(text: string | null): 'open' | 'closed' | null {
  return text === null ? null : (PORT_STATUS_WORDS[foldText(text)] ?? null);
}

const BORDER_WORDS: Readonly<Record<string, Border>> = {
  'mexican border': 'mx',
  'canadian border': 'ca',
  'frontera mexicana': 'mx',
  'frontera canadiense': 'ca',
};

/** `border`: `Mexican Border`/`Canadian Border` or `Frontera mexicana`/`Frontera canadiense`. */
export function classifyCbpBorder(text: string | null): Border | null {
  return text === null ? null : (BORDER_WORDS[foldText(text)] ?? null);
}

/**
 * `delay_minutes` in minutes (quirk 4): an integer string (2017 onward), or the 2014 text forms
 * `10 min`, `1 hr`, `1 hrs 10 min` (CBP's grammar). Null when it is none of these.
 */
export function parseCbpDelay(text: string | null): number | null {
  if (text === null) return null;
  const folded = foldText(text);
  let minutes: number;
  if (/^\d{1,4}$/.test(folded)) {
    minutes = Number(folded);
  } else {
    const match = /^(?:(\d{1,2}) ?hrs?)? ?(?:(\d{1,4}) ?min)?$/.exec(folded);
    if (!match || (match[1] === undefined && match[2] === undefined)) return null;
    minutes = Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
  }
  return minutes <= MAX_DELAY_MINUTES ? minutes : null;
}

/** A lane count (`lanes_open`, `maximum_lanes`); null for `N/A`, empty or anything not a count. */
export function parseLaneCount(text: string | null): number | null {
  if (text === null || !/^\d{1,3}$/.test(text)) return null;
  const count = Number(text);
  return count <= MAX_LANES ? count : null;
}

/** A parsed `update_time`: a wall-clock time and the zone abbreviation CBP printed. */
export interface CbpUpdateTime {
  hour: number;
  minute: number;
  /** `EDT`, `PST` ...: a consistency check only; the zone comes from the catalogue. */
  abbreviation: string;
}

const UPDATE_TIME =
  /^(?:at|en) (?:(\d{1,2}):(\d{2}) ([ap])m|(noon|midnight|mediodia|medianoche)) ([ecmp][ds]t)$/;

/**
 * `update_time` (quirk 6): `At 6:00 pm EDT`, `At Noon PDT`, `At Midnight CST`, `At 0:31 am EDT`
 * (automated sites, 2017), and the Spanish
 * `En 3:00 pm CDT`, `En Mediodía CDT`, `En Medianoche CDT`. Noon is 12:00 and midnight 00:00 of
 * the port's date. Null when the text is none of these.
 */
export function parseUpdateTime(text: string | null): CbpUpdateTime | null {
  if (text === null) return null;
  const match = UPDATE_TIME.exec(foldText(text));
  if (!match) return null;
  const abbreviation = (match[5] ?? '').toUpperCase();
  const word = match[4];
  if (word !== undefined) {
    const noon = word === 'noon' || word === 'mediodia';
    return { hour: noon ? 12 : 0, minute: 0, abbreviation };
  }
  const hour12 = Number(match[1]);
  const minute = Number(match[2]);
  const pm = match[3] === 'p';
  // Automated sites print the first hour after midnight as `At 0:31 am EDT` (2017 capture).
  if (hour12 > 12 || (hour12 === 0 && pm) || minute > 59) return null;
  const hour = (hour12 % 12) + (pm ? 12 : 0);
  return { hour, minute, abbreviation };
}

/** A calendar date, month 1-12. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

function calendarDate(year: number, month: number, day: number): CalendarDate | null {
  if (year < 1900 || year > 2999 || month < 1 || month > 12 || day < 1) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth ? { year, month, day } : null;
}

/** The port's `date` (`M/D/YYYY`, unpadded: `3/15/2014`, `11/9/2023`); null when it is not one. */
export function parsePortDate(text: string | null): CalendarDate | null {
  const match = text === null ? null : /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (!match) return null;
  return calendarDate(Number(match[3]), Number(match[1]), Number(match[2]));
}

/** `H:M:S`, padded or not (`0:31:39`, `1:55:5`, `13:25:16`). */
function parseClock(text: string | null): { hour: number; minute: number; second: number } | null {
  const match = text === null ? null : /^(\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(text);
  if (!match) return null;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  const second = Number(match[3]);
  return hour <= 23 && minute <= 59 && second <= 59 ? { hour, minute, second } : null;
}

/**
 * The XML header's generation time (quirk 8): `last_updated_date` `YYYY-M-D` and
 * `last_updated_time` `H:M:S`, neither padded (`2014-3-15` `0:31:39`), in US Eastern time.
 * Epoch ms, or null when either is missing or malformed. The header has no zone label, so in the
 * repeated autumn hour the latest reading not after `notAfterMs` (the fetch, plus tolerance) wins.
 */
export function parseCbpHeaderTime(
  date: string | null,
  time: string | null,
  notAfterMs = Number.POSITIVE_INFINITY,
): number | null {
  const match = date === null ? null : /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(date);
  const day = match ? calendarDate(Number(match[1]), Number(match[2]), Number(match[3])) : null;
  const clock = parseClock(time);
  if (!day || !clock) return null;
  return zonedToUtcNotAfter({ ...day, ...clock }, CBP_HEADER_TIME_ZONE, notAfterMs);
}

/** A CBP lane as the document gives it: each field's text, or null for no value. */
export interface CbpRawLane {
  updateTime: string | null;
  status: string | null;
  delay: string | null;
  lanesOpen: string | null;
}

/** A CBP port as the document gives it, format-independent. */
export interface CbpRawPort {
  portNumber: string | null;
  border: string | null;
  name: string | null;
  crossing: string | null;
  hours: string | null;
  /** Port-local date at generation, `M/D/YYYY`. */
  date: string | null;
  /** JSON APIs only: the generation time in the zone CBP maps the port to. */
  time: string | null;
  portStatus: string | null;
  notice: string | null;
  maxLanes: Readonly<Record<Mode, string | null>>;
  /** One entry per {@link CBP_LANE_SLOTS} entry; null when the lane element is missing. */
  lanes: readonly (CbpRawLane | null)[];
}

/** The group element of each mode. */
export const CBP_MODE_GROUPS: Readonly<Record<Mode, string>> = {
  commercial: 'commercial_vehicle_lanes',
  passenger: 'passenger_vehicle_lanes',
  pedestrian: 'pedestrian_lanes',
};

/** `trusted` is `NEXUS_SENTRI_lanes`: `sentri` on the Mexican border, `nexus` on the Canadian. */
export type CbpLaneKind = Exclude<Lane, 'sentri' | 'nexus'> | 'trusted';

/** The 7 lanes every CBP port carries, always present in full even when not applicable. */
export const CBP_LANE_SLOTS: readonly { mode: Mode; element: string; lane: CbpLaneKind }[] = [
  { mode: 'commercial', element: 'standard_lanes', lane: 'standard' },
  { mode: 'commercial', element: 'FAST_lanes', lane: 'fast' },
  { mode: 'passenger', element: 'standard_lanes', lane: 'standard' },
  { mode: 'passenger', element: 'NEXUS_SENTRI_lanes', lane: 'trusted' },
  { mode: 'passenger', element: 'ready_lanes', lane: 'ready' },
  { mode: 'pedestrian', element: 'standard_lanes', lane: 'standard' },
  { mode: 'pedestrian', element: 'ready_lanes', lane: 'ready' },
];

/**
 * The text of one CBP field, or null when it carries no value (quirk 3): an empty XML element or
 * JSON string, PHP simplexml's `{}`, or anything that is not text. A repeated XML element (which
 * the XML parser turns into an array) counts by its first occurrence.
 */
export function cbpValue(node: unknown): string | null {
  if (typeof node === 'string') {
    const trimmed = node.trim();
    return trimmed === '' ? null : trimmed;
  }
  if (typeof node === 'number' && Number.isFinite(node)) return String(node);
  if (Array.isArray(node)) return cbpValue(node[0]);
  return null;
}

/** A named child of a parsed element or JSON object (by name, never by position: quirk 2). */
function child(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return child(node[0], key);
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
  return (node as Record<string, unknown>)[key];
}

function readLane(node: unknown): CbpRawLane | null {
  if (Array.isArray(node)) return readLane(node[0]);
  if (node === null || typeof node !== 'object') return null;
  return {
    updateTime: cbpValue(child(node, 'update_time')),
    status: cbpValue(child(node, 'operational_status')),
    delay: cbpValue(child(node, 'delay_minutes')),
    lanesOpen: cbpValue(child(node, 'lanes_open')),
  };
}

/**
 * Reads one `<port>` element (as parsed from XML) or one JSON port object into text fields.
 * Never throws: whatever is missing or malformed becomes null and is judged later.
 */
export function readCbpPort(node: unknown): CbpRawPort {
  const field = (key: string): string | null => cbpValue(child(node, key));
  const maxLanes = (mode: Mode): string | null =>
    cbpValue(child(child(node, CBP_MODE_GROUPS[mode]), 'maximum_lanes'));
  return {
    portNumber: field('port_number'),
    border: field('border'),
    name: field('port_name'),
    crossing: field('crossing_name'),
    hours: field('hours'),
    date: field('date'),
    time: field('time'),
    portStatus: field('port_status'),
    notice: field('construction_notice'),
    maxLanes: {
      commercial: maxLanes('commercial'),
      passenger: maxLanes('passenger'),
      pedestrian: maxLanes('pedestrian'),
    },
    lanes: CBP_LANE_SLOTS.map((slot) =>
      readLane(child(child(node, CBP_MODE_GROUPS[slot.mode]), slot.element)),
    ),
  };
}

/** A port number as CBP writes it (6 characters, usually digits, `l24501`), kept as text (quirk 1). */
const PORT_NUMBER = /^[A-Za-z0-9]{1,12}$/;

function quote(text: string | null): string {
  if (text === null) return 'empty';
  return JSON.stringify(text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}...` : text);
}

/** Wall clock -> epoch ms; the normaliser memoises it per document (a port's lanes share one time). */
export type ZonedResolver = (local: LocalDateTime, timeZone: string) => number;

function memoisedZonedToUtc(): ZonedResolver {
  const cache = new Map<string, number>();
  return (local, timeZone) => {
    const key = `${timeZone}|${local.year}-${local.month}-${local.day} ${local.hour}:${local.minute}`;
    let instant = cache.get(key);
    if (instant === undefined) {
      instant = zonedToUtc(local, timeZone);
      cache.set(key, instant);
    }
    return instant;
  };
}

/** The outcome of resolving a lane's own time. */
export type ObservedAtResult = { ok: true; epochMs: number } | { ok: false; code: string; reason: string };

/** What {@link resolveObservedAt} needs besides the lane's own text. */
export interface ObservedAtContext {
  /** The port's `date` (local date at generation). */
  portDate: string | null;
  /** The port's IANA zone from the catalogue; undefined for an uncatalogued port. */
  timeZone: string | undefined;
  /** The document's generation time (epoch ms), or fetchedAt when it has none. */
  referenceMs: number;
  fetchedAt: number;
  resolve?: ZonedResolver;
}

/**
 * A lane's own time (quirk 7): the port-local `date` plus `update_time`, resolved in the port's
 * IANA zone (from the catalogue: Douglas and Naco print `PST` but keep Arizona time, UTC-7 all
 * year; the printed abbreviation is only a consistency check, and names the zone family of a
 * port missing from the catalogue). `update_time` carries no date, so a result later than the
 * generation time plus {@link CLOCK_TOLERANCE_MS} belongs to the previous day. A result still more
 * than that tolerance after `fetchedAt` is refused (`future-time`).
 */
export function resolveObservedAt(updateTime: string | null, context: ObservedAtContext): ObservedAtResult {
  const time = parseUpdateTime(updateTime);
  if (!time) {
    const reason =
      updateTime === null
        ? 'an open lane has no update_time'
        : `update_time ${quote(updateTime)} is not "At h:mm am|pm ZONE"`;
    return { ok: false, code: 'bad-time', reason };
  }
  const date = parsePortDate(context.portDate);
  if (!date) {
    return { ok: false, code: 'bad-time', reason: `port date ${quote(context.portDate)} is not M/D/YYYY` };
  }
  const printedOffset = ZONE_ABBREVIATION_OFFSETS[time.abbreviation];
  const timeZone = context.timeZone ?? ZONE_FOR_ABBREVIATION[time.abbreviation.charAt(0)];
  if (timeZone === undefined || printedOffset === undefined) {
    return { ok: false, code: 'bad-time', reason: `unknown zone abbreviation ${quote(time.abbreviation)}` };
  }
  const resolve = context.resolve ?? zonedToUtc;
  const local: LocalDateTime = { ...date, hour: time.hour, minute: time.minute };
  let epochMs = resolve(local, timeZone);
  if (epochMs > context.referenceMs + CLOCK_TOLERANCE_MS) epochMs = resolve(previousDay(local), timeZone);
  // In the autumn overlap a wall time names two instants; the printed label says which one.
  epochMs = instantNamedByLabel(epochMs, timeZone, printedOffset);
  // A summer/winter label one hour off (or Arizona's PST) is CBP's habit; more than that means
  // the catalogue zone and the feed disagree about where the port is.
  const actualOffset = offsetMinutesAt(epochMs, timeZone);
  if (Math.abs(actualOffset - printedOffset) > 60) {
    return {
      ok: false,
      code: 'zone-mismatch',
      reason: `update_time ${quote(updateTime)} names ${time.abbreviation} but the port's zone ${timeZone} is UTC${actualOffset / 60}`,
    };
  }
  if (epochMs > context.fetchedAt + CLOCK_TOLERANCE_MS) {
    return {
      ok: false,
      code: 'future-time',
      reason: `update_time ${quote(updateTime)} resolves to ${toIsoSeconds(epochMs)}, after the fetch at ${toIsoSeconds(context.fetchedAt)}`,
    };
  }
  return { ok: true, epochMs };
}

/**
 * The instant with the same wall-clock time at the printed offset, when the zone really was at
 * that offset then (1:30 EST after 1:30 EDT on the first Sunday of November); else `epochMs`
 * unchanged. A label merely wrong for the season (or Arizona's PST) names no such instant.
 */
function instantNamedByLabel(epochMs: number, timeZone: string, printedOffset: number): number {
  if (offsetMinutesAt(epochMs, timeZone) === printedOffset) return epochMs;
  const local = utcToZoned(epochMs, timeZone);
  return (
    wallTimeInstants(local, timeZone).find(
      (instant) => offsetMinutesAt(instant, timeZone) === printedOffset,
    ) ?? epochMs
  );
}

/**
 * A JSON API document's generation time (quirk 8): each port's `date`+`time` is the generation
 * time on the clock CBP maps that port to, and the document's is the latest of them in UTC.
 * CBP maps the Arizona ports to "Mountain with DST" or "Pacific with DST" rather than to Arizona
 * time (feeds.md 2.2: Nogales's `time` runs an hour ahead in summer), and the zone letter of the
 * port's own `update_time` names that mapping, so a port is read in its letter's zone. Ports with
 * no `update_time` give no evidence of the mapping and count only when no port has one.
 */
export function jsonGeneratedAt(
  ports: readonly CbpRawPort[],
  notAfterMs = Number.POSITIVE_INFINITY,
): number | null {
  let withLetter: number | null = null;
  let withCatalogue: number | null = null;
  for (const port of ports) {
    const date = parsePortDate(port.date);
    const clock = parseClock(port.time);
    if (!date || !clock) continue;
    const letter = port.lanes
      .map((lane) => parseUpdateTime(lane?.updateTime ?? null))
      .find((time) => time)?.abbreviation;
    const zone = letter
      ? ZONE_FOR_ABBREVIATION[letter.charAt(0)]
      : port.portNumber
        ? getPort(port.portNumber)?.timeZone
        : undefined;
    if (zone === undefined) continue;
    const instant = zonedToUtcNotAfter({ ...date, ...clock }, zone, notAfterMs);
    if (letter) withLetter = Math.max(withLetter ?? instant, instant);
    else withCatalogue = Math.max(withCatalogue ?? instant, instant);
  }
  return withLetter ?? withCatalogue;
}

/** A CBP document reduced to its port nodes, as the format parsers hand it over. */
export interface CbpDocument {
  format: FeedFormat;
  /**
   * The header's generation time (epoch ms, null when the header is unusable), or `'ports'` when
   * the document has no header and the ports' own `date`+`time` give it (JSON APIs).
   */
  generatedAt: number | null | 'ports';
  declaredPortCount: number | null;
  /** The port elements or objects, in document order, unread. */
  ports: readonly unknown[];
}

/** Why a lane did not become a reading. */
interface Refusal {
  code: string;
  reason: string;
}

/** What a lane of a known port needs from its port and document. */
interface LaneContext {
  port: CbpRawPort;
  portId: string;
  border: Border | null;
  portStatus: 'open' | 'closed' | null;
  timeZone: string | undefined;
  referenceMs: number;
  fetchedAt: number;
  resolve: ZonedResolver;
}

function laneName(kind: CbpLaneKind, border: Border | null): Lane | null {
  if (kind !== 'trusted') return kind;
  return border === 'mx' ? 'sentri' : border === 'ca' ? 'nexus' : null;
}

/** One lane slot of one port: a reading, or the reason it is refused. */
function resolveLane(index: number, context: LaneContext): Reading | Refusal {
  const slot = CBP_LANE_SLOTS[index];
  if (!slot) return { code: 'missing-lane', reason: `no lane slot ${index}` };
  const where = `${CBP_MODE_GROUPS[slot.mode]}/${slot.element}`;
  const lane = laneName(slot.lane, context.border);
  if (lane === null) {
    return {
      code: 'unknown-border',
      reason: `border ${quote(context.port.border)} is neither Mexican nor Canadian, so ${where} cannot be named SENTRI or NEXUS`,
    };
  }
  const base = {
    portId: context.portId,
    direction: 'into-us',
    mode: slot.mode,
    lane,
    maxLanes: parseLaneCount(context.port.maxLanes[slot.mode]),
    source: 'cbp',
  } as const;
  const noNumbers = { delayMinutes: null, lanesOpen: null, observedAt: null };
  // Quirk 9: a closed port keeps its last lane readings after closing time; they are not current.
  if (context.portStatus === 'closed') return { ...base, status: 'port-closed', ...noNumbers };
  const raw = context.port.lanes[index];
  if (!raw) return { code: 'missing-lane', reason: `no ${where} element` };
  if (raw.status === null)
    return { code: 'missing-status', reason: `${where} has an empty operational_status` };
  const status = classifyCbpLaneStatus(raw.status);
  if (status === null) {
    return {
      code: 'unknown-status',
      reason: `operational_status ${quote(raw.status)} is not a CBP lane status`,
    };
  }
  // Quirk 4: N/A, Lanes Closed and Update Pending carry no numbers, and never become 0.
  if (status !== 'open') return { ...base, status, ...noNumbers };
  const delayMinutes = parseCbpDelay(raw.delay);
  if (delayMinutes === null) {
    const reason =
      raw.delay === null
        ? `${where} is "${raw.status}" but has no delay_minutes`
        : `delay_minutes ${quote(raw.delay)} of ${where} is not a delay`;
    return { code: 'bad-delay', reason };
  }
  const lanesOpen = parseLaneCount(raw.lanesOpen);
  if (raw.lanesOpen !== null && lanesOpen === null) {
    return { code: 'bad-lanes', reason: `lanes_open ${quote(raw.lanesOpen)} is not a lane count` };
  }
  const observed = resolveObservedAt(raw.updateTime, {
    portDate: context.port.date,
    timeZone: context.timeZone,
    referenceMs: context.referenceMs,
    fetchedAt: context.fetchedAt,
    resolve: context.resolve,
  });
  if (!observed.ok) return { code: observed.code, reason: observed.reason };
  return { ...base, status, delayMinutes, lanesOpen, observedAt: toIsoSeconds(observed.epochMs) };
}

/**
 * Turns the port nodes of a CBP document into port snapshots, readings and rejects: each of the
 * 7 lanes of every port element becomes exactly one reading or one reject. A port missing from
 * the catalogue is read all the same (zone from its abbreviations, `uncatalogued: true`).
 * Throws {@link FeedFormatError} only when no port carries a usable `port_number`.
 */
export function normalizeCbpDocument(document: CbpDocument, options: CbpParseOptions = {}): ParsedFeed {
  const fetchedAt = options.fetchedAt ?? Date.now();
  const rawPorts = document.ports.map(readCbpPort);
  const portIdOf = (port: CbpRawPort): string | null =>
    port.portNumber !== null && PORT_NUMBER.test(port.portNumber) ? port.portNumber : null;
  if (!rawPorts.some((port) => portIdOf(port) !== null)) {
    throw new FeedFormatError(`CBP ${document.format} document has no port with a port_number`);
  }
  const generatedAt =
    document.generatedAt === 'ports'
      ? jsonGeneratedAt(rawPorts, fetchedAt + CLOCK_TOLERANCE_MS)
      : document.generatedAt;
  const referenceMs = generatedAt ?? fetchedAt;
  const resolve = memoisedZonedToUtc();
  const ports: PortSnapshot[] = [];
  const readings: Reading[] = [];
  const rejects: Reject[] = [];
  const seen = new Set<string>();

  const refuseAll = (portId: string | null, border: Border | null, why: Refusal): void => {
    for (const slot of CBP_LANE_SLOTS) {
      rejects.push({
        portId,
        mode: slot.mode,
        lane: laneName(slot.lane, border),
        direction: 'into-us',
        ...why,
      });
    }
  };

  for (const port of rawPorts) {
    const portId = portIdOf(port);
    const catalogued = portId === null ? undefined : getPort(portId);
    const border = classifyCbpBorder(port.border) ?? catalogued?.border ?? null;
    if (portId === null) {
      const reason = `port_number ${quote(port.portNumber)} is not a CBP port number`;
      refuseAll(null, border, { code: 'bad-port-number', reason });
      continue;
    }
    if (seen.has(portId)) {
      const reason = `port ${portId} appears more than once in the document`;
      refuseAll(portId, border, { code: 'duplicate-port', reason });
      continue;
    }
    seen.add(portId);
    const portStatus = classifyCbpPortStatus(port.portStatus);
    ports.push({
      portId,
      source: 'cbp',
      name: collapseSpaces(port.name) ?? catalogued?.name ?? portId,
      crossing: collapseSpaces(port.crossing),
      border,
      portStatus,
      hours: collapseSpaces(port.hours),
      notice: port.notice,
      uncatalogued: catalogued === undefined,
    });
    const context: LaneContext = {
      port,
      portId,
      border,
      portStatus,
      timeZone: catalogued?.timeZone,
      referenceMs,
      fetchedAt,
      resolve,
    };
    for (const [index, slot] of CBP_LANE_SLOTS.entries()) {
      const outcome = resolveLane(index, context);
      if ('status' in outcome) {
        readings.push(outcome);
      } else {
        rejects.push({
          portId,
          mode: slot.mode,
          lane: laneName(slot.lane, border),
          direction: 'into-us',
          ...outcome,
        });
      }
    }
  }

  return {
    source: 'cbp',
    format: document.format,
    generatedAt: generatedAt === null ? null : toIsoSeconds(generatedAt),
    declaredPortCount: document.declaredPortCount,
    ports,
    readings,
    rejects,
  };
}

/** `number_of_ports` as a count; null when absent or not a number. */
export function parsePortCount(text: string | null): number | null {
  return text !== null && /^\d{1,4}$/.test(text) ? Number(text) : null;
}
