import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPort, PORTS } from '../../../functions/core/catalogue/catalogue.ts';
import { FeedFormatError } from '../../../functions/core/errors.ts';
import { parseCbpJson, parseCbpXml, parseCbsaCsv } from '../../../functions/core/feeds/index.ts';
import type { LaneStatus, ParsedFeed, Port, Reading } from '../../../functions/core/model.ts';
import { LANE_STATUSES } from '../../../functions/core/model.ts';
import { toIsoSeconds, utcToZoned } from '../../../functions/core/time.ts';
import { createFastClock } from '../../../infra/local/simulator/clock.ts';
import { cbpJson, cbpXml, cbsaCsv } from '../../../infra/local/simulator/documents.ts';
import {
  CBP_PORTS,
  CBSA_PORTS,
  expectedObservations,
  laneSlots,
  observationsSeen,
  parseHours,
  type SimulatedObservation,
  simulatedLane,
} from '../../../infra/local/simulator/model.ts';
import {
  ENTITY_BOMB,
  type Fault,
  type Simulator,
  startSimulator,
} from '../../../infra/local/simulator/server.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** A Wednesday in November (standard time everywhere), 12:10 EST. */
const AT = Date.parse('2026-11-18T17:10:00Z');

const cbpCatalogue = PORTS.filter((port) => port.directions.includes('into-us'));
const cbsaCatalogue = PORTS.filter((port) => port.directions.includes('into-canada'));

function portOf(id: string): Port {
  const port = getPort(id);
  if (!port) throw new Error(`port ${id} is not in the catalogue`);
  return port;
}

const parseXml = (atMs: number): ParsedFeed =>
  parseCbpXml(Buffer.from(cbpXml(atMs), 'latin1'), { fetchedAt: atMs });
const parseJson = (atMs: number): ParsedFeed => parseCbpJson(cbpJson(atMs), { fetchedAt: atMs });
const parseCsv = (atMs: number, language: 'en' | 'fr' = 'en'): ParsedFeed =>
  parseCbsaCsv(Buffer.from(cbsaCsv(atMs, language), 'utf8'), { fetchedAt: atMs });

/** Each parsed reading next to the simulated state of the same lane at the same instant. */
function compareWithModel(parsed: ParsedFeed, atMs: number) {
  const view = (r: Pick<Reading, 'status' | 'delayMinutes' | 'lanesOpen' | 'maxLanes' | 'observedAt'>) => ({
    status: r.status,
    delayMinutes: r.delayMinutes,
    lanesOpen: r.lanesOpen,
    maxLanes: r.maxLanes,
    observedAt: r.observedAt,
  });
  const actual = parsed.readings.map((r) => ({ key: `${r.portId} ${r.mode} ${r.lane}`, ...view(r) }));
  const expected = parsed.readings.map((r) => {
    const sim = simulatedLane(portOf(r.portId), r.direction, r.mode, r.lane, atMs);
    return {
      key: `${r.portId} ${r.mode} ${r.lane}`,
      ...view({ ...sim, observedAt: sim.updatedAtMs === null ? null : toIsoSeconds(sim.updatedAtMs) }),
    };
  });
  return { actual, expected };
}

/** The `<port>` element of one port in a bwt.xml text. */
function xmlPortElement(xml: string, id: string): string {
  const match = new RegExp(`<port><port_number>${id}</port_number>.*?</port>`).exec(xml);
  if (!match) throw new Error(`no port ${id}`);
  return match[0];
}

/** Every leaf of a JSON value. */
function leaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [value];
}

