/**
 * Feed documents for an instant, in the exact shapes of the real feeds (`shared/reference/feeds.md`):
 * CBP `bwt.xml` (section 1), CBP `api/bwtnew` (section 2) and CBSA `bwt-eng.csv`/`bwt-fra.csv`
 * (section 4). Pure: the same instant gives the same bytes, and every value comes from the model
 * (`model.ts`), so the documents agree with `simulatedLane` for that instant.
 */
import type { Lane, Mode, Port } from '../../../functions/core/model.ts';
import { utcToZoned } from '../../../functions/core/time.ts';
import {
  CBP_PORTS,
  CBSA_PORTS,
  type CbpLaneView,
  type CbsaValue,
  cbpJsonTimeZone,
  cbpLaneView,
  cbpZoneLabel,
  cbsaRowView,
  cbsaTimeZone,
  cbsaZoneLabel,
  constructionNotice,
  isAutomated,
  laneExists,
  maxLanesOf,
  portStatusAt,
  typicalDelay,
} from './model.ts';

/** Options of the document builders. */
export interface DocumentOptions {
  /** Only the first N ports (CBP) or offices (CBSA): a valid document that has lost most ports. */
  maxPorts?: number;
  /** Only these port ids (a smaller world for long fast-clock runs). */
  onlyPorts?: ReadonlySet<string>;
}

/** The zone of CBP's XML header (`last_updated_date`/`last_updated_time`). */
const CBP_HEADER_TIME_ZONE = 'America/New_York';

function portsOf<T extends { id: string }>(ports: readonly T[], options: DocumentOptions): readonly T[] {
  const only = options.onlyPorts;
  const kept = only === undefined ? ports : ports.filter((port) => only.has(port.id));
  return options.maxPorts === undefined ? kept : kept.slice(0, Math.max(0, options.maxPorts));
}

const pad2 = (value: number): string => String(value).padStart(2, '0');

/** `M/D/YYYY`, not padded (`3/8/2026`), as CBP's per-port `date`. */
function cbpDate(atMs: number, timeZone: string): string {
  const t = utcToZoned(atMs, timeZone);
  return `${t.month}/${t.day}/${t.year}`;
}

/** `update_time`: `At 6:00 pm EDT`, `At Noon PDT`, `At Midnight CST`, `At 12:03 am EDT`. */
export function cbpUpdateTime(port: Port, updatedAtMs: number): string {
  const t = utcToZoned(updatedAtMs, port.timeZone);
  const label = cbpZoneLabel(port, updatedAtMs);
  if (t.minute === 0 && t.hour === 0) return `At Midnight ${label}`;
  if (t.minute === 0 && t.hour === 12) return `At Noon ${label}`;
  const hour12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
  return `At ${hour12}:${pad2(t.minute)} ${t.hour < 12 ? 'am' : 'pm'} ${label}`;
}

/** The lanes of each CBP mode group, with their element names, in CBP's order. */
const GROUPS: readonly {
  mode: Mode;
  element: string;
  jsonPrefix: string;
  lanes: readonly { element: string; lane: Lane | 'trusted'; tolerance: string }[];
}[] = [
  {
    mode: 'commercial',
    element: 'commercial_vehicle_lanes',
    jsonPrefix: 'cv',
    lanes: [
      { element: 'standard_lanes', lane: 'standard', tolerance: 'standard' },
      { element: 'FAST_lanes', lane: 'fast', tolerance: 'fast' },
    ],
  },
  {
    mode: 'passenger',
    element: 'passenger_vehicle_lanes',
    jsonPrefix: 'pv',
    lanes: [
      { element: 'standard_lanes', lane: 'standard', tolerance: 'standard' },
      { element: 'NEXUS_SENTRI_lanes', lane: 'trusted', tolerance: 'nexus_sentri' },
      { element: 'ready_lanes', lane: 'ready', tolerance: 'ready' },
    ],
  },
  {
    mode: 'pedestrian',
    element: 'pedestrian_lanes',
    jsonPrefix: 'ped',
    lanes: [
      { element: 'standard_lanes', lane: 'standard', tolerance: 'standard' },
      { element: 'ready_lanes', lane: 'ready', tolerance: 'ready' },
    ],
  },
];

function laneOf(port: Port, lane: Lane | 'trusted'): Lane {
  if (lane !== 'trusted') return lane;
  return port.border === 'mx' ? 'sentri' : 'nexus';
}

/** A lane's four fields as CBP prints them (strings; empty when no value). */
interface LaneFields {
  updateTime: string;
  status: string;
  delay: string;
  lanesOpen: string;
}

