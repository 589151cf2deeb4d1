/**
 * Table-driven over the real CBP captures of `../shared/fixtures/feeds/` (read in place, never
 * copied). Each capture is parsed with fetchedAt pinned to its own time: the header, or the HTTP
 * date in the file name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../../../functions/core/errors.ts';
import { parseCbpJson } from '../../../../functions/core/feeds/cbp-json.ts';
import { parseCbpXml } from '../../../../functions/core/feeds/cbp-xml.ts';
import type { ParsedFeed, Reading } from '../../../../functions/core/model.ts';
import {
  at,
  lanesPerPort,
  readingOf,
  sharedFeedsDir,
  sharedFeedsMissing,
  sharedFeedsPresent,
} from './cbp-fixtures.ts';

/** A spot value: the reading of one port lane, as far as given. */
type Spot = [portId: string, mode: string, lane: string, expected: Partial<Reading>, why: string];

interface Capture {
  file: string;
  format: 'xml' | 'json';
  fetchedAt: string;
  generatedAt: string;
  spots: Spot[];
}

const CAPTURES: Capture[] = [
  {
    file: 'cbp-bwt-xml__rkrdo-api-laredo-bridges__2014-03-15.xml',
    format: 'xml',
    fetchedAt: '2014-03-15T19:25:59Z',
    generatedAt: '2014-03-15T19:25:59Z',
    spots: [
      [
        '230401',
        'passenger',
        'standard',
        { status: 'open', delayMinutes: 95, lanesOpen: 4 },
        '2014 "1 hrs 35 min"',
      ],
      ['300401', 'passenger', 'standard', { observedAt: '2014-03-15T19:00:00Z' }, '"At Noon PDT"'],
      ['l24501', 'passenger', 'standard', { source: 'cbp' }, 'l24501 kept as a string'],
    ],
  },
  {
    file: 'cbp-bwt-xml__reaktivo-border-wait__2014-04-28.xml',
    format: 'xml',
    fetchedAt: '2014-04-29T01:41:01Z',
    generatedAt: '2014-04-29T01:41:01Z',
    spots: [['l24501', 'commercial', 'standard', { direction: 'into-us' }, 'l24501 kept as a string']],
  },
  {
    file: 'cbp-bwt-xml__fastmode-border_wait__2017-03-17.xml',
    format: 'xml',
    fetchedAt: '2017-03-17T04:31:39Z',
    generatedAt: '2017-03-17T04:31:39Z',
    spots: [
      [
        '090104',
        'passenger',
        'standard',
        { status: 'open', observedAt: '2017-03-17T04:31:00Z' },
        '"At 0:31 am EDT"',
      ],
    ],
  },
  {
    file: 'cbp-bwt-xml__AaronV4ldez-BackOfficePhp__2022-10-17.xml',
    format: 'xml',
    fetchedAt: '2022-10-18T01:14:36Z',
    generatedAt: '2022-10-18T01:14:36Z',
    spots: [
      [
        '250401',
        'passenger',
        'standard',
        { status: 'open', delayMinutes: 70, lanesOpen: 6, observedAt: '2022-10-18T01:00:00Z' },
        'San Ysidro "At 6:00 pm PDT"',
      ],
      ['240201', 'passenger', 'standard', { observedAt: '2022-10-18T01:00:00Z' }, 'El Paso "At 7:00 pm MDT"'],
      [
        '260101',
        'passenger',
        'standard',
        { delayMinutes: 35, observedAt: '2022-10-18T01:00:00Z' },
        'Douglas "At 6:00 pm PST" is Arizona time',
      ],
      ['l24501', 'passenger', 'standard', { status: 'open' }, 'l24501 kept as a string'],
    ],
  },
  {
    file: 'cbp-bwt-xml2json-php__AaronV4ldez-BackOfficePhp__2023-11-10.json',
    format: 'json',
    fetchedAt: '2023-11-10T06:55:05Z',
    generatedAt: '2023-11-10T06:55:05Z',
    spots: [
      [
        '020901',
        'passenger',
        'standard',
        { observedAt: '2023-11-09T12:00:00Z' },
        'Derby Line "At 7:00 am EST" rolls back',
      ],
      [
        '340101',
        'commercial',
        'standard',
        { observedAt: '2023-11-10T06:00:00Z' },
        'Pembina "At Midnight CST"',
      ],
      [
        '240301',
        'passenger',
        'standard',
        { delayMinutes: 10, observedAt: '2023-11-10T06:00:00Z' },
        'Presidio "At Midnight CST"',
      ],
      [
        '010601',
        'passenger',
        'standard',
        { observedAt: '2023-11-10T05:00:00Z' },
        'Houlton "At Midnight EST"',
      ],
      [
        'L01901',
        'passenger',
        'standard',
        { status: 'update-pending', delayMinutes: null },
        'L01901 kept as a string',
      ],
      [
        '240801',
        'passenger',
        'standard',
        { status: 'port-closed', delayMinutes: null },
        'closed Santa Teresa',
      ],
    ],
  },
  {
    file: 'cbp-api-bwtnew__WSDOT-GIS-border-crossings__2022-06-29T1725Z.json',
    format: 'json',
    fetchedAt: '2022-06-29T17:25:00Z',
    generatedAt: '2022-06-29T17:25:16Z',
    spots: [
      [
        '011501',
        'passenger',
        'standard',
        { observedAt: '2022-06-28T19:00:00Z' },
        'Calais "At 3:00 pm EDT" rolls back',
      ],
      [
        '360401',
        'passenger',
        'standard',
        { observedAt: '2022-06-28T19:00:00Z' },
        'Intl Falls "At 2:00 pm CDT" rolls back',
      ],
      ['260101', 'passenger', 'standard', { observedAt: '2022-06-29T15:00:00Z' }, 'Douglas "At 8:00 am PST"'],
    ],
  },
  {
    file: 'cbp-api-bwtpublicmod__WSDOT-GIS-border-crossings-postman__2022-07-01T0031Z.json',
    format: 'json',
    fetchedAt: '2022-07-01T00:31:00Z',
    generatedAt: '2022-07-01T00:32:00Z',
    spots: [
      [
        '250401',
        'passenger',
        'standard',
        { delayMinutes: 110, lanesOpen: 6, observedAt: '2022-06-30T22:00:00Z' },
        'San Ysidro',
      ],
      ['011502', 'passenger', 'standard', { status: 'port-closed' }, 'closed Calais Milltown'],
    ],
  },
  {
    file: 'cbp-api-bwtpublicmod-300401__WSDOT-GIS-border-crossings-postman__2022-07-01T0042Z.json',
    format: 'json',
    fetchedAt: '2022-07-01T00:42:00Z',
    generatedAt: '2022-07-01T00:42:13Z',
    spots: [
      [
        '300401',
        'commercial',
        'standard',
        { status: 'open', delayMinutes: 20, lanesOpen: 2, maxLanes: 3, observedAt: '2022-07-01T00:00:00Z' },
        'Blaine "At 5:00 pm PDT"',
      ],
      [
        '300401',
        'commercial',
        'fast',
        { status: 'lanes-closed', delayMinutes: null, lanesOpen: null },
        'Lanes Closed',
      ],
    ],
  },
];