describe('simulated CBP bwt.xml', () => {
  it('parses with no reject, one port per CBP port of the catalogue', () => {
    const parsed = parseXml(AT);
    expect(parsed.rejects).toEqual([]);
    expect(parsed.declaredPortCount).toBe(cbpCatalogue.length);
    expect(parsed.ports.map((p) => p.portId).sort()).toEqual(cbpCatalogue.map((p) => p.id).sort());
    expect(parsed.readings).toHaveLength(cbpCatalogue.length * 7);
    expect(parsed.ports.every((p) => !p.uncatalogued)).toBe(true);
  });

  it('writes the header in US Eastern time without zero padding', () => {
    // 06:05:09Z on 2026-03-08 is 1:05:09 EST, an hour before the switch to daylight time.
    const xml = cbpXml(Date.parse('2026-03-08T06:05:09Z'));
    expect(xml).toContain(
      '<last_updated_date>2026-3-8</last_updated_date><last_updated_time>1:5:9</last_updated_time>',
    );
    expect(parseCbpXml(xml, { fetchedAt: Date.parse('2026-03-08T06:05:09Z') }).generatedAt).toBe(
      '2026-03-08T06:05:09Z',
    );
    expect(cbpXml(Date.parse('2026-07-04T16:30:00Z'))).toContain(
      '<last_updated_date>2026-7-4</last_updated_date><last_updated_time>12:30:0</last_updated_time>',
    );
  });

  it('declares ISO-8859-1 on a single line and orders lane children by state', () => {
    const xml = cbpXml(AT);
    expect(
      xml.startsWith("<?xml version='1.0' encoding='ISO-8859-1'?><border_wait_time><last_updated_date>"),
    ).toBe(true);
    expect(xml).not.toMatch(/[\r\n]/);
    expect(xml).toContain(`<number_of_ports>${cbpCatalogue.length}</number_of_ports>`);
    const lanes = [...xml.matchAll(/<(standard|FAST|NEXUS_SENTRI|ready)_lanes>(.*?)<\/\1_lanes>/g)].map(
      (m) => m[2],
    );
    expect(lanes).toHaveLength(cbpCatalogue.length * 7);
    for (const lane of lanes) {
      expect(lane).toMatch(
        /^(?:<update_time>At (?:\d{1,2}:\d{2} [ap]m|Noon|Midnight) [ECMP][SD]T<\/update_time><operational_status>(?:no delay|delay)<\/operational_status><delay_minutes>\d+<\/delay_minutes><lanes_open>[1-9]\d*<\/lanes_open>|<operational_status>(?:N\/A|Update Pending|Lanes Closed)<\/operational_status><update_time><\/update_time><delay_minutes><\/delay_minutes><lanes_open><\/lanes_open>)$/,
      );
    }
    expect(xml).toContain('<maximum_lanes>N/A</maximum_lanes>');
    expect(xml).toMatch(/<construction_notice><!\[CDATA\[[^\]]+\]\]><\/construction_notice><\/port>/);
    expect(xml).toContain('<crossing_name>International Bridge   SSM</crossing_name>');
  });

  it('writes each port date as the port-local date, M/D/YYYY unpadded', () => {
    // 05:30Z is 00:30 EST on the 10th in Buffalo and 21:30 PST on the 9th in San Ysidro.
    const at = Date.parse('2026-11-10T05:30:00Z');
    const xml = cbpXml(at);
    expect(xmlPortElement(xml, '090101')).toContain('<date>11/10/2026</date>');
    expect(xmlPortElement(xml, '250401')).toContain('<date>11/9/2026</date>');
  });

  it('prints PST at Douglas all year and resolves it, through the parser, to the simulated update time', () => {
    const douglas = portOf('260101');
    for (const [iso, label] of [
      ['2026-01-15T20:30:00Z', 'At 1:00 pm PST'],
      ['2026-07-15T20:30:00Z', 'At 1:00 pm PST'],
    ] as const) {
      const at = Date.parse(iso);
      const sim = simulatedLane(douglas, 'into-us', 'passenger', 'standard', at);
      expect(sim.status).toBe('open');
      expect(sim.updatedAtMs).toBe(Date.parse(iso) - 30 * MINUTE);
      const xml = cbpXml(at);
      expect(xmlPortElement(xml, '260101')).toContain(`<update_time>${label}</update_time>`);
      const reading = parseCbpXml(xml, { fetchedAt: at }).readings.find(
        (r) => r.portId === '260101' && r.mode === 'passenger' && r.lane === 'standard',
      );
      expect(reading?.observedAt).toBe(toIsoSeconds(sim.updatedAtMs ?? 0));
    }
  });

  it('prints MST all year at the other Arizona ports', () => {
    for (const iso of ['2026-01-15T20:30:00Z', '2026-07-15T20:30:00Z']) {
      expect(xmlPortElement(cbpXml(Date.parse(iso)), '260401')).toMatch(/At 1:00 pm MST/);
    }
  });

  it('prints daylight and standard abbreviations by season', () => {
    expect(xmlPortElement(cbpXml(Date.parse('2026-07-15T17:30:00Z')), '090101')).toMatch(/ EDT</);
    expect(xmlPortElement(cbpXml(Date.parse('2026-01-15T17:30:00Z')), '090101')).toMatch(/ EST</);
  });
});