const EMPTY_STATUS: Readonly<Record<Exclude<CbpLaneView['kind'], 'reading'>, string>> = {
  'lanes-closed': 'Lanes Closed',
  'update-pending': 'Update Pending',
  'not-applicable': 'N/A',
};

function laneFields(port: Port, view: CbpLaneView): LaneFields {
  if (view.kind !== 'reading')
    return { updateTime: '', status: EMPTY_STATUS[view.kind], delay: '', lanesOpen: '' };
  return {
    updateTime: cbpUpdateTime(port, view.updatedAtMs),
    // `no delay` carries 0-9 minutes and `delay` 10 or more in every capture (feeds.md 1.3).
    status: view.delayMinutes >= 10 ? 'delay' : 'no delay',
    delay: String(view.delayMinutes),
    lanesOpen: String(view.lanesOpen),
  };
}

function automationType(port: Port, mode: Mode): string {
  if (!isAutomated(port, mode)) return 'Manual';
  return mode === 'commercial' && port.border === 'mx' ? 'RFID' : 'Bluetooth';
}

/** Any character outside ISO-8859-1. */
const BEYOND_LATIN1 = /[\u{100}-\u{10ffff}]/gu;

/** Text for an ISO-8859-1 document: XML-escaped, and characters beyond Latin-1 as references. */
function xmlText(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replace(BEYOND_LATIN1, (char) => `&#${char.codePointAt(0)};`);
}

/** CDATA content for an ISO-8859-1 document (references do not work inside CDATA). */
function cdataText(text: string): string {
  return text.replaceAll(']]>', ']] >').replace(BEYOND_LATIN1, '?');
}

function element(name: string, content: string): string {
  return `<${name}>${content}</${name}>`;
}

function xmlLane(name: string, fields: LaneFields): string {
  // Element order depends on the state (feeds.md 1.1): a lane with data starts with update_time,
  // a lane without data with operational_status.
  const inner =
    fields.updateTime === ''
      ? element('operational_status', fields.status) +
        element('update_time', '') +
        element('delay_minutes', '') +
        element('lanes_open', '')
      : element('update_time', fields.updateTime) +
        element('operational_status', fields.status) +
        element('delay_minutes', fields.delay) +
        element('lanes_open', fields.lanesOpen);
  return element(name, inner);
}

/** `crossing_name` as the XML writes it: CBP's XML generator turns `-` into a space (feeds.md 2.1). */
function xmlCrossing(crossing: string | null): string {
  return (crossing ?? '').replaceAll('-', ' ');
}

function maxLanesText(port: Port, mode: Mode): string {
  const max = maxLanesOf(port, mode);
  return max === null ? 'N/A' : String(max);
}

function xmlPort(port: Port, atMs: number): string {
  const parts = [
    element('port_number', xmlText(port.id)),
    element('border', port.border === 'mx' ? 'Mexican Border' : 'Canadian Border'),
    element('port_name', xmlText(port.name)),
    element('crossing_name', xmlText(xmlCrossing(port.crossing))),
    element('hours', xmlText(port.hours ?? '24 hrs/day')),
    element('date', cbpDate(atMs, port.timeZone)),
    element('port_status', portStatusAt(port, atMs) === 'open' ? 'Open' : 'Closed'),
    element('commercial_automation_type', automationType(port, 'commercial')),
    element('passenger_automation_type', automationType(port, 'passenger')),
    // "pedestrain" (sic) is CBP's spelling.
    element('pedestrain_automation_type', automationType(port, 'pedestrian')),
  ];
  for (const group of GROUPS) {
    const lanes = group.lanes.map((slot) =>
      xmlLane(slot.element, laneFields(port, cbpLaneView(port, group.mode, laneOf(port, slot.lane), atMs))),
    );
    parts.push(
      element(group.element, element('maximum_lanes', maxLanesText(port, group.mode)) + lanes.join('')),
    );
  }
  const notice = constructionNotice(port);
  if (notice !== undefined) {
    parts.push(element('construction_notice', notice === null ? '' : `<![CDATA[${cdataText(notice)}]]>`));
  }
  return element('port', parts.join(''));
}

/**
 * CBP `bwt.xml` at `atMs`: declared ISO-8859-1, one line, the header in US Eastern time unpadded
 * (`2026-3-8`, `1:5:9`), one `<port>` per CBP port of the catalogue (Canadian border first). Encode
 * it as Latin-1 (`Buffer.from(text, 'latin1')`): every character is below U+0100.
 */
export function cbpXml(atMs: number, options: DocumentOptions = {}): string {
  const ports = portsOf(CBP_PORTS, options);
  const et = utcToZoned(atMs, CBP_HEADER_TIME_ZONE);
  const header =
    element('last_updated_date', `${et.year}-${et.month}-${et.day}`) +
    element('last_updated_time', `${et.hour}:${et.minute}:${et.second}`) +
    element('number_of_ports', String(ports.length));
  const body = ports.map((port) => xmlPort(port, atMs)).join('');
  return `<?xml version='1.0' encoding='ISO-8859-1'?>${element('border_wait_time', header + body)}`;
}

