/**
 * Parser of CBSA's border wait times CSV (`bwt-taf/bwt-eng.csv` and `bwt-fra.csv`): the
 * Canada-bound waits (`into-canada`). Format and quirks: `shared/reference/feeds.md` sections 4
 * and 6 (items 11-12).
 */
import { findPortByCbsaOffice, slugify } from '../catalogue/catalogue.ts';
import { FeedFormatError } from '../errors.ts';
import type { Direction, LaneStatus, Mode, ParsedFeed, PortSnapshot, Reading, Reject } from '../model.ts';
import { fixedOffsetToUtc, toIsoSeconds, ZONE_ABBREVIATION_OFFSETS } from '../time.ts';

/** Options of {@link parseCbsaCsv}. */
export interface ParseCbsaCsvOptions {
  /** When the document was fetched (epoch ms); rows stamped more than 10 minutes later are refused. */
  fetchedAt?: number;
}

type Column =
  | 'office'
  | 'location'
  | 'updated'
  | 'commercialCanada'
  | 'commercialUs'
  | 'travellersCanada'
  | 'travellersUs';

/** Header names per column, English then French (feeds.md 4.2), compared by {@link textKey}. */
const HEADER_NAMES: Readonly<Record<Column, readonly string[]>> = {
  office: ['Customs Office', "Bureau de l'ASFC"],
  location: ['Location', 'Emplacement'],
  updated: ['Last updated', 'Mis à jour'],
  commercialCanada: ['Commercial Flow - Canada bound', 'Débit / Expéditions commerciales - Vers le Canada'],
  commercialUs: ['Commercial Flow - U.S. bound', 'Débit / Expéditions commerciales - Vers les États-Unis'],
  travellersCanada: ['Travellers Flow - Canada bound', 'Débit / Voyageurs - Vers le Canada'],
  travellersUs: ['Travellers Flow - U.S. bound', 'Débit / Voyageurs - Vers les États-Unis'],
};

const COLUMNS = Object.keys(HEADER_NAMES) as Column[];

/** The four flow columns: the Canada-bound ones become readings, the U.S.-bound ones rejects. */
const FLOWS: readonly { column: Column; mode: Mode; direction: Direction }[] = [
  { column: 'commercialCanada', mode: 'commercial', direction: 'into-canada' },
  { column: 'travellersCanada', mode: 'passenger', direction: 'into-canada' },
  { column: 'commercialUs', mode: 'commercial', direction: 'into-us' },
  { column: 'travellersUs', mode: 'passenger', direction: 'into-us' },
];

const CANADA_FLOWS = FLOWS.filter((flow) => flow.direction === 'into-canada');
const US_FLOWS = FLOWS.filter((flow) => flow.direction === 'into-us');

/** Rows may be stamped a little after the fetch (clock skew); beyond this they are refused. */
const FUTURE_TOLERANCE_MS = 10 * 60_000;

/** Saskatchewan keeps UTC-6 all year; CBSA labels North Portal `MDT` (2022) or `CST` (2026). */
const SASKATCHEWAN_ZONE = 'America/Regina';
const SASKATCHEWAN_OFFSET_MINUTES = -360;

/** A delay above a day is not a wait time but a typo or garbage; it is refused, not stored. */
const MAX_DELAY_MINUTES = 24 * 60;

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * Case-, accent-, apostrophe- and space-insensitive key of a cell (`Aucun Délai` -> `aucun delai`).
 */
function textKey(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The document as text: UTF-8 (BOM dropped), or windows-1252 when the bytes are not valid UTF-8,
 * as the French file once was (a consumer replaced U+FFFD by `é`, feeds.md 4.1).
 */
function decode(input: Uint8Array | string): string {
  if (typeof input === 'string') return input.replace(/^\uFEFF/, '');
  const bytes = UTF8_BOM.every((byte, index) => input[index] === byte) ? input.subarray(3) : input;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = new TextDecoder('windows-1252').decode(bytes);
  }
  return text.replace(/^\uFEFF/, '');
}

/**
 * Cells of a line: split on `;;` and trimmed (the real separator is `;; `). Every line ends with
 * `;;`, which yields one empty trailing field: it is dropped.
 */
function splitCells(line: string): string[] {
  const cells = line.split(';;').map((cell) => cell.trim());
  if (line.trimEnd().endsWith(';;')) cells.pop();
  return cells;
}