describe('simulated CBP bwtnew JSON', () => {
  it('is a top-level array of ports whose values are all strings, parsed with no reject', () => {
    const value: unknown = JSON.parse(cbpJson(AT));
    expect(Array.isArray(value)).toBe(true);
    expect(leaves(value).every((leaf) => typeof leaf === 'string')).toBe(true);
    const parsed = parseJson(AT);
    expect(parsed.rejects).toEqual([]);
    expect(parsed.ports).toHaveLength(cbpCatalogue.length);
    expect(parsed.generatedAt).toBe(toIsoSeconds(AT));
  });

  it('dates each port at generation on the clock CBP maps it to', () => {
    const ports = JSON.parse(cbpJson(Date.parse('2026-07-15T20:30:05Z'))) as Record<string, string>[];
    const byId = new Map(ports.map((p) => [p.port_number, p]));
    expect(byId.get('090101')).toMatchObject({ date: '7/15/2026', time: '16:30:05' });
    // Nogales is mapped to Mountain with DST (an hour ahead of Arizona in summer), Douglas to Pacific.
    expect(byId.get('260401')).toMatchObject({ time: '14:30:05' });
    expect(byId.get('260101')).toMatchObject({ time: '13:30:05' });
  });
});

describe('simulated CBSA CSV', () => {
  it('has a BOM, ";; " separators, trailing ";;" and LF line ends, one row per CBSA office', () => {
    const csv = cbsaCsv(AT, 'en');
    expect(csv.startsWith('\uFEFFCustoms Office;; Location;; Last updated;; ')).toBe(true);
    expect(csv).not.toContain('\r');
    const lines = csv.slice(1).split('\n').filter(Boolean);
    expect(lines).toHaveLength(cbsaCatalogue.length + 1);
    expect(lines[0]?.endsWith('Travellers Flow - U.S. bound;;')).toBe(true);
    for (const line of lines.slice(1)) {
      expect(line).toMatch(
        /^[^;]+;; [^;]+, [A-Z]{2}\/[^;]+, [A-Z]{2};; \d{4}-\d{2}-\d{2} \d{2}:\d{2} [ACEMP][SD]T;; [^;]+;; --;; [^;]+;; --;; $/,
      );
    }
    expect(csv).toMatch(/\nNorth Portal;; North Portal, SK\/Portal, ND;; [\d-]+ [\d:]+ CST;; /);
    expect(cbsaCsv(Date.parse('2026-07-15T17:30:00Z'), 'en')).toMatch(/\nNorth Portal;; [^\n]+ CST;; /);
    expect(csv).toMatch(/\nSt\. Stephen;; St\. Stephen, NB\/Calais, ME;; [\d-]+ [\d:]+ AST;; /);
  });

  it('parses in English and French with only the U.S.-bound rejects, each office mapped to its port', () => {
    for (const language of ['en', 'fr'] as const) {
      const parsed = parseCsv(AT, language);
      expect(parsed.rejects.filter((r) => r.code !== 'us-bound-not-used')).toEqual([]);
      expect(parsed.ports.map((p) => p.portId)).toEqual(cbsaCatalogue.map((p) => p.id));
      expect(parsed.readings).toHaveLength(cbsaCatalogue.length * 2);
    }
  });

  it('uses the French header, values and zone abbreviations in bwt-fra.csv', () => {
    const fr = cbsaCsv(AT, 'fr');
    expect(
      fr.startsWith(
        "\uFEFFBureau de l'ASFC;; Emplacement;; Mis à jour;; Débit / Expéditions commerciales - Vers le Canada;; Débit / Expéditions commerciales - Vers les États-Unis;; Débit / Voyageurs - Vers le Canada;; Débit / Voyageurs - Vers les États-Unis;;\n",
      ),
    ).toBe(true);
    expect(fr).toMatch(/ HNE;; /);
    expect(fr).toMatch(/ HNA;; /);
    expect(fr).not.toMatch(/No Delay|Not Applicable|Closed| hours?\b/);
    expect(cbsaCsv(Date.parse('2026-07-15T17:30:00Z'), 'fr')).toMatch(/ HAE;; /);
    // Over a week, the French words all appear.
    const week = Array.from({ length: 7 * 24 }, (_, h) => cbsaCsv(AT + h * HOUR, 'fr')).join('');
    for (const word of ['Aucun délai', "Ne s'applique pas", 'Fermé', ';; --;; --;; '])
      expect(week).toContain(word);
    expect(week).toMatch(/;; \d+ minutes;; /);
    const en = Array.from({ length: 7 * 24 }, (_, h) => cbsaCsv(AT + h * HOUR, 'en')).join('');
    for (const word of ['No Delay', 'Not Applicable', 'Closed', ';; --;; --;; ', ';; 1 minute;; ']) {
      expect(en).toContain(word);
    }
  });

  it('agrees between English and French', () => {
    const strip = (feed: ParsedFeed) => feed.readings;
    expect(strip(parseCsv(AT, 'fr'))).toEqual(strip(parseCsv(AT, 'en')));
  });
});

