/**
 * The Cascade Gateway Border Data Warehouse's CSV export (Whatcom Council of Governments): hourly
 * average delays of one series (one crossing, direction and lane group), read into readings with
 * their UTC instants. Pure; the backtest (`--format cascade-gateway`) and the history import read
 * the format through this one reader.
 *
 * The format, with its real quirks (`shared/data/real/README.md`):
 * - header `Group Starts,Avg - Delay (<series name>)`, then one row per hour:
 *   `YYYY-MM-DD HH:MM:SS` (the start of the hour the average covers, port-local wall clock) and the
 *   average in minutes;
 * - every date has 24 rows on a wall-clock grid: on the spring-forward day the row of the skipped
 *   hour names a time that never existed (its value is empty), and on the fall-back day the
 *   repeated hour appears once, so it is ambiguous (read as the first of the two, the daylight one,
 *   and flagged);
 * - an empty value is a missing measurement: no reading, never 0 and never a closed lane;
 * - the value is an average over the hour, first known when the hour ends: a reading's `atMs` is
 *   the end of its hour, as a feed would have published it.
 */
import { parse } from 'csv-parse/sync';
import { DomainError } from '../errors.ts';
import { wallTimeInstants } from '../time.ts';

/** A malformed row or header of a warehouse CSV, with the 1-based line it is on (1 = the header). */
export class CascadeGatewayFormatError extends DomainError {
  override readonly name = 'CascadeGatewayFormatError';
  readonly line: number;
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}

/** One hour's average of the series. */
export interface CascadeGatewayReading {
  /** The line of the row in the file (1 = the header). */
  line: number;
  /** The row's own wall-clock time, as written (`YYYY-MM-DD HH:MM:SS`, the start of the hour). */
  localTime: string;
  /** The instant the hour starts (epoch ms, UTC). */
  startMs: number;
  /** The instant the hour ends, when its average is first known (epoch ms, UTC): the reading's time. */
  atMs: number;
  /** The hour's average delay, minutes (0.1). */
  delayMinutes: number;
  /** The row's wall time occurs twice that night (fall-back): read as the first (daylight) one. */
  ambiguous: boolean;
}

/** A row that gives no reading, and why. */
export interface CascadeGatewaySkip {
  line: number;
  localTime: string;
  reason: 'no-value' | 'nonexistent-time';
}

export interface CascadeGatewaySeries {
  /** The series name from the header (`Peace Arch South Cars`). */
  series: string;
  /** Readings in file order (ascending time on a well-formed export). */
  readings: CascadeGatewayReading[];
  /** Rows without a reading: empty values (missing measurements) and times the clock skipped. */
  skipped: CascadeGatewaySkip[];
}

const HEADER_TIME = 'Group Starts';
const HEADER_VALUE = /^Avg - Delay \((.*)\)$/;
const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * Reads a warehouse CSV export whose wall-clock times are in `timeZone` (IANA, e.g.
 * `America/Los_Angeles` for the Whatcom County crossings). Throws a
 * {@link CascadeGatewayFormatError} naming the line and the fix on a malformed header or row.
 */
export function parseCascadeGatewayCsv(text: string, timeZone: string): CascadeGatewaySeries {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error: unknown) {
    const line = (error as { lines?: number }).lines ?? 1;
    const reason = error instanceof Error ? error.message : String(error);
    throw new CascadeGatewayFormatError(line, `not readable as CSV (${reason}); export the series again`);
  }
  const [head, ...rows] = records;
  if (!head) {
    throw new CascadeGatewayFormatError(
      1,
      `the file is empty; export a series from the warehouse's query page (header "${HEADER_TIME},Avg - Delay (...)")`,
    );
  }
  const series = HEADER_VALUE.exec(head.record[1] ?? '')?.[1];
  if (head.record[0] !== HEADER_TIME || series === undefined) {
    throw new CascadeGatewayFormatError(
      head.info.lines,
      `the header is "${head.record.join(',')}"; a warehouse export starts with "${HEADER_TIME},Avg - Delay (<series name>)"`,
    );
  }
  const readings: CascadeGatewayReading[] = [];
  const skipped: CascadeGatewaySkip[] = [];
  for (const { record, info } of rows) {
    const line = info.lines;
    if (record.length !== 2) {
      throw new CascadeGatewayFormatError(
        line,
        `${record.length} fields where the format has 2 (time, average); fix or drop the row`,
      );
    }
    const [localTime = '', value = ''] = record;
    const m = LOCAL_TIME.exec(localTime);
    if (!m) {
      throw new CascadeGatewayFormatError(
        line,
        `time "${localTime}" is not a warehouse time; write it as 2013-03-10 02:00:00 (port-local wall clock)`,
      );
    }
    const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
    if (
      probe.getUTCMonth() !== month - 1 ||
      probe.getUTCDate() !== day ||
      hour > 23 ||
      minute > 59 ||
      second > 59
    ) {
      throw new CascadeGatewayFormatError(line, `time "${localTime}" is not a calendar time; fix the date`);
    }
    const instants = wallTimeInstants({ year, month, day, hour, minute, second }, timeZone);
    const startMs = instants[0];
    if (startMs === undefined) {
      // The spring-forward hour: the grid names it, the clock never showed it.
      skipped.push({ line, localTime, reason: 'nonexistent-time' });
      continue;
    }
    if (value === '') {
      skipped.push({ line, localTime, reason: 'no-value' });
      continue;
    }
    const delayMinutes = Number(value);
    if (!Number.isFinite(delayMinutes) || delayMinutes < 0) {
      throw new CascadeGatewayFormatError(
        line,
        `average "${value}" is not a number of minutes >= 0; leave it empty when nothing was measured`,
      );
    }
    readings.push({
      line,
      localTime,
      startMs,
      atMs: startMs + 3_600_000,
      delayMinutes,
      ambiguous: instants.length > 1,
    });
  }
  return { series, readings, skipped };
}
