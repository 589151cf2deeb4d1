/**
 * The feed parsers behind one entry point: tell a document's format, then parse it into
 * port snapshots, readings and rejects (`ParsedFeed`).
 */
import { FeedFormatError } from '../errors.ts';
import type { FeedFormat, ParsedFeed } from '../model.ts';
import { parseCbpJson } from './cbp-json.ts';
import { parseCbpXml } from './cbp-xml.ts';
import { parseCbsaCsv } from './cbsa-csv.ts';

export { parseCbpJson } from './cbp-json.ts';
export {
  type CbpLaneStatus,
  type CbpParseOptions,
  type CbpUpdateTime,
  CLOCK_TOLERANCE_MS,
  classifyCbpBorder,
  classifyCbpLaneStatus,
  classifyCbpPortStatus,
  parseCbpDelay,
  parseUpdateTime,
  resolveObservedAt,
} from './cbp-lanes.ts';
export { decodeXml, parseCbpXml } from './cbp-xml.ts';
export { type ParseCbsaCsvOptions, parseCbsaCsv } from './cbsa-csv.ts';

/** Options of {@link parseFeed}. */
export interface ParseFeedOptions {
  /** When the document was fetched (epoch ms); default `Date.now()`. */
  fetchedAt?: number;
}

/** The first characters of a document, for sniffing (bytes read as Latin-1, which never fails). */
function headOf(input: Uint8Array | string): string {
  const head =
    typeof input === 'string'
      ? input.slice(0, 1024)
      : new TextDecoder('windows-1252').decode(input.subarray(0, 1024));
  // A UTF-8 byte order mark reads as "ï»¿" in Latin-1 and as U+FEFF in text.
  return head.replace(/^(?:\uFEFF|\u00EF\u00BB\u00BF)/, '').trimStart();
}

/**
 * The format of a feed document. The content decides (CBP serves JSON and XML under
 * unreliable content types): `<` is CBP XML, `{` or `[` CBP JSON, a first line split by `;;` the
 * CBSA CSV. The `Content-Type` only breaks the tie when the content says nothing.
 * @throws FeedFormatError when neither tells.
 */
export function detectFormat(input: Uint8Array | string, contentType?: string): FeedFormat {
  const head = headOf(input);
  if (head.startsWith('<')) return 'cbp-xml';
  if (head.startsWith('{') || head.startsWith('[')) return 'cbp-json';
  const firstLine = head.split(/\r?\n/, 1)[0] ?? '';
  if (firstLine.includes(';;')) return 'cbsa-csv';
  const type = contentType?.toLowerCase() ?? '';
  if (type.includes('xml')) return 'cbp-xml';
  if (type.includes('json')) return 'cbp-json';
  if (type.includes('csv')) return 'cbsa-csv';
  throw new FeedFormatError(
    `cannot tell the feed format (content starts ${JSON.stringify(head.slice(0, 20))}, content type ${JSON.stringify(contentType ?? '')})`,
  );
}

/**
 * Parses a document of a known format.
 * @throws FeedFormatError when the document is wholly unusable; partial failures are rejects.
 */
export function parseFeed(
  input: Uint8Array | string,
  format: FeedFormat,
  options: ParseFeedOptions = {},
): ParsedFeed {
  switch (format) {
    case 'cbp-xml':
      return parseCbpXml(input, options);
    case 'cbp-json':
      return parseCbpJson(input, options);
    case 'cbsa-csv':
      return parseCbsaCsv(input, options);
  }
}