describe('the simulated model', () => {
  it('agrees with every parsed document at instants across a week', () => {
    for (let step = 0; step < 8; step++) {
      // Varying hours and minutes: 12:10 EST, then 21 h 7 min later, and so on.
      const at = AT + step * (21 * HOUR + 7 * MINUTE);
      for (const parsed of [parseXml(at), parseJson(at), parseCsv(at, 'en'), parseCsv(at, 'fr')]) {
        const { actual, expected } = compareWithModel(parsed, at);
        expect(actual).toEqual(expected);
      }
    }
  });

  it('shows update-pending just after local midnight, then the first reading of the day', () => {
    // 00:20 EST: 24-hour Eastern ports that did not publish at midnight are pending.
    const at = Date.parse('2026-11-18T05:20:00Z');
    const eastern = cbpCatalogue.filter(
      (p) => p.timeZone === 'America/New_York' && parseHours(p.hours) === null,
    );
    const pending = eastern.filter((port) =>
      laneSlots(port).every((slot) => {
        const status = simulatedLane(port, slot.direction, slot.mode, slot.lane, at).status;
        return slot.direction === 'into-canada' || status === 'update-pending' || status === 'not-applicable';
      }),
    );
    expect(pending.length).toBeGreaterThan(0);
    const parsed = parseXml(at);
    const port = pending[0] as Port;
    const lanes = parsed.readings.filter((r) => r.portId === port.id);
    expect(lanes.some((r) => r.status === 'update-pending')).toBe(true);
    expect(lanes.every((r) => r.observedAt === null)).toBe(true);
    // An hour later the 1 am reading is there.
    const later = parseXml(at + HOUR).readings.filter((r) => r.portId === port.id && r.status === 'open');
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((r) => r.observedAt === '2026-11-18T06:00:00Z')).toBe(true);
    // At noon nothing is pending.
    expect(simulatedLane(port, 'into-us', 'passenger', 'standard', AT).status).not.toBe('update-pending');
  });

  it('closes a part-time port at 3 am local and opens it in the day', () => {
    const port = cbpCatalogue.find((p) => (parseHours(p.hours)?.openMinute ?? 0) > 180) as Port;
    expect(port).toBeDefined();
    // 3 am local on 2026-11-18: the local offset comes from the port's zone.
    const noonUtc = Date.parse('2026-11-18T12:00:00Z');
    const offsetHours = utcToZoned(noonUtc, port.timeZone).hour - 12;
    const threeAm = Date.parse('2026-11-18T03:00:00Z') - offsetHours * HOUR;
    expect(utcToZoned(threeAm, port.timeZone).hour).toBe(3);
    const xml = cbpXml(threeAm);
    expect(xmlPortElement(xml, port.id)).toContain('<port_status>Closed</port_status>');
    const lanes = parseCbpXml(xml, { fetchedAt: threeAm }).readings.filter((r) => r.portId === port.id);
    expect(lanes.map((r) => r.status)).toEqual(Array(7).fill('port-closed'));
    for (const slot of laneSlots(port)) {
      expect(simulatedLane(port, slot.direction, slot.mode, slot.lane, threeAm).status).toBe('port-closed');
    }
    const midday = threeAm + 9 * HOUR;
    expect(xmlPortElement(cbpXml(midday), port.id)).toContain('<port_status>Open</port_status>');
  });

  it('produces every status over a simulated week', () => {
    const modelled = new Set<LaneStatus>();
    for (let h = 0; h < 7 * 24; h++) {
      for (const port of PORTS) {
        for (const slot of laneSlots(port)) {
          modelled.add(simulatedLane(port, slot.direction, slot.mode, slot.lane, AT + h * HOUR).status);
        }
      }
    }
    expect([...modelled].sort()).toEqual([...LANE_STATUSES].sort());
    // And through the documents and the parsers, every 6 hours from 00:30 EST.
    const parsed = new Set<LaneStatus>();
    const start = Date.parse('2026-11-16T05:30:00Z');
    for (let h = 0; h < 7 * 24; h += 6) {
      for (const feed of [parseXml(start + h * HOUR), parseCsv(start + h * HOUR)]) {
        for (const reading of feed.readings) parsed.add(reading.status);
      }
    }
    expect([...parsed].sort()).toEqual([...LANE_STATUSES].sort());
  });

  it('publishes hourly at manual ports and every 5 minutes at odd minutes at automated ports', () => {
    const week = Array.from({ length: 7 * 24 }, (_, h) => cbpXml(AT + h * HOUR + 29 * MINUTE)).join('');
    expect(week).toMatch(/At Noon [ECMP][SD]T/);
    expect(week).toMatch(/At Midnight [ECMP][SD]T/);
    expect(week).toMatch(/At \d{1,2}:\d[1-46-9] [ap]m/);
    const automated = expectedObservations(portOf('090101'), AT, AT + HOUR, { direction: 'into-us' });
    const minutes = new Set(automated.map((o) => new Date(o.observedAt).getUTCMinutes()));
    expect(minutes.size).toBe(12);
    expect([...minutes].every((m) => m % 5 !== 0)).toBe(true);
  });

  it('is deterministic', () => {
    expect(cbpXml(AT)).toBe(cbpXml(AT));
    expect(cbsaCsv(AT, 'fr')).toBe(cbsaCsv(AT, 'fr'));
  });

  it('computes, without the parsers, what an ingest polling every 5 minutes stores', () => {
    // 23:04 to 02:04 EST, across local midnight in the East. Polling at minutes 4, 9, 14 ... sees
    // every 5-minute update of the automated ports (at minutes 1-4 past each 5), even the last one
    // before midnight, which `Update Pending` replaces within minutes.
    const from = Date.parse('2026-11-19T04:04:00Z');
    const to = from + 3 * HOUR;
    const instants = Array.from({ length: (to - from) / (5 * MINUTE) + 1 }, (_, i) => from + i * 5 * MINUTE);
    const stored = new Map<string, SimulatedObservation>();
    for (const at of instants) {
      for (const feed of [parseJson(at), parseCsv(at)]) {
        for (const r of feed.readings) {
          if (r.observedAt === null) continue;
          const observation: SimulatedObservation = {
            portId: r.portId,
            direction: r.direction,
            mode: r.mode,
            lane: r.lane,
            status: r.status,
            delayMinutes: r.delayMinutes,
            lanesOpen: r.lanesOpen,
            observedAt: r.observedAt,
            source: r.source,
          };
          stored.set(`${r.portId}|${r.direction}|${r.mode}|${r.lane}|${r.observedAt}`, observation);
        }
      }
    }
    const key = (o: SimulatedObservation) => `${o.portId}|${o.direction}|${o.mode}|${o.lane}|${o.observedAt}`;
    const sortByKey = (list: SimulatedObservation[]) =>
      [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    const seen = PORTS.flatMap((port) => observationsSeen(port, instants));
    expect(sortByKey([...stored.values()])).toEqual(sortByKey(seen));
    // Every update inside the window is among them; the rest were published just before it.
    const expected = PORTS.flatMap((port) => expectedObservations(port, from, to));
    expect(expected.length).toBeGreaterThan(500);
    for (const observation of expected) expect(stored.get(key(observation))).toEqual(observation);
    for (const observation of stored.values()) {
      if (!expected.some((o) => key(o) === key(observation))) {
        expect(Date.parse(observation.observedAt)).toBeLessThan(from);
      }
    }
  });
});

