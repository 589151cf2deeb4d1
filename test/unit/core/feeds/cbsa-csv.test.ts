import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../../../functions/core/errors.ts';
import { parseCbsaCsv } from '../../../../functions/core/feeds/cbsa-csv.ts';
import type { ParsedFeed, Reading } from '../../../../functions/core/model.ts';

const fixturesDir = fileURLToPath(new URL('../../../fixtures/cbsa/', import.meta.url));
const capturesDir = fileURLToPath(new URL('../../../../../shared/fixtures/feeds/', import.meta.url));
const haveCaptures = existsSync(capturesDir);

const FETCHED_2026 = Date.parse('2026-10-03T17:30:00Z');

const EN_HEADER =
  'Customs Office;; Location;; Last updated;; Commercial Flow - Canada bound;; Commercial Flow - U.S. bound;; Travellers Flow - Canada bound;; Travellers Flow - U.S. bound;;';
const FR_HEADER =
  "Bureau de l'ASFC;; Emplacement;; Mis à jour;; Débit / Expéditions commerciales - Vers le Canada;; Débit / Expéditions commerciales - Vers les États-Unis;; Débit / Voyageurs - Vers le Canada;; Débit / Voyageurs - Vers les États-Unis;;";

/** One data row in CBSA's layout: `;; ` separators and a trailing `;; `. */
function row(
  office: string,
  location: string,
  updated: string,
  commercial: string,
  travellers: string,
): string {
  return `${office};; ${location};; ${updated};; ${commercial};; --;; ${travellers};; --;; `;
}

/** An English document: header, rows, LF, blank trailing line. */
function englishDoc(...rows: string[]): string {
  return `${EN_HEADER}\n${rows.join('\n')}\n\n`;
}

const PEACE = (commercial: string, travellers: string, updated = '2026-10-03 13:20 EDT') =>
  row('Peace Bridge', 'Fort Erie, ON/Buffalo, NY', updated, commercial, travellers);

function parse(input: Uint8Array | string, fetchedAt = FETCHED_2026): ParsedFeed {
  return parseCbsaCsv(input, { fetchedAt });
}

function reading(feed: ParsedFeed, portId: string, mode: Reading['mode']): Reading | undefined {
  return feed.readings.find((r) => r.portId === portId && r.mode === mode);
}

/** Windows-1252 bytes of a text (Latin-1 range plus the typographic quotes CBSA's French uses). */
function toWindows1252(text: string): Uint8Array {
  const special: Record<string, number> = { '\u2019': 0x92, '\u2018': 0x91, '\u201c': 0x93, '\u201d': 0x94 };
  return Uint8Array.from([...text], (char) => {
    const code = char.codePointAt(0) ?? 0x3f;
    const byte = special[char] ?? (code < 0x100 && (code < 0x80 || code >= 0xa0) ? code : undefined);
    if (byte === undefined) throw new Error(`not encodable in windows-1252: ${char}`);
    return byte;
  });
}

function readFixture(name: string): Uint8Array {
  return readFileSync(`${fixturesDir}${name}`);
}

function dataRowCount(text: string): number {
  return (
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '').length - 1
  );
}

/** Every row is accounted for: two Canada-bound and two U.S.-bound cells, as readings or rejects. */
function expectEveryRowAccounted(feed: ParsedFeed, rows: number): void {
  expect(feed.readings.length + feed.rejects.length).toBe(4 * rows);
  expect(feed.rejects.filter((r) => r.code === 'us-bound-not-used')).toHaveLength(
    2 * rows - feed.rejects.filter((r) => r.code === 'bad-row').length / 2,
  );
}

