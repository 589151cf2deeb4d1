/**
 * The files `npm run import` reads, each checked whole before anything is written: a malformed file
 * is refused with one message naming its line and the fix ({@link ImportInputError}).
 *
 * `export`: the CSV that `export_observations` writes (header row, any column order, extra columns
 * ignored). `portId, direction, mode, lane, delayMinutes, observedAt` are needed; `status,
 * lanesOpen, maxLanes, source` are kept when present (else `open` or `not-reported` by whether the
 * row has a wait, and the source of the direction).
 */
import { parse } from 'csv-parse/sync';
import { getPort } from '../catalogue/catalogue.ts';
import { DIRECTIONS, LANE_STATUSES, LANES, MODES, OBSERVATION_CSV_COLUMNS, SOURCES } from '../model.ts';
import {
  CascadeGatewayFormatError,
  type CascadeGatewaySeries,
  parseCascadeGatewayCsv,
} from './cascade-gateway.ts';
import type { ImportReading } from './import.ts';

/** A file the import refuses: the message names the line (1 = the header) and the fix. */
export class ImportInputError extends Error {
  override readonly name = 'ImportInputError';
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The records of a CSV text with the line each ends on; a CSV syntax error is an ImportInputError. */
export function csvRecords(text: string): { line: number; fields: string[] }[] {
  try {
    const parsed = parse(text, { bom: true, info: true, skip_empty_lines: true }) as unknown as {
      record: string[];
      info: { lines: number };
    }[];
    return parsed.map(({ record, info }) => ({ line: info.lines, fields: record }));
  } catch (error: unknown) {
    const line = (error as { lines?: number }).lines;
    const counts = /expect (\d+), got (\d+)/.exec(error instanceof Error ? error.message : '');
    const message = counts
      ? `${counts[2]} fields where the header has ${counts[1]}`
      : error instanceof Error
        ? error.message.replace(/\s+on line \d+$/, '')
        : String(error);
    throw new ImportInputError(
      `line ${line ?? 1}: ${message}; every row needs one value (possibly empty) for each column of the header, quoted when it holds a comma or a quote`,
    );
  }
}

/** A number of minutes or lanes: null when empty, undefined when not a number >= 0. */
function optionalNumber(value: string): number | null | undefined {
  if (value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * Reads the CSV `export_observations` writes. A reading later than `notAfterMs` (the import's
 * clock) is a mistake in the file and refused.
 */
export function readExportCsv(text: string, notAfterMs: number): ImportReading[] {
  const all = csvRecords(text);
  const header = all[0];
  if (!header) {
    throw new ImportInputError(
      'line 1: the file is empty; export observations first (the export_observations tool, format csv)',
    );
  }
  const index = new Map(header.fields.map((name, i) => [name.trim(), i]));
  const required = ['portId', 'direction', 'mode', 'lane', 'delayMinutes', 'observedAt'];
  const missing = required.filter((name) => !index.has(name));
  if (missing.length > 0) {
    throw new ImportInputError(
      `line ${header.line}: the header lacks ${missing.join(', ')}; the first row must name the columns export_observations writes (${OBSERVATION_CSV_COLUMNS.join(',')})`,
    );
  }
  const readings: ImportReading[] = [];
  for (const { line, fields } of all.slice(1)) {
    const get = (name: string) => {
      const i = index.get(name);
      return i === undefined ? '' : (fields[i] ?? '').trim();
    };
    const fail = (what: string): never => {
      throw new ImportInputError(`line ${line}: ${what}`);
    };
    const oneOf = <T extends string>(name: string, allowed: readonly T[]): T => {
      const value = get(name);
      if (!(allowed as readonly string[]).includes(value)) {
        fail(`${name} "${value}" is not one of ${allowed.join(', ')}; fix the value or drop the row`);
      }
      return value as T;
    };
    const portId = get('portId');
    if (!getPort(portId)) {
      fail(
        `portId "${portId}" is not a catalogued port; use a port id such as 250401 (GET /api/v1/ports lists them)`,
      );
    }
    const direction = oneOf('direction', DIRECTIONS);
    const mode = oneOf('mode', MODES);
    const lane = oneOf('lane', LANES);
    const observedAt = get('observedAt');
    const atMs = Date.parse(observedAt);
    if (!ISO.test(observedAt) || Number.isNaN(atMs)) {
      fail(`observedAt "${observedAt}" is not an ISO 8601 UTC time; write it as 2026-03-08T14:05:00Z`);
    }
    if (atMs > notAfterMs) {
      fail(`observedAt "${observedAt}" is in the future; fix the time (UTC, ending in Z) or drop the row`);
    }
    const delayMinutes = optionalNumber(get('delayMinutes'));
    if (delayMinutes === undefined) {
      fail(
        `delayMinutes "${get('delayMinutes')}" is not a number of minutes >= 0; leave it empty when the lane gave none`,
      );
    }
    const count = (name: string): number | null => {
      const value = optionalNumber(get(name));
      if (value === undefined)
        fail(`${name} "${get(name)}" is not a number >= 0; leave it empty when unknown`);
      return value ?? null;
    };
    const wait = delayMinutes ?? null;
    readings.push({
      portId,
      direction,
      mode,
      lane,
      status:
        get('status') === '' ? (wait === null ? 'not-reported' : 'open') : oneOf('status', LANE_STATUSES),
      delayMinutes: wait,
      lanesOpen: count('lanesOpen'),
      maxLanes: count('maxLanes'),
      observedAt: new Date(atMs).toISOString(),
      source: get('source') === '' ? (direction === 'into-us' ? 'cbp' : 'cbsa') : oneOf('source', SOURCES),
    });
  }
  return readings;
}

/** The lane a Cascade Gateway file measures (the file names it only in words). */
export interface CascadeLane {
  portId: string;
  direction: ImportReading['direction'];
  mode: ImportReading['mode'];
  lane: ImportReading['lane'];
}

/**
 * Reads the Cascade Gateway Border Data Warehouse's hourly CSV through the warehouse reader
 * (cascade-gateway.ts), in the port's own zone. Each row is the average of the hour that starts at
 * its wall-clock time, so its reading is placed at that start: it lands in the hour it covers, as
 * the file's own grid says. Rows without a value (missing measurements, the hour the spring clock
 * skips) are counted as skipped, never read as 0.
 */
export function readCascadeGatewayCsv(
  text: string,
  lane: CascadeLane,
): { readings: ImportReading[]; skipped: number } {
  const port = getPort(lane.portId);
  if (!port) {
    throw new ImportInputError(
      `line 1: --port ${lane.portId} is not a catalogued port; name the CBP port the file measures (Peace Arch is 300402)`,
    );
  }
  let series: CascadeGatewaySeries;
  try {
    series = parseCascadeGatewayCsv(text, port.timeZone);
  } catch (error: unknown) {
    if (error instanceof CascadeGatewayFormatError) throw new ImportInputError(error.message);
    throw error;
  }
  return {
    readings: series.readings.map((r) => ({
      portId: port.id,
      direction: lane.direction,
      mode: lane.mode,
      lane: lane.lane,
      status: 'open',
      delayMinutes: r.delayMinutes,
      lanesOpen: null,
      maxLanes: null,
      observedAt: new Date(r.startMs).toISOString(),
      source: lane.direction === 'into-us' ? 'cbp' : 'cbsa',
    })),
    skipped: series.skipped.length,
  };
}