describe('the simulator server', () => {
  let simulator: Simulator;

  beforeAll(async () => {
    simulator = await startSimulator({ clock: { now: () => AT } });
  });
  afterAll(() => simulator?.stop());

  it('serves the four documents on loopback with their content types, ETag and Last-Modified', async () => {
    expect(simulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const cases = [
      [simulator.cbpXmlUrl, 'text/xml; charset=ISO-8859-1', Buffer.from(cbpXml(AT), 'latin1')],
      [simulator.cbpJsonUrl, 'application/json; charset=utf-8', Buffer.from(cbpJson(AT))],
      [simulator.cbsaEnUrl, 'text/csv; charset=utf-8', Buffer.from(cbsaCsv(AT, 'en'))],
      [simulator.cbsaFrUrl, 'text/csv; charset=utf-8', Buffer.from(cbsaCsv(AT, 'fr'))],
    ] as const;
    for (const [url, contentType, body] of cases) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(contentType);
      expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/);
      expect(Date.parse(response.headers.get('last-modified') ?? '')).toBeLessThanOrEqual(AT);
      expect(Buffer.from(await response.arrayBuffer()).equals(body)).toBe(true);
    }
  });

  it('encodes bwt.xml in Latin-1', async () => {
    const bytes = Buffer.from(await (await fetch(simulator.cbpXmlUrl)).arrayBuffer());
    // A notice with accents: one byte each (é = 0xE9), never UTF-8's two.
    expect(bytes.includes(Buffer.from([0xe9]))).toBe(true);
    expect(bytes.includes(Buffer.from([0xc3, 0xa9]))).toBe(false);
  });

  it('answers If-None-Match with 304, and 200 once the clock moves the document on', async () => {
    const first = await fetch(simulator.cbpXmlUrl);
    await first.arrayBuffer();
    const etag = first.headers.get('etag') ?? '';
    const again = await fetch(simulator.cbpXmlUrl, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    simulator.setClock(AT + HOUR);
    try {
      const moved = await fetch(simulator.cbpXmlUrl, { headers: { 'if-none-match': etag } });
      expect(moved.status).toBe(200);
      const body = Buffer.from(await moved.arrayBuffer());
      expect(body.equals(Buffer.from(cbpXml(AT + HOUR), 'latin1'))).toBe(true);
    } finally {
      simulator.setClock(AT);
    }
  });

  it('returns 404 for an unknown path', async () => {
    const response = await fetch(`${simulator.url}/nothing`);
    expect(response.status).toBe(404);
    await response.arrayBuffer();
  });

  describe('faults', () => {
    const withFault = async <T>(feed: 'cbp' | 'cbsa', fault: Fault, run: () => Promise<T>): Promise<T> => {
      simulator.setFault(feed, fault);
      try {
        return await run();
      } finally {
        simulator.setFault(feed, null);
      }
    };

    it('answers the configured status', async () => {
      await withFault('cbp', { kind: 'status', status: 500 }, async () => {
        const response = await fetch(simulator.cbpXmlUrl);
        expect(response.status).toBe(500);
        await response.arrayBuffer();
      });
    });

    it('hangs until the client gives up', async () => {
      await withFault('cbp', { kind: 'hang' }, async () => {
        await expect(fetch(simulator.cbpJsonUrl, { signal: AbortSignal.timeout(200) })).rejects.toThrow();
      });
    });

    it('cuts the body in half', async () => {
      await withFault('cbp', { kind: 'truncated' }, async () => {
        const body = Buffer.from(await (await fetch(simulator.cbpXmlUrl)).arrayBuffer());
        const full = Buffer.from(cbpXml(AT), 'latin1');
        expect(body.equals(full.subarray(0, Math.floor(full.length / 2)))).toBe(true);
        expect(() => parseCbpXml(body, { fetchedAt: AT })).toThrow(FeedFormatError);
      });
    });

    it('answers 200 with an empty body', async () => {
      await withFault('cbsa', { kind: 'empty' }, async () => {
        const response = await fetch(simulator.cbsaEnUrl);
        expect(response.status).toBe(200);
        expect(await response.text()).toBe('');
      });
    });

    it('serves a valid document with only a few ports', async () => {
      await withFault('cbp', { kind: 'few-ports', ports: 5 }, async () => {
        const body = await (await fetch(simulator.cbpXmlUrl)).arrayBuffer();
        const parsed = parseCbpXml(new Uint8Array(body), { fetchedAt: AT });
        expect(parsed.rejects).toEqual([]);
        expect(parsed.declaredPortCount).toBe(5);
        expect(parsed.ports).toHaveLength(5);
      });
      await withFault('cbsa', { kind: 'few-ports', ports: 5 }, async () => {
        const parsed = parseCbsaCsv(await (await fetch(simulator.cbsaFrUrl)).text(), { fetchedAt: AT });
        expect(parsed.ports).toHaveLength(5);
      });
    });

    it('serves an HTML error page under the configured content type', async () => {
      await withFault('cbp', { kind: 'content-type', contentType: 'text/html' }, async () => {
        const response = await fetch(simulator.cbpXmlUrl);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/html');
        expect(await response.text()).toMatch(/^<!DOCTYPE html>/);
      });
    });

    it('streams a body larger than any cap', async () => {
      await withFault('cbsa', { kind: 'oversized', bytes: 20_000_000 }, async () => {
        const response = await fetch(simulator.cbsaEnUrl);
        expect(response.headers.get('content-length')).toBeNull();
        let total = 0;
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) total += chunk.length;
        expect(total).toBe(20_000_000);
      });
    });

    it('drops the connection', async () => {
      await withFault('cbp', { kind: 'down' }, async () => {
        await expect(fetch(simulator.cbpXmlUrl)).rejects.toThrow(/fetch failed/);
      });
    });

    it('serves an entity bomb, which the CBP parser reads without expanding it', async () => {
      await withFault('cbp', { kind: 'entity-bomb' }, async () => {
        const response = await fetch(simulator.cbpXmlUrl);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/xml; charset=ISO-8859-1');
        const body = Buffer.from(await response.arrayBuffer());
        expect(body.toString('latin1')).toBe(ENTITY_BOMB);
        expect(body.length).toBeLessThan(4096);
        // The parser leaves entities unexpanded: what it returns stays as small as the document.
        const parsed = parseCbpXml(body, { fetchedAt: AT });
        expect(JSON.stringify(parsed).length).toBeLessThan(10 * body.length);
        expect(parsed.readings).toEqual([]);
      });
    });

    it.each([
      ['cbp', 'cbpXmlUrl', (at: number) => Buffer.from(cbpXml(at), 'latin1')],
      ['cbsa', 'cbsaEnUrl', (at: number) => Buffer.from(cbsaCsv(at, 'en'), 'utf8')],
    ] as const)(
      'replays the %s document as it was an age earlier, with its own validators',
      async (feed, url, build) => {
        const current = await fetch(simulator[url]);
        const currentBody = Buffer.from(await current.arrayBuffer());
        await withFault(feed, { kind: 'older', ageMs: 4 * HOUR }, async () => {
          const response = await fetch(simulator[url]);
          const body = Buffer.from(await response.arrayBuffer());
          expect(body.equals(build(AT - 4 * HOUR))).toBe(true);
          expect(body.equals(currentBody)).toBe(false);
          expect(response.headers.get('etag')).not.toBe(current.headers.get('etag'));
          expect(Date.parse(response.headers.get('last-modified') ?? '')).toBeLessThan(
            Date.parse(current.headers.get('last-modified') ?? ''),
          );
        });
      },
    );

    it('fails only the feed it is set on', async () => {
      await withFault('cbsa', { kind: 'status', status: 503 }, async () => {
        const cbp = await fetch(simulator.cbpJsonUrl);
        expect(cbp.status).toBe(200);
        await cbp.arrayBuffer();
        const cbsa = await fetch(simulator.cbsaFrUrl);
        expect(cbsa.status).toBe(503);
        await cbsa.arrayBuffer();
      });
    });
  });

  it('ends hanging requests and closes when stopped', async () => {
    const own = await startSimulator({ clock: { now: () => AT } });
    own.setFault('cbsa', { kind: 'hang' });
    const pending = fetch(own.cbsaEnUrl);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await own.stop();
    await expect(pending).rejects.toThrow();
    await expect(fetch(own.cbpXmlUrl)).rejects.toThrow();
  });
});