describe('parseCbsaCsv: document', () => {
  it('describes itself as a CBSA CSV without a header time or port count', () => {
    const feed = parse(englishDoc(PEACE('No Delay', '26 minutes')));
    expect(feed).toMatchObject({
      source: 'cbsa',
      format: 'cbsa-csv',
      generatedAt: null,
      declaredPortCount: null,
    });
  });

  it('reads the hand-written English fixture, every row accounted for', () => {
    const bytes = readFixture('bwt-eng.csv');
    const feed = parse(bytes);
    expectEveryRowAccounted(feed, 9);
    expect(feed.ports.map((port) => port.portId)).toEqual([
      '011501',
      '011503',
      '070801',
      '090101',
      '380001',
      '380102',
      'cbsa-north-portal',
      '331001',
      '300401',
    ]);
    expect(feed.ports.every((port) => !port.uncatalogued && port.border === 'ca')).toBe(true);
    expect(reading(feed, '380102', 'commercial')).toMatchObject({ status: 'open', delayMinutes: 120 });
    expect(reading(feed, '380102', 'passenger')).toMatchObject({
      status: 'not-reported',
      delayMinutes: null,
    });
  });

  it('reads the hand-written French fixture, every row accounted for', () => {
    const feed = parse(readFixture('bwt-fra.csv'));
    expectEveryRowAccounted(feed, 4);
    expect(feed.ports.map((port) => port.portId)).toEqual([
      '090101',
      '070801',
      '071201',
      'cbsa-north-portal',
    ]);
    expect(reading(feed, '070801', 'passenger')).toMatchObject({ status: 'open', delayMinutes: 65 });
  });

  it('produces CBSA snapshots with no port status, hours or notice', () => {
    const feed = parse(englishDoc(PEACE('No Delay', '26 minutes')));
    expect(feed.ports).toEqual([
      {
        portId: '090101',
        source: 'cbsa',
        name: 'Peace Bridge',
        crossing: null,
        border: 'ca',
        portStatus: null,
        hours: null,
        notice: null,
        uncatalogued: false,
      },
    ]);
  });

  it('produces into-canada standard-lane readings with no lane counts', () => {
    const feed = parse(englishDoc(PEACE('No Delay', '26 minutes')));
    expect(feed.readings).toEqual([
      {
        portId: '090101',
        direction: 'into-canada',
        mode: 'commercial',
        lane: 'standard',
        status: 'open',
        delayMinutes: 0,
        lanesOpen: null,
        maxLanes: null,
        observedAt: '2026-10-03T17:20:00Z',
        source: 'cbsa',
      },
      {
        portId: '090101',
        direction: 'into-canada',
        mode: 'passenger',
        lane: 'standard',
        status: 'open',
        delayMinutes: 26,
        lanesOpen: null,
        maxLanes: null,
        observedAt: '2026-10-03T17:20:00Z',
        source: 'cbsa',
      },
    ]);
  });
});