function headerColumns(cells: string[]): Map<Column, number> | undefined {
  const indices = new Map<Column, number>();
  const keys = cells.map(textKey);
  for (const column of COLUMNS) {
    const names = HEADER_NAMES[column].map(textKey);
    const index = keys.findIndex((key) => names.includes(key));
    if (index < 0) return undefined;
    indices.set(column, index);
  }
  return indices;
}

type ValueResult =
  | { ok: true; status: LaneStatus; delayMinutes: number | null }
  | { ok: false; code: string; reason: string };

const FIXED_VALUES: ReadonlyMap<string, { status: LaneStatus; delayMinutes: number | null }> = new Map([
  ['no delay', { status: 'open', delayMinutes: 0 }],
  ['aucun delai', { status: 'open', delayMinutes: 0 }],
  ['not applicable', { status: 'not-applicable', delayMinutes: null }],
  ["ne s'applique pas", { status: 'not-applicable', delayMinutes: null }],
  // CBSA closes a flow, not the office: the lanes of that flow are closed.
  ['closed', { status: 'lanes-closed', delayMinutes: null }],
  ['ferme', { status: 'lanes-closed', delayMinutes: null }],
  ['--', { status: 'not-reported', delayMinutes: null }],
  ['', { status: 'not-reported', delayMinutes: null }],
]);

const DURATION = /^(?:(\d{1,6}) ?(?:hours?|heures?))? ?(?:(?:and|et) )?(?:(\d{1,6}) ?(?:minutes?|mins?))?$/;

/** A flow cell: fixed phrases (English or French), `N minute(s)`, `N hour(s) M minute(s)`. */
function parseValue(raw: string): ValueResult {
  const key = textKey(raw);
  const fixed = FIXED_VALUES.get(key);
  if (fixed) return { ok: true, ...fixed };
  const match = DURATION.exec(key);
  const hours = match?.[1];
  const minutes = match?.[2];
  if (match === null || (hours === undefined && minutes === undefined)) {
    return { ok: false, code: 'unknown-value', reason: `Unknown wait value ${JSON.stringify(raw)}` };
  }
  const total = Number(hours ?? 0) * 60 + Number(minutes ?? 0);
  if (total > MAX_DELAY_MINUTES) {
    return {
      ok: false,
      code: 'implausible-delay',
      reason: `Wait value ${JSON.stringify(raw)} is over ${MAX_DELAY_MINUTES} minutes`,
    };
  }
  return { ok: true, status: 'open', delayMinutes: total };
}

type TimeResult = { ok: true; epochMs: number } | { ok: false; reason: string };

const ROW_TIME = /^(\d{4})-(\d{2})-(\d{2}) +(\d{1,2}):(\d{2}) +([A-Za-z]{2,5})$/;

/**
 * `YYYY-MM-DD HH:MM ZONE` read with the literal abbreviation table (English and French), except
 * that Saskatchewan offices are UTC-6 whatever their label says (feeds.md 4.4).
 */
function parseRowTime(raw: string, timeZone: string | undefined): TimeResult {
  const match = ROW_TIME.exec(raw);
  if (match === null) return { ok: false, reason: `Unparseable time ${JSON.stringify(raw)}` };
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const label = (match[6] ?? '').toUpperCase();
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59) {
    return { ok: false, reason: `Impossible date or time ${JSON.stringify(raw)}` };
  }
  const offset =
    timeZone === SASKATCHEWAN_ZONE ? SASKATCHEWAN_OFFSET_MINUTES : ZONE_ABBREVIATION_OFFSETS[label];
  if (offset === undefined)
    return { ok: false, reason: `Unknown zone ${JSON.stringify(label)} in ${JSON.stringify(raw)}` };
  return { ok: true, epochMs: fixedOffsetToUtc({ year, month, day, hour, minute }, offset) };
}

/**
 * Parses one CBSA wait-times CSV document, English or French, as bytes or text.
 *
 * Each data row becomes a port snapshot and up to two `into-canada` readings (commercial and
 * passenger, standard lane) stamped with the row's own time; the two U.S.-bound cells are
 * accounted for as `us-bound-not-used` rejects, since `into-us` waits come from CBP. Every row
 * yields exactly four readings and rejects together. An office missing from the catalogue is
 * still read, as `cbsa-<slug>` with `uncatalogued: true`.
 *
 * Reject codes: `us-bound-not-used`, `unknown-value`, `implausible-delay`, `bad-time`,
 * `future-time`, `bad-row`, `duplicate-port`.
 *
 * @throws FeedFormatError when the input is empty, has no recognised header (English or French),
 *   or has no data row. Nothing else throws.
 */