/** One lane of the JSON: always `update_time, operational_status, delay_minutes, lanes_open`. */
function jsonLane(fields: LaneFields): Record<string, string> {
  return {
    update_time: fields.updateTime,
    operational_status: fields.status,
    delay_minutes: fields.delay,
    lanes_open: fields.lanesOpen,
  };
}

function jsonPort(port: Port, atMs: number): Record<string, unknown> {
  const zone = cbpJsonTimeZone(port);
  const t = utcToZoned(atMs, zone);
  const automated = isAutomated(port, 'passenger');
  const result: Record<string, unknown> = {
    port_number: port.id,
    border: port.border === 'mx' ? 'Mexican Border' : 'Canadian Border',
    port_name: port.name,
    crossing_name: port.crossing ?? '',
    hours: port.hours ?? '24 hrs/day',
    date: cbpDate(atMs, zone),
    time: `${pad2(t.hour)}:${pad2(t.minute)}:${pad2(t.second)}`,
    port_status: portStatusAt(port, atMs) === 'open' ? 'Open' : 'Closed',
  };
  for (const group of GROUPS) {
    const sensor = isAutomated(port, group.mode);
    const value: Record<string, unknown> = {
      maximum_lanes: maxLanesText(port, group.mode),
      [`${group.jsonPrefix}_automation_type`]: automationType(port, group.mode),
      [`${group.jsonPrefix}_segment_from`]: sensor
        ? port.border === 'mx'
          ? 'Exit of toll booth in Mexico'
          : 'About 0.5 miles from Port of Entry'
        : '',
      [`${group.jsonPrefix}_segment_to`]: sensor ? 'Entry of U.S. CBP Primary' : '',
    };
    for (const slot of group.lanes) value[`${group.jsonPrefix}_${slot.tolerance}_tolerance`] = '';
    for (const slot of group.lanes) {
      value[slot.element] = jsonLane(
        laneFields(port, cbpLaneView(port, group.mode, laneOf(port, slot.lane), atMs)),
      );
    }
    result[group.element] = value;
  }
  result.construction_notice = constructionNotice(port) ?? '';
  result.automation = automated ? '1' : '0';
  result.automation_enabled = automated ? '1' : '0';
  return result;
}

/**
 * CBP `api/bwtnew` at `atMs`: a top-level array, every value a string, each port's `date`+`time`
 * the generation time on the clock CBP maps the port to (Arizona: Mountain or Pacific with DST).
 */
export function cbpJson(atMs: number, options: DocumentOptions = {}): string {
  return JSON.stringify(portsOf(CBP_PORTS, options).map((port) => jsonPort(port, atMs)));
}

/** CSV language. */
export type CbsaLanguage = 'en' | 'fr';

const CBSA_HEADERS: Readonly<Record<CbsaLanguage, readonly string[]>> = {
  en: [
    'Customs Office',
    'Location',
    'Last updated',
    'Commercial Flow - Canada bound',
    'Commercial Flow - U.S. bound',
    'Travellers Flow - Canada bound',
    'Travellers Flow - U.S. bound',
  ],
  fr: [
    "Bureau de l'ASFC",
    'Emplacement',
    'Mis à jour',
    'Débit / Expéditions commerciales - Vers le Canada',
    'Débit / Expéditions commerciales - Vers les États-Unis',
    'Débit / Voyageurs - Vers le Canada',
    'Débit / Voyageurs - Vers les États-Unis',
  ],
};

const CBSA_WORDS: Readonly<
  Record<CbsaLanguage, { none: string; na: string; closed: string; hour: string; hours: string }>
> = {
  en: { none: 'No Delay', na: 'Not Applicable', closed: 'Closed', hour: 'hour', hours: 'hours' },
  fr: { none: 'Aucun délai', na: "Ne s'applique pas", closed: 'Fermé', hour: 'heure', hours: 'heures' },
};