describe('parseCbsaCsv: quirks', () => {
  it('strips the byte-order mark, from bytes and from text', () => {
    const text = `\uFEFF${englishDoc(PEACE('No Delay', '26 minutes'))}`;
    expect(parse(new TextEncoder().encode(text)).readings).toHaveLength(2);
    expect(parse(text).readings).toHaveLength(2);
  });

  it('splits cells on ";;" followed by a space and trims them', () => {
    const feed = parse(
      `${EN_HEADER}\nPeace Bridge;;   Fort Erie, ON/Buffalo, NY  ;;2026-10-03 13:20 EDT;; 5 minutes ;;--;; 7 minutes;; --;;\n`,
    );
    expect(feed.ports[0]?.name).toBe('Peace Bridge');
    expect(feed.readings.map((r) => r.delayMinutes)).toEqual([5, 7]);
  });

  it('drops the empty field after the trailing ";;", and reads a row without it too', () => {
    const withTrailing = PEACE('5 minutes', '7 minutes');
    const without = row(
      'Rainbow Bridge',
      'Niagara Falls, ON/Niagara Falls, NY',
      '2026-10-03 13:20 EDT',
      'Not Applicable',
      '3 minutes',
    ).replace(/;; $/, '');
    const feed = parse(englishDoc(withTrailing, without));
    expect(feed.rejects.filter((r) => r.code === 'bad-row')).toEqual([]);
    expect(feed.readings).toHaveLength(4);
  });

  it('skips blank lines between rows and at the end', () => {
    const feed = parse(
      `${EN_HEADER}\n\n${PEACE('No Delay', '1 minute')}\n   \n\n${row('Coutts', 'Coutts, AB/Sweet Grass, MT', '2026-10-03 11:10 MDT', 'No Delay', 'No Delay')}\n\n`,
    );
    expect(feed.ports.map((port) => port.portId)).toEqual(['090101', '331001']);
    expectEveryRowAccounted(feed, 2);
  });

  it('reads CRLF line endings like LF', () => {
    const feed = parse(englishDoc(PEACE('No Delay', '1 minute')).replaceAll('\n', '\r\n'));
    expect(feed.readings).toHaveLength(2);
  });

  it('reads the French header', () => {
    const feed = parse(
      `${FR_HEADER}\n${row('Pont Peace', 'Fort Erie, ON/Buffalo, NY', '2026-10-03 13:20 HAE', 'Aucun délai', '26 minutes')}\n`,
    );
    expect(feed.ports[0]).toMatchObject({ portId: '090101', name: 'Pont Peace' });
    expect(reading(feed, '090101', 'passenger')?.observedAt).toBe('2026-10-03T17:20:00Z');
  });

  it.each([
    ['Aucun délai', 'open', 0],
    ['AUCUN DELAI', 'open', 0],
    ["Ne s'applique pas", 'not-applicable', null],
    ['Ne s\u2019applique pas', 'not-applicable', null],
    ['Fermé', 'lanes-closed', null],
    ['1 heure 5 minutes', 'open', 65],
    ['2 heures', 'open', 120],
    ['1 minute', 'open', 1],
  ])('reads the French value %s as %s %s', (value, status, delayMinutes) => {
    const feed = parse(
      `${FR_HEADER}\n${row('Pont Peace', 'Fort Erie, ON/Buffalo, NY', '2026-10-03 13:20 HAE', value, '--')}\n`,
    );
    expect(reading(feed, '090101', 'commercial')).toMatchObject({ status, delayMinutes });
  });

  it('falls back to windows-1252 when the bytes are not valid UTF-8', () => {
    const text = `${FR_HEADER}\n${row('Pont des Mille-Îles', 'Lansdowne, ON/Alexandria Bay, NY', '2026-10-03 13:15 HAE', 'Ne s\u2019applique pas', 'Aucun délai')}\n`;
    const bytes = toWindows1252(text);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    const feed = parse(bytes);
    expect(feed.ports[0]).toMatchObject({
      portId: '070801',
      name: 'Pont des Mille-Îles',
      uncatalogued: false,
    });
    expect(reading(feed, '070801', 'commercial')).toMatchObject({
      status: 'not-applicable',
      delayMinutes: null,
    });
    expect(reading(feed, '070801', 'passenger')).toMatchObject({ status: 'open', delayMinutes: 0 });
  });

  it.each(['No delay', 'No Delay', 'NO DELAY', 'no delay'])('reads %s as open with 0 minutes', (value) => {
    const feed = parse(englishDoc(PEACE(value, value)));
    expect(feed.readings.map((r) => [r.status, r.delayMinutes])).toEqual([
      ['open', 0],
      ['open', 0],
    ]);
  });

  it.each(['Not applicable', 'Not Applicable'])('reads %s as not-applicable with no delay', (value) => {
    const feed = parse(englishDoc(PEACE(value, '3 minutes')));
    expect(reading(feed, '090101', 'commercial')).toMatchObject({
      status: 'not-applicable',
      delayMinutes: null,
      observedAt: '2026-10-03T17:20:00Z',
    });
  });

  it.each([
    ['MDT', '2022-07-07 18:02 MDT', '2022-07-08T00:02:00Z'],
    ['CST', '2026-10-03 11:15 CST', '2026-10-03T17:15:00Z'],
    ['CDT (never printed, still UTC-6)', '2026-10-03 11:15 CDT', '2026-10-03T17:15:00Z'],
  ])('reads North Portal labelled %s as UTC-6', (_label, updated, observedAt) => {
    const feed = parseCbsaCsv(
      englishDoc(row('North Portal', 'North Portal, SK/Portal, ND', updated, 'No Delay', '5 minutes')),
      {
        fetchedAt: Date.parse(observedAt) + 60_000,
      },
    );
    expect(feed.ports[0]?.portId).toBe('cbsa-north-portal');
    expect(feed.readings.map((r) => r.observedAt)).toEqual([observedAt, observedAt]);
  });

  it.each([
    ['1 hour 1 minute', 61],
    ['1 hour 10 minutes', 70],
    ['2 hours', 120],
    ['1 Hour', 60],
    ['10 minutes', 10],
    ['1 minute', 1],
  ])('reads %s as %d minutes', (value, minutes) => {
    const feed = parse(englishDoc(PEACE(value, '--')));
    expect(reading(feed, '090101', 'commercial')).toMatchObject({ status: 'open', delayMinutes: minutes });
  });

  it('turns unknown text into an unknown-value reject naming the text', () => {
    const feed = parse(englishDoc(PEACE('Temporarily closed', '4 minutes')));
    expect(reading(feed, '090101', 'commercial')).toBeUndefined();
    expect(reading(feed, '090101', 'passenger')?.delayMinutes).toBe(4);
    const reject = feed.rejects.find((r) => r.code === 'unknown-value');
    expect(reject).toMatchObject({
      portId: '090101',
      mode: 'commercial',
      lane: 'standard',
      direction: 'into-canada',
    });
    expect(reject?.reason).toContain('Temporarily closed');
  });

  it('refuses a delay over a day as implausible', () => {
    const feed = parse(englishDoc(PEACE('99999 minutes', '5 minutes')));
    expect(feed.rejects.find((r) => r.mode === 'commercial' && r.direction === 'into-canada')?.code).toBe(
      'implausible-delay',
    );
  });

  it('accounts for the two U.S.-bound columns as rejects, whatever their value', () => {
    const line = `Peace Bridge;; Fort Erie, ON/Buffalo, NY;; 2026-10-03 13:20 EDT;; No Delay;; 30 minutes;; 26 minutes;; --;; `;
    const feed = parse(englishDoc(line));
    const usBound = feed.rejects.filter((r) => r.code === 'us-bound-not-used');
    expect(usBound.map((r) => [r.direction, r.mode, r.portId])).toEqual([
      ['into-us', 'commercial', '090101'],
      ['into-us', 'passenger', '090101'],
    ]);
    expect(usBound[0]?.reason).toContain('30 minutes');
    expect(feed.readings.every((r) => r.direction === 'into-canada')).toBe(true);
  });

  it('maps Closed to lanes-closed with no delay, stamped with the row time', () => {
    const feed = parse(
      englishDoc(
        row('Ambassador Bridge', 'Windsor, ON/Detroit, MI', '2026-10-03 12:50 EDT', 'Closed', '1 minute'),
      ),
    );
    expect(reading(feed, '380001', 'commercial')).toMatchObject({
      status: 'lanes-closed',
      delayMinutes: null,
      lanesOpen: null,
      observedAt: '2026-10-03T16:50:00Z',
    });
  });

  it('keeps "--" as not-reported, never 0', () => {
    const feed = parse(englishDoc(PEACE('--', '--')));
    expect(feed.readings.map((r) => [r.status, r.delayMinutes])).toEqual([
      ['not-reported', null],
      ['not-reported', null],
    ]);
  });

  it('refuses a row stamped more than 10 minutes after the fetch, and accepts one within', () => {
    const late = parse(englishDoc(PEACE('No Delay', '5 minutes', '2026-10-03 13:41 EDT')));
    expect(late.readings).toEqual([]);
    expect(late.rejects.filter((r) => r.code === 'future-time')).toHaveLength(2);
    const skewed = parse(englishDoc(PEACE('No Delay', '5 minutes', '2026-10-03 13:40 EDT')));
    expect(skewed.readings).toHaveLength(2);
  });

  it('defaults the fetch time to now', () => {
    const feed = parseCbsaCsv(englishDoc(PEACE('No Delay', '5 minutes', '2999-01-01 00:00 EST')));
    expect(feed.rejects.filter((r) => r.code === 'future-time')).toHaveLength(2);
  });

  it.each([
    ['no zone', '2026-10-03 13:20'],
    ['an unknown zone', '2026-10-03 13:20 XYZ'],
    ['an impossible date', '2026-02-30 13:20 EST'],
    ['an impossible hour', '2026-10-03 25:20 EDT'],
    ['text', 'yesterday'],
  ])('rejects the readings of a row whose time has %s as bad-time', (_case, updated) => {
    const feed = parse(englishDoc(PEACE('No Delay', '5 minutes', updated)));
    expect(feed.readings).toEqual([]);
    expect(feed.rejects.filter((r) => r.code === 'bad-time').map((r) => r.mode)).toEqual([
      'commercial',
      'passenger',
    ]);
    expect(feed.ports).toHaveLength(1);
  });

  it('reads an office missing from the catalogue as uncatalogued cbsa-<slug>, never dropping it', () => {
    const feed = parse(
      englishDoc(
        row(
          'Lansdowne Ferry Île',
          'Wolfe Island, ON/Cape Vincent, NY',
          '2026-10-03 13:00 EDT',
          'No Delay',
          '3 minutes',
        ),
      ),
    );
    expect(feed.ports[0]).toMatchObject({
      portId: 'cbsa-lansdowne-ferry-ile',
      uncatalogued: true,
      name: 'Lansdowne Ferry Île',
    });
    expect(feed.readings.map((r) => r.portId)).toEqual([
      'cbsa-lansdowne-ferry-ile',
      'cbsa-lansdowne-ferry-ile',
    ]);
  });

  it('does not map an office by its name alone where the US city has several ports', () => {
    const feed = parse(
      englishDoc(
        row('Detroit Ferry', 'Windsor, ON/Detroit, MI', '2026-10-03 12:50 EDT', 'No Delay', 'No Delay'),
      ),
    );
    expect(feed.ports[0]).toMatchObject({ portId: 'cbsa-detroit-ferry', uncatalogued: true });
  });

  it('rejects a second row for the same port as duplicate-port', () => {
    const feed = parse(
      englishDoc(
        PEACE('No Delay', '5 minutes'),
        row(
          'Fort Erie (Peace Bridge)',
          'Fort Erie, ON/Buffalo, NY',
          '2026-10-03 13:25 EDT',
          '2 minutes',
          '9 minutes',
        ),
      ),
    );
    expect(feed.ports).toHaveLength(1);
    expect(feed.readings.map((r) => r.delayMinutes)).toEqual([0, 5]);
    expect(feed.rejects.filter((r) => r.code === 'duplicate-port')).toHaveLength(2);
    expectEveryRowAccounted(feed, 2);
  });

  it('rejects a malformed row as bad-row, four times, and reads the others', () => {
    const feed = parse(
      englishDoc(
        'Peace Bridge;; Fort Erie, ON/Buffalo, NY;; 2026-10-03 13:20 EDT;; No Delay;;',
        PEACE('No Delay', '5 minutes')
          .replace('Peace', 'Rainbow')
          .replace('Fort Erie, ON/Buffalo', 'Niagara Falls, ON/Niagara Falls'),
      ),
    );
    expect(feed.rejects.filter((r) => r.code === 'bad-row')).toHaveLength(4);
    expect(feed.readings).toHaveLength(2);
    expectEveryRowAccounted(feed, 2);
  });

  it.each([
    ['an empty string', ''],
    ['blank lines', '\n \r\n\t\n'],
    ['a BOM only', '\uFEFF'],
    ['plain text', 'hello world'],
    ['JSON', '[{"port_number":"250401"}]'],
    ['XML', "<?xml version='1.0'?><border_wait_time></border_wait_time>"],
    ['HTML', '<!DOCTYPE html><html><body><table id="bwttaf"></table></body></html>'],
    ['a comma CSV', 'Customs Office,Location,Last updated\nPeace Bridge,Buffalo,2026-10-03'],
    [
      'a header with a column missing',
      `${EN_HEADER.replace('Travellers Flow - U.S. bound;;', '')}\n${PEACE('No Delay', '1 minute')}`,
    ],
    ['a header alone', `${EN_HEADER}\n\n`],
    ['data without a header', `${PEACE('No Delay', '1 minute')}\n`],
  ])('throws FeedFormatError on %s', (_case, input) => {
    expect(() => parse(input)).toThrow(FeedFormatError);
  });

  it('throws FeedFormatError on empty bytes and on binary garbage', () => {
    expect(() => parse(new Uint8Array())).toThrow(FeedFormatError);
    expect(() => parse(Uint8Array.from([0x00, 0xff, 0xfe, 0x81, 0x3b, 0x3b, 0x0a]))).toThrow(FeedFormatError);
  });

  it('names the problem in the FeedFormatError message', () => {
    expect(() => parse('hello world')).toThrow(/header/);
    expect(() => parse(`${EN_HEADER}\n`)).toThrow(/no data row/);
    expect(() => parse('')).toThrow(/empty/);
  });
});

