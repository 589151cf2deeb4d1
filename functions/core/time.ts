/**
 * Wall-clock time in a named zone to UTC, and the zone abbreviations the feeds print.
 * Pure: uses only `Intl` (the IANA database shipped with Node).
 */

/** A wall-clock time, month 1-12. */
export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

/**
 * Fixed UTC offsets (minutes) of the abbreviations the feeds print, English and French
 * (CBSA `bwt-fra.csv`: HA* = heure avancée, daylight; HN* = heure normale, standard).
 */
export const ZONE_ABBREVIATION_OFFSETS: Readonly<Record<string, number>> = {
  NDT: -150,
  NST: -210,
  ADT: -180,
  AST: -240,
  EDT: -240,
  EST: -300,
  CDT: -300,
  CST: -360,
  MDT: -360,
  MST: -420,
  PDT: -420,
  PST: -480,
  HAT: -150,
  HNT: -210,
  HAA: -180,
  HNA: -240,
  HAE: -240,
  HNE: -300,
  HAC: -300,
  HNC: -360,
  HAR: -360,
  HNR: -420,
  HAP: -420,
  HNP: -480,
};

/** A representative IANA zone per abbreviation family, for ports missing from the catalogue. */
export const ZONE_FOR_ABBREVIATION: Readonly<Record<string, string>> = {
  E: 'America/New_York',
  C: 'America/Chicago',
  M: 'America/Denver',
  P: 'America/Los_Angeles',
  A: 'America/Halifax',
  N: 'America/St_Johns',
};

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * The offset (ms) of each zone in force at each UTC minute asked about. Zones change offset on a
 * whole UTC minute (every change since 1970: 2 am local, or 00:01 in Newfoundland until 2011), so
 * one reading of the zone's calendar per minute gives every instant in it. A map per zone, emptied
 * past 50,000 minutes (about a month of them), keeps a long-running process small.
 */
const offsets = new Map<string, Map<number, number>>();

function offsetMsAt(epochMs: number, timeZone: string): number {
  const minute = Math.floor(epochMs / 60_000);
  let byMinute = offsets.get(timeZone);
  if (!byMinute) {
    byMinute = new Map();
    offsets.set(timeZone, byMinute);
  }
  let offset = byMinute.get(minute);
  if (offset === undefined) {
    const start = minute * 60_000;
    const parts: Record<string, number> = {};
    for (const part of formatterFor(timeZone).formatToParts(new Date(start))) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    const wall = new Date(0);
    wall.setUTCFullYear(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1);
    wall.setUTCHours(parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, 0);
    offset = wall.getTime() - start;
    if (byMinute.size >= 50_000) byMinute.clear();
    byMinute.set(minute, offset);
  }
  return offset;
}

/** The wall-clock time in `timeZone` at the instant `epochMs`. */
export function utcToZoned(epochMs: number, timeZone: string): Required<LocalDateTime> {
  const wall = new Date(epochMs + offsetMsAt(epochMs, timeZone));
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
  };
}

/**
 * The time zone as people write it in a language (`Pacific Time`, `hora del Pacífico`), never
 * its IANA id (the name of the zone's winter and summer time alike).
 */
export function zoneName(timeZone: string, locale = 'en'): string {
  const part = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'longGeneric' })
    .formatToParts(new Date(Date.UTC(2026, 0, 15)))
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? timeZone;
}

/** UTC offset (minutes) of `timeZone` at the instant `epochMs`. */
export function offsetMinutesAt(epochMs: number, timeZone: string): number {
  const local = utcToZoned(epochMs, timeZone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return Math.round((asUtc - Math.floor(epochMs / 1000) * 1000) / 60_000);
}

/**
 * Every instant (epoch ms, ascending) at which the wall clock in `timeZone` reads `local`: one,
 * two in the autumn overlap (1:30 EDT, then 1:30 EST), none in the spring gap.
 */
export function wallTimeInstants(local: LocalDateTime, timeZone: string): number[] {
  const naive = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second ?? 0);
  // A wall time maps to at most two instants, one per offset in force around it; zones change
  // offset at most once within a day on either side.
  const before = offsetMinutesAt(naive - 86_400_000, timeZone);
  const after = offsetMinutesAt(naive + 86_400_000, timeZone);
  const instants = [...new Set([before, after])]
    .map((offset) => naive - offset * 60_000)
    .filter((instant) => {
      const back = utcToZoned(instant, timeZone);
      return back.day === local.day && back.hour === local.hour && back.minute === local.minute;
    });
  return instants.sort((a, b) => a - b);
}

/**
 * The instant (epoch ms) at which the wall clock in `timeZone` reads `local`.
 * In the autumn overlap the earlier instant wins; a time skipped in spring moves forward by the gap.
 */
export function zonedToUtc(local: LocalDateTime, timeZone: string): number {
  const instants = wallTimeInstants(local, timeZone);
  if (instants[0] !== undefined) return instants[0];
  // Skipped in spring: read with the offset before the change, which lands after the gap.
  const naive = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second ?? 0);
  return naive - offsetMinutesAt(naive - 86_400_000, timeZone) * 60_000;
}

/**
 * Like {@link zonedToUtc}, but in the autumn overlap the latest instant not after `notAfterMs`:
 * a clock time printed without a zone label (CBP's header) at 1:30 am, read at 1:40 EST, is 1:30 EST.
 */
export function zonedToUtcNotAfter(local: LocalDateTime, timeZone: string, notAfterMs: number): number {
  const fitting = wallTimeInstants(local, timeZone).filter((instant) => instant <= notAfterMs);
  return fitting.at(-1) ?? zonedToUtc(local, timeZone);
}

/** The wall clock at a fixed offset (minutes east of UTC) to epoch ms. */
export function fixedOffsetToUtc(local: LocalDateTime, offsetMinutes: number): number {
  return (
    Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second ?? 0) -
    offsetMinutes * 60_000
  );
}

/** ISO 8601 UTC without milliseconds: `2022-10-18T01:00:00Z`. */
export function toIsoSeconds(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19)}Z`;
}

/** The calendar date one day before `local` (same clock fields). */
export function previousDay(local: LocalDateTime): LocalDateTime {
  const d = new Date(Date.UTC(local.year, local.month - 1, local.day - 1));
  return { ...local, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}
