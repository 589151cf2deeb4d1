/**
 * CBP `bwt.xml` (feeds.md section 1): `<border_wait_time>` with a header in US Eastern time and
 * one `<port>` element per port. Elements are read by name, values kept as text.
 */
import { XMLParser } from 'fast-xml-parser';
import { FeedFormatError } from '../errors.ts';
import type { ParsedFeed } from '../model.ts';
import {
  type CbpParseOptions,
  CLOCK_TOLERANCE_MS,
  cbpValue,
  normalizeCbpDocument,
  parseCbpHeaderTime,
  parsePortCount,
} from './cbp-lanes.ts';

const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Values stay text: `070801` keeps its leading zero and `l24501` is not a number (quirk 1).
  parseTagValue: false,
  trimValues: true,
  // Numeric character references (`&#233;`) are XML; fast-xml-parser decodes them only with this.
  htmlEntities: true,
  isArray: (tagName) => tagName === 'port',
});

/** Labels that mean Latin-1; WHATWG decodes them all as windows-1252, a superset. */
const LATIN1_LABELS = new Set([
  'iso-8859-1',
  'iso8859-1',
  'iso_8859-1',
  'latin1',
  'l1',
  'windows-1252',
  'cp1252',
]);

/**
 * Bytes to text honouring the XML declaration: `bwt.xml` declares ISO-8859-1, and a
 * `construction_notice` may carry Latin-1 bytes, so it is not UTF-8 (feeds.md 1.1). Without a
 * declaration (or with one this runtime cannot decode) the XML default, UTF-8, applies.
 */
export function decodeXml(input: Uint8Array | string): string {
  if (typeof input === 'string') return input.replace(/^\uFEFF/, '');
  const head = new TextDecoder('windows-1252').decode(input.subarray(0, 256));
  const declared = /^(?:\u00EF\u00BB\u00BF)?\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(
    head,
  )?.[1];
  const label = declared?.toLowerCase();
  let encoding = 'utf-8';
  if (label !== undefined && LATIN1_LABELS.has(label)) {
    encoding = 'windows-1252';
  } else if (label !== undefined && !label.startsWith('utf-16')) {
    try {
      encoding = new TextDecoder(label).encoding;
    } catch {
      encoding = 'utf-8';
    }
  }
  return new TextDecoder(encoding).decode(input);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Parses CBP `bwt.xml`. `generatedAt` comes from `last_updated_date`/`last_updated_time` (US
 * Eastern, unpadded), `declaredPortCount` from `number_of_ports`.
 *
 * The XML is read leniently: a local flaw (a bare `&` in a free-text construction notice) costs at
 * most that value, not the document. What makes a document unusable, and throws
 * `FeedFormatError`: it does not end with `</border_wait_time>` (truncated, or another document),
 * the parser gives up, or no port has a port number.
 */
export function parseCbpXml(input: Uint8Array | string, options?: CbpParseOptions): ParsedFeed {
  const text = decodeXml(input);
  if (!/<\/border_wait_time\s*>\s*$/.test(text.slice(-200))) {
    const start = JSON.stringify(text.trimStart().slice(0, 40));
    throw new FeedFormatError(
      `not a complete bwt.xml: it does not end with </border_wait_time> (starts ${start})`,
    );
  }
  let tree: unknown;
  try {
    tree = parser.parse(text);
  } catch (error: unknown) {
    throw new FeedFormatError(`XML could not be parsed: ${message(error)}`);
  }
  const root =
    tree !== null && typeof tree === 'object' && Object.hasOwn(tree, 'border_wait_time')
      ? (tree as { border_wait_time: unknown }).border_wait_time
      : undefined;
  if (root === undefined) {
    const found = tree !== null && typeof tree === 'object' ? Object.keys(tree)[0] : undefined;
    throw new FeedFormatError(`no <border_wait_time> root element${found ? ` (found <${found}>)` : ''}`);
  }
  const field = (key: string): unknown =>
    root !== null && typeof root === 'object' && Object.hasOwn(root, key)
      ? (root as Record<string, unknown>)[key]
      : undefined;
  const ports = field('port');
  if (!Array.isArray(ports) || ports.length === 0)
    throw new FeedFormatError('<border_wait_time> has no <port>');
  return normalizeCbpDocument(
    {
      format: 'cbp-xml',
      generatedAt: parseCbpHeaderTime(
        cbpValue(field('last_updated_date')),
        cbpValue(field('last_updated_time')),
        (options?.fetchedAt ?? Date.now()) + CLOCK_TOLERANCE_MS,
      ),
      declaredPortCount: parsePortCount(cbpValue(field('number_of_ports'))),
      ports,
    },
    options,
  );
}