/** A CBSA wait cell: `No Delay`, `1 minute`, `26 minutes`, `1 hour 5 minutes`, `2 hours` (or French). */
export function cbsaValueText(value: CbsaValue, language: CbsaLanguage): string {
  const words = CBSA_WORDS[language];
  switch (value.kind) {
    case 'not-applicable':
      return words.na;
    case 'closed':
      return words.closed;
    case 'not-reported':
      return '--';
    case 'delay': {
      if (value.minutes === 0) return words.none;
      const hours = Math.floor(value.minutes / 60);
      const minutes = value.minutes % 60;
      const hourText = hours === 0 ? '' : `${hours} ${hours === 1 ? words.hour : words.hours}`;
      const minuteText = minutes === 0 ? '' : `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
      return [hourText, minuteText].filter((text) => text !== '').join(' ');
    }
  }
}

/** `YYYY-MM-DD HH:MM ZONE` on the office's clock. */
function cbsaTime(port: Port, atMs: number, language: CbsaLanguage): string {
  const t = utcToZoned(atMs, cbsaTimeZone(port));
  return `${t.year}-${pad2(t.month)}-${pad2(t.day)} ${pad2(t.hour)}:${pad2(t.minute)} ${cbsaZoneLabel(port, atMs, language)}`;
}

/** The office's `Location`: `<CA city>, <PROV>/<US city>, <ST>` (not translated in French). */
function cbsaLocation(port: Port): string {
  const canadian = [port.twinCity ?? port.name, port.twinRegion].filter((part) => part !== null).join(', ');
  return `${canadian}/${port.city}, ${port.state}`;
}

/**
 * CBSA `bwt-eng.csv` or `bwt-fra.csv` at `atMs`: a BOM, `;; ` separators, a trailing `;;` on every
 * line (`;; ` on data rows), LF line ends; one row per office of the catalogue (ports with
 * `into-canada`), named by its first `cbsaOffices` entry; the U.S.-bound columns are `--`.
 */
export function cbsaCsv(atMs: number, language: CbsaLanguage = 'en', options: DocumentOptions = {}): string {
  const lines = [`${CBSA_HEADERS[language].join(';; ')};;`];
  for (const port of portsOf(CBSA_PORTS, options)) {
    const row = cbsaRowView(port, atMs);
    const cells = [
      port.cbsaOffices[0] ?? port.name,
      cbsaLocation(port),
      cbsaTime(port, row.updatedAtMs, language),
      cbsaValueText(row.commercial, language),
      '--',
      cbsaValueText(row.passenger, language),
      '--',
    ];
    lines.push(`${cells.join(';; ')};; `);
  }
  return `\uFEFF${lines.join('\n')}\n`;
}

/** The port whose CBP graph id (`bwtId`) this is, among the simulated ones. */
export function portOfGraphId(bwtId: string, options: DocumentOptions = {}): Port | undefined {
  return portsOf(CBP_PORTS, options).find((port) => port.bwtId === bwtId);
}

/**
 * CBP's hourly graph of a port for a date (`api/bwtwaittimegraph/{bwtId}/{YYYY-MM-DD}`, feeds.md
 * 2.5): 24 slots per mode with the model's typical wait as CBP's average, minimum and maximum.
 * Today's waits are `""` (not yet happened, as CBP prints future hours); a lane the port does not
 * have is all zeros, as in the real capture; the pedestrian group is spelled "pedestrain" (sic).
 */
export function cbpGraph(port: Port, date: string): string {
  const dayOfWeek = new Date(`${date}T00:00:00Z`).getUTCDay();
  const trusted: Lane = port.border === 'mx' ? 'sentri' : 'nexus';
  const values = (mode: Mode, lane: Lane, key: string, hour: number): Record<string, string> => {
    const typical = laneExists(port, 'into-us', mode, lane)
      ? typicalDelay(port, { direction: 'into-us', mode, lane }, dayOfWeek, hour)
      : { average: 0, min: 0, max: 0 };
    return {
      [`${key}_today_wait`]: '',
      [`${key}_average_wait`]: String(typical.average),
      [`${key}_min_wait`]: String(typical.min),
      [`${key}_max_wait`]: String(typical.max),
    };
  };
  const slots = (lanes: readonly (readonly [Mode, Lane, string])[]) =>
    Array.from({ length: 24 }, (_, hour) =>
      Object.assign(
        { time: String(hour) },
        ...lanes.map(([mode, lane, key]) => values(mode, lane, key, hour)),
      ),
    );
  return JSON.stringify([
    {
      port_number: port.id,
      port_name: port.name,
      crossing_name: port.crossing ?? '',
      date,
      commercial_time_slots: {
        commercial_slot: slots([
          ['commercial', 'standard', 'standard_lane'],
          ['commercial', 'fast', 'fast_lane'],
        ]),
      },
      private_time_slots: {
        private_slot: slots([
          ['passenger', 'standard', 'standard_lane'],
          ['passenger', trusted, 'fast_lane'],
          ['passenger', 'ready', 'ready_lane'],
        ]),
      },
      pedestrain_time_slots: {
        pedestrain_slot: slots([
          ['pedestrian', 'standard', 'standard_lane'],
          ['pedestrian', 'ready', 'ready_lane'],
        ]),
      },
    },
  ]);
}