describe('the fast clock', () => {
  it('runs simulated time speed times faster than real time', () => {
    let real = 1_000;
    const clock = createFastClock({ startMs: AT, speed: 3600, realNow: () => real });
    expect(clock.now()).toBe(AT);
    real += 1_000;
    expect(clock.now()).toBe(AT + HOUR);
  });

  it('drives the server through days of documents in seconds', async () => {
    let real = 0;
    const clock = createFastClock({ startMs: AT, speed: 86_400, realNow: () => real });
    const own = await startSimulator({ clock });
    try {
      const dates = new Set<string>();
      for (let second = 0; second < 3; second++) {
        real = second * 1000;
        const text = await (await fetch(own.cbpXmlUrl)).text();
        dates.add(/<last_updated_date>([^<]+)</.exec(text)?.[1] ?? '');
      }
      expect([...dates]).toEqual(['2026-11-18', '2026-11-19', '2026-11-20']);
    } finally {
      await own.stop();
    }
  });
});

describe('the simulated catalogue', () => {
  it('covers every CBP port and every CBSA office of the catalogue', () => {
    expect(CBP_PORTS.map((p) => p.id).sort()).toEqual(cbpCatalogue.map((p) => p.id).sort());
    expect(CBSA_PORTS.map((p) => p.id)).toEqual(cbsaCatalogue.map((p) => p.id));
  });
});