/** The two documents of the maplestats lines file: comment lines out, split at the French header. */
function maplestatsDocuments(): { english: string; french: string } {
  const text = readFileSync(
    `${capturesDir}cbsa-bwt-eng-fra-csv-lines__maplestats-mcp-test-fixture__2026-10-03__partial.txt`,
    'utf8',
  );
  const lines = text.split('\n').filter((line) => !line.startsWith('#'));
  const frenchAt = lines.findIndex((line) => line.startsWith("Bureau de l'ASFC"));
  return {
    english: `${lines.slice(0, frenchAt).join('\n')}\n`,
    french: `${lines.slice(frenchAt).join('\n')}\n`,
  };
}

describe.skipIf(!haveCaptures)('parseCbsaCsv on the real captures (shared/fixtures/feeds)', () => {
  const captures = haveCaptures
    ? [
        {
          name: 'gist 2012',
          text: readFileSync(
            `${capturesDir}cbsa-bwt-eng-csv__gist-bkilshaw-1367ba448ebbc17812a4__2012-09-27__partial.csv`,
            'utf8',
          ),
          fetchedAt: Date.parse('2012-09-27T19:05:00Z'),
          ports: ['011501', '011503', '010901', '010601', '020901', '021201', '071201', '070401'],
        },
        {
          name: 'maplestats EN',
          text: maplestatsDocuments().english,
          fetchedAt: FETCHED_2026,
          ports: ['011501', '090101', '380001', 'cbsa-north-portal'],
        },
        {
          name: 'maplestats FR',
          text: maplestatsDocuments().french,
          fetchedAt: FETCHED_2026,
          ports: ['090101', '070801'],
        },
      ]
    : [];

  it.each(captures)('accounts for every row of the $name capture', ({ text, fetchedAt, ports }) => {
    const feed = parseCbsaCsv(text, { fetchedAt });
    const rows = dataRowCount(text);
    expect(rows).toBe(ports.length);
    expectEveryRowAccounted(feed, rows);
    expect(feed.ports.map((port) => port.portId)).toEqual(ports);
    expect(feed.rejects.filter((r) => r.code !== 'us-bound-not-used')).toEqual([]);
    expect(feed.readings.every((r) => r.observedAt !== null && Date.parse(r.observedAt) <= fetchedAt)).toBe(
      true,
    );
  });

  it.each([
    ['maplestats EN', 'Peace Bridge travellers', '090101', 'passenger', 'open', 26, '2026-10-03T17:20:00Z'],
    ['maplestats EN', 'Peace Bridge commercial', '090101', 'commercial', 'open', 0, '2026-10-03T17:20:00Z'],
    [
      'maplestats EN',
      'North Portal 11:15 CST',
      'cbsa-north-portal',
      'passenger',
      'open',
      0,
      '2026-10-03T17:15:00Z',
    ],
    [
      'maplestats EN',
      'Ambassador Bridge commercial Closed',
      '380001',
      'commercial',
      'lanes-closed',
      null,
      '2026-10-03T16:50:00Z',
    ],
    [
      'maplestats EN',
      'Ambassador Bridge travellers',
      '380001',
      'passenger',
      'open',
      1,
      '2026-10-03T16:50:00Z',
    ],
    [
      'maplestats EN',
      'St. Stephen commercial Not Applicable',
      '011501',
      'commercial',
      'not-applicable',
      null,
      '2026-10-03T16:54:00Z',
    ],
    [
      'maplestats FR',
      'Pont Peace commercial Aucun délai',
      '090101',
      'commercial',
      'open',
      0,
      '2026-10-03T17:20:00Z',
    ],
    [
      'maplestats FR',
      'Pont des Mille-Îles commercial',
      '070801',
      'commercial',
      'not-applicable',
      null,
      '2026-10-03T17:15:00Z',
    ],
    ['gist 2012', 'St. Stephen travellers', '011501', 'passenger', 'open', 10, '2012-09-27T18:52:00Z'],
    [
      'gist 2012',
      'St.Stephen 3rd Bridge commercial',
      '011503',
      'commercial',
      'open',
      0,
      '2012-09-27T19:00:00Z',
    ],
    ['gist 2012', 'Cornwall travellers', '070401', 'passenger', 'open', 0, '2012-09-27T18:52:00Z'],
  ] as const)('reads %s %s', (capture, _what, portId, mode, status, delayMinutes, observedAt) => {
    const source = captures.find((c) => c.name === capture);
    expect(source).toBeDefined();
    if (!source) return;
    const feed = parseCbsaCsv(source.text, { fetchedAt: source.fetchedAt });
    expect(reading(feed, portId, mode)).toMatchObject({ status, delayMinutes, observedAt });
  });
});