function parse(capture: Capture, bytes: Uint8Array): ParsedFeed {
  const options = { fetchedAt: at(capture.fetchedAt) };
  return capture.format === 'xml' ? parseCbpXml(bytes, options) : parseCbpJson(bytes, options);
}

/** The document's own port count, read without the parser: number_of_ports, else the array length. */
function ownCount(capture: Capture, bytes: Uint8Array): number {
  const text = new TextDecoder('latin1').decode(bytes);
  if (capture.format === 'xml') return Number(/<number_of_ports>(\d+)<\/number_of_ports>/.exec(text)?.[1]);
  const value: unknown = JSON.parse(text);
  if (Array.isArray(value)) return value.length;
  const header = value as { number_of_ports?: string };
  return header.number_of_ports === undefined ? 1 : Number(header.number_of_ports);
}

describe.skipIf(!sharedFeedsPresent)(
  `real CBP captures (${sharedFeedsPresent ? sharedFeedsDir : sharedFeedsMissing})`,
  () => {
    describe.each(CAPTURES)('$file', (capture) => {
      // Read in beforeAll, not while collecting: a skipped suite is still collected.
      let bytes: Uint8Array;
      let feed: ParsedFeed;
      beforeAll(() => {
        bytes = readFileSync(join(sharedFeedsDir, capture.file));
        feed = parse(capture, bytes);
      });

      it('reads as many ports as the document itself counts', () => {
        expect(feed.ports).toHaveLength(ownCount(capture, bytes));
        if (capture.file.includes('2022-10-17')) expect(feed.declaredPortCount).toBe(77);
      });

      it('accounts for the 7 lanes of every port, with no reject', () => {
        for (const count of lanesPerPort(feed).values()) expect(count).toBe(7);
        expect(feed.readings).toHaveLength(7 * feed.ports.length);
        expect(feed.rejects).toEqual([]);
      });

      it('takes the generation time from the document', () => {
        expect(feed.generatedAt).toBe(capture.generatedAt);
      });

      it('finds every port in the catalogue', () => {
        expect(feed.ports.filter((p) => p.uncatalogued).map((p) => p.portId)).toEqual([]);
      });

      it('never gives a lane without data a number or a time, and every open lane both', () => {
        for (const reading of feed.readings) {
          if (reading.status === 'open') {
            expect(reading.delayMinutes).toBeTypeOf('number');
            expect(reading.observedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
            expect(Date.parse(reading.observedAt ?? '')).toBeLessThanOrEqual(at(capture.fetchedAt) + 600_000);
          } else {
            expect(reading).toMatchObject({ delayMinutes: null, lanesOpen: null, observedAt: null });
          }
        }
      });

      it.each(capture.spots)('reads %s %s %s as %o (%s)', (portId, mode, lane, expected) => {
        expect(readingOf(feed, portId, mode, lane)).toMatchObject(expected);
      });
    });

    it('keeps port numbers as strings: 070801 with its zero, l24501 and L01901', () => {
      const bytes = readFileSync(
        join(sharedFeedsDir, 'cbp-bwt-xml2json-php__AaronV4ldez-BackOfficePhp__2023-11-10.json'),
      );
      const ids = parseCbpJson(bytes, { fetchedAt: at('2023-11-10T06:55:05Z') }).ports.map((p) => p.portId);
      expect(ids).toEqual(expect.arrayContaining(['070801', 'l24501', 'L01901']));
    });

    it('overrides every lane of the closed ports of 2023-11-10, whose stale readings stay in the feed', () => {
      const bytes = readFileSync(
        join(sharedFeedsDir, 'cbp-bwt-xml2json-php__AaronV4ldez-BackOfficePhp__2023-11-10.json'),
      );
      const feed = parseCbpJson(bytes, { fetchedAt: at('2023-11-10T06:55:05Z') });
      const closed = feed.ports.filter((p) => p.portStatus === 'closed').map((p) => p.portId);
      expect(closed).toEqual(expect.arrayContaining(['240801', '240401', '260402', '260802']));
      for (const reading of feed.readings.filter((r) => closed.includes(r.portId))) {
        expect(reading).toMatchObject({
          status: 'port-closed',
          delayMinutes: null,
          lanesOpen: null,
          observedAt: null,
        });
      }
    });

    it('throws FeedFormatError for the truncated api/waittimes sample', () => {
      const bytes = readFileSync(
        join(
          sharedFeedsDir,
          'cbp-api-waittimes__hannanbaig347-border-wait-time-analytics-fabric-powerbi__2026-08-02__truncated.json',
        ),
      );
      expect(() => parseCbpJson(bytes, { fetchedAt: at('2026-08-02T12:00:00Z') })).toThrow(FeedFormatError);
    });
  },
);