export function parseCbsaCsv(input: Uint8Array | string, options: ParseCbsaCsvOptions = {}): ParsedFeed {
  const fetchedAt = options.fetchedAt ?? Date.now();
  // Date's own range (±8.64e15 ms): beyond it toISOString throws, and a reason must never throw.
  const fetchedLabel = Math.abs(fetchedAt) <= 8.64e15 ? toIsoSeconds(fetchedAt) : String(fetchedAt);
  const lines = decode(input)
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const [headerLine, ...dataLines] = lines;
  if (headerLine === undefined) throw new FeedFormatError('CBSA CSV: the document is empty');
  const headerCells = splitCells(headerLine);
  const columns = headerColumns(headerCells);
  if (columns === undefined) {
    throw new FeedFormatError(
      `CBSA CSV: unrecognised header ${JSON.stringify(headerLine.slice(0, 200))}; expected the English or French column names`,
    );
  }
  if (dataLines.length === 0) throw new FeedFormatError('CBSA CSV: the header is followed by no data row');
  const width = headerCells.length;

  const ports: PortSnapshot[] = [];
  const readings: Reading[] = [];
  const rejects: Reject[] = [];
  const seenPorts = new Set<string>();

  for (const line of dataLines) {
    const cells = splitCells(line);
    const cell = (column: Column): string => cells[columns.get(column) ?? -1] ?? '';
    const office = cell('office');

    if (cells.length !== width || office === '') {
      for (const flow of FLOWS) {
        rejects.push({
          portId: null,
          mode: flow.mode,
          lane: 'standard',
          direction: flow.direction,
          code: 'bad-row',
          reason: `Row has ${cells.length} cells, expected ${width}${office === '' ? ' with an office name' : ''}: ${JSON.stringify(line.slice(0, 200))}`,
        });
      }
      continue;
    }

    const port = findPortByCbsaOffice(office, cell('location'));
    const portId = port?.id ?? `cbsa-${slugify(office) || 'unnamed'}`;
    const reject = (flow: (typeof FLOWS)[number], code: string, reason: string): void => {
      rejects.push({ portId, mode: flow.mode, lane: 'standard', direction: flow.direction, code, reason });
    };

    for (const flow of US_FLOWS) {
      reject(
        flow,
        'us-bound-not-used',
        `${flow.column === 'commercialUs' ? 'Commercial' : 'Travellers'} U.S.-bound value ${JSON.stringify(cell(flow.column))} ignored: into-us waits come from CBP`,
      );
    }

    if (seenPorts.has(portId)) {
      for (const flow of CANADA_FLOWS) {
        reject(
          flow,
          'duplicate-port',
          `Office ${JSON.stringify(office)} maps to ${portId}, already read from an earlier row`,
        );
      }
      continue;
    }
    seenPorts.add(portId);
    ports.push({
      portId,
      source: 'cbsa',
      name: office,
      crossing: null,
      border: 'ca',
      portStatus: null,
      hours: null,
      notice: null,
      uncatalogued: port === undefined,
    });

    const time = parseRowTime(cell('updated'), port?.timeZone);
    if (!time.ok) {
      for (const flow of CANADA_FLOWS) reject(flow, 'bad-time', time.reason);
      continue;
    }
    if (time.epochMs > fetchedAt + FUTURE_TOLERANCE_MS) {
      for (const flow of CANADA_FLOWS) {
        reject(
          flow,
          'future-time',
          `Row time ${JSON.stringify(cell('updated'))} (${toIsoSeconds(time.epochMs)}) is after the fetch (${fetchedLabel})`,
        );
      }
      continue;
    }
    const observedAt = toIsoSeconds(time.epochMs);

    for (const flow of CANADA_FLOWS) {
      const value = parseValue(cell(flow.column));
      if (!value.ok) {
        reject(flow, value.code, value.reason);
        continue;
      }
      readings.push({
        portId,
        direction: 'into-canada',
        mode: flow.mode,
        lane: 'standard',
        status: value.status,
        delayMinutes: value.delayMinutes,
        lanesOpen: null,
        maxLanes: null,
        observedAt,
        source: 'cbsa',
      });
    }
  }

  return {
    source: 'cbsa',
    format: 'cbsa-csv',
    generatedAt: null,
    declaredPortCount: null,
    ports,
    readings,
    rejects,
  };
}