describe('parseCbsaCsv: properties', () => {
  const RUNS = { numRuns: 300 };
  const valid = new TextDecoder().decode(readFixture('bwt-eng.csv'));

  function throwsOnlyFeedFormatError(input: Uint8Array | string): boolean {
    try {
      const feed = parse(input);
      return Array.isArray(feed.readings) && Array.isArray(feed.rejects);
    } catch (error: unknown) {
      return error instanceof FeedFormatError;
    }
  }

  it('throws nothing but FeedFormatError on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), throwsOnlyFeedFormatError), RUNS);
  });

  it('throws nothing but FeedFormatError on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), throwsOnlyFeedFormatError), RUNS);
  });

  it('throws nothing but FeedFormatError on arbitrary bytes after a valid header', () => {
    const header = new TextEncoder().encode(`\uFEFF${EN_HEADER}\n`);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (tail) =>
        throwsOnlyFeedFormatError(new Uint8Array([...header, ...tail])),
      ),
      RUNS,
    );
  });

  const mutation: fc.Arbitrary<Edit> = fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      text: fc.string({ unit: 'binary', maxLength: 8 }),
    }),
    fc.record({
      kind: fc.constant('delete' as const),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 12 }),
    }),
    fc.record({
      kind: fc.constant('separator' as const),
      at: fc.nat(),
      text: fc.constantFrom(';;', ';', '\n', '\r\n', ';; ', '', '--', '1 hour', '\uFEFF'),
    }),
  );

  type Edit =
    | { kind: 'insert' | 'separator'; at: number; text: string }
    | { kind: 'delete'; at: number; length: number };

  function mutate(text: string, edits: readonly Edit[]): string {
    let out = text;
    for (const edit of edits) {
      const at = edit.at % (out.length + 1);
      out =
        edit.kind === 'delete'
          ? out.slice(0, at) + out.slice(at + edit.length)
          : out.slice(0, at) + edit.text + out.slice(at);
    }
    return out;
  }

  it('survives mutations of a valid document: only FeedFormatError, or every row accounted for', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (edits) => {
        const text = mutate(valid, edits);
        let feed: ParsedFeed;
        try {
          feed = parse(text);
        } catch (error: unknown) {
          return error instanceof FeedFormatError;
        }
        return feed.readings.length + feed.rejects.length === 4 * dataRowCount(text);
      }),
      RUNS,
    );
  });

  /** Numbers in the text, and the minute totals an hour phrase can make of two of them. */
  function allowedDelays(text: string): Set<number> {
    const numbers = [...text.matchAll(/\d+/g)].map((match) => Number(match[0]));
    const allowed = new Set<number>([0, ...numbers]);
    for (const hours of numbers) {
      allowed.add(hours * 60);
      for (const minutes of numbers) allowed.add(hours * 60 + minutes);
    }
    return allowed;
  }

  const waitValue = fc.oneof(
    fc.constantFrom(
      'No delay',
      'No Delay',
      'Aucun délai',
      'Not applicable',
      "Ne s'applique pas",
      'Closed',
      'Fermé',
      '--',
    ),
    fc.nat({ max: 600 }).map((n) => `${n} minute${n === 1 ? '' : 's'}`),
    fc
      .tuple(fc.nat({ max: 30 }), fc.nat({ max: 59 }))
      .map(([h, m]) => `${h} hour${h === 1 ? '' : 's'} ${m} minutes`),
    fc
      .tuple(fc.nat({ max: 30 }), fc.nat({ max: 59 }))
      .map(([h, m]) => `${h} heure${h === 1 ? '' : 's'} ${m} minutes`),
    fc.string({ maxLength: 12 }),
  );

  it('produces delays only from numbers in the text, 0 from a no-delay phrase, or an hour sum', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(waitValue, waitValue), { minLength: 1, maxLength: 8 }), (values) => {
        const text = englishDoc(...values.map(([commercial, travellers]) => PEACE(commercial, travellers)));
        const feed = parse(text);
        const allowed = allowedDelays(text);
        return feed.readings.every(
          (r) =>
            r.delayMinutes === null ||
            (Number.isInteger(r.delayMinutes) &&
              r.delayMinutes >= 0 &&
              allowed.has(r.delayMinutes) &&
              r.status === 'open'),
        );
      }),
      RUNS,
    );
  });

  it('never invents a delay for a value that is not a wait', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('Not applicable', "Ne s'applique pas", 'Closed', 'Fermé', '--'),
        fc.string({ maxLength: 12 }),
        (fixed, noise) => {
          const feed = parse(englishDoc(PEACE(fixed, noise.replace(/\d/g, ''))));
          return feed.readings.every((r) =>
            r.mode === 'commercial'
              ? r.delayMinutes === null
              : r.delayMinutes === null || r.delayMinutes === 0,
          );
        },
      ),
      RUNS,
    );
  });
});
