import { describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../../../functions/core/errors.ts';
import { detectFormat, parseFeed } from '../../../../functions/core/feeds/index.ts';
import { at, ownFixture } from './cbp-fixtures.ts';

const CSV_HEADER =
  'Customs Office;; Location;; Last updated;; Commercial Flow - Canada bound;; Commercial Flow - U.S. bound;; Travellers Flow - Canada bound;; Travellers Flow - U.S. bound;;';
const CSV = `\uFEFF${CSV_HEADER}\nPeace Bridge;; Fort Erie, ON/Buffalo, NY;; 2026-10-03 13:20 EDT;; No Delay;; --;; 26 minutes;; --;; \n`;
const utf8 = (text: string) => new TextEncoder().encode(text);
/** A single port object, as bwtpublicmod/{n} answers: the first port of the hand-written array. */
const SINGLE_PORT = JSON.stringify(JSON.parse(new TextDecoder().decode(ownFixture('bwtnew-quirks.json')))[0]);

describe('detectFormat', () => {
  it.each([
    ['CBP XML bytes', ownFixture('bwt-quirks.xml'), undefined, 'cbp-xml'],
    ['CBP JSON array bytes', ownFixture('bwtnew-quirks.json'), undefined, 'cbp-json'],
    ['a CBP JSON object', SINGLE_PORT, undefined, 'cbp-json'],
    ['the PHP conversion', ownFixture('bwt-php.json'), undefined, 'cbp-json'],
    ['CBSA CSV with a byte order mark', utf8(CSV), undefined, 'cbsa-csv'],
    ['CBSA CSV as text', CSV, undefined, 'cbsa-csv'],
    ['XML after white space', '\r\n  <?xml version="1.0"?><border_wait_time/>', undefined, 'cbp-xml'],
    ['JSON served as text/html', '[{"port_number":"070801"}]', 'text/html', 'cbp-json'],
    ['XML served as application/json', '<border_wait_time/>', 'application/json', 'cbp-xml'],
    ['silent content typed XML', 'oops', 'application/xml; charset=ISO-8859-1', 'cbp-xml'],
    ['silent content typed JSON', 'oops', 'application/json', 'cbp-json'],
    ['silent content typed CSV', 'oops', 'text/csv', 'cbsa-csv'],
  ])('tells %s apart', (_name, input, contentType, format) => {
    expect(detectFormat(input, contentType)).toBe(format);
  });

  it.each([
    ['empty text', '', undefined],
    ['plain text', 'Service Unavailable', 'text/plain'],
    ['empty bytes', new Uint8Array(), undefined],
  ])('throws FeedFormatError for %s', (_name, input, contentType) => {
    expect(() => detectFormat(input, contentType)).toThrow(FeedFormatError);
  });
});

describe('parseFeed', () => {
  it('dispatches cbp-xml to the XML parser with its options', () => {
    const feed = parseFeed(ownFixture('bwt-quirks.xml'), 'cbp-xml', {
      fetchedAt: at('2023-11-10T06:55:05Z'),
    });
    expect(feed).toMatchObject({ source: 'cbp', format: 'cbp-xml', declaredPortCount: 12 });
  });

  it('dispatches cbp-json to the JSON parser', () => {
    const feed = parseFeed(ownFixture('bwtnew-quirks.json'), 'cbp-json', {
      fetchedAt: at('2022-06-29T17:25:15Z'),
    });
    expect(feed).toMatchObject({ source: 'cbp', format: 'cbp-json', generatedAt: '2022-06-29T17:25:16Z' });
  });

  it('dispatches cbsa-csv to the CBSA parser', () => {
    const feed = parseFeed(utf8(CSV), 'cbsa-csv', { fetchedAt: at('2026-10-03T17:30:00Z') });
    expect(feed).toMatchObject({ source: 'cbsa', format: 'cbsa-csv' });
  });

  it('detects then parses in one go', () => {
    const bytes = ownFixture('bwt-php.json');
    expect(parseFeed(bytes, detectFormat(bytes, 'text/html')).ports).toHaveLength(4);
  });

  it('throws FeedFormatError when the format is wrong for the document', () => {
    expect(() => parseFeed(ownFixture('bwtnew-quirks.json'), 'cbp-xml')).toThrow(FeedFormatError);
    expect(() => parseFeed(ownFixture('bwt-quirks.xml'), 'cbp-json')).toThrow(FeedFormatError);
  });
});
