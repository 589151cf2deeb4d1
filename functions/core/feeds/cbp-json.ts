/**
 * CBP's JSON (feeds.md section 2): the `bwtnew`/`bwtpublicmod`/`waittimes` top-level port arrays,
 * the single port object of `bwtpublicmod/{n}`, and the PHP `json_encode(simplexml)` conversion of
 * `bwt.xml` (`{ last_updated_date, last_updated_time, number_of_ports, port: [...] }`, empty
 * elements as `{}`). The API shapes have no header: their generation time comes from the ports'
 * own `date`+`time`.
 */
import { FeedFormatError } from '../errors.ts';
import type { ParsedFeed } from '../model.ts';
import {
  type CbpDocument,
  type CbpParseOptions,
  CLOCK_TOLERANCE_MS,
  cbpValue,
  normalizeCbpDocument,
  parseCbpHeaderTime,
  parsePortCount,
} from './cbp-lanes.ts';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function toJsonValue(input: unknown): unknown {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return input;
  const text = typeof input === 'string' ? input : new TextDecoder('utf-8').decode(input);
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error: unknown) {
    // A truncated document (the 2026 `waittimes` sample is cut off at 4370 bytes) lands here.
    throw new FeedFormatError(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function documentOf(value: unknown, notAfterMs: number): Omit<CbpDocument, 'format'> {
  if (Array.isArray(value)) {
    if (value.length === 0) throw new FeedFormatError('CBP JSON array has no port');
    return { generatedAt: 'ports', declaredPortCount: null, ports: value };
  }
  if (isObject(value) && Object.hasOwn(value, 'port')) {
    // simplexml makes a lone <port> an object rather than a one-element array.
    const ports = Array.isArray(value.port) ? value.port : [value.port];
    const header = parseCbpHeaderTime(
      cbpValue(value.last_updated_date),
      cbpValue(value.last_updated_time),
      notAfterMs,
    );
    return {
      generatedAt: header ?? 'ports',
      declaredPortCount: parsePortCount(cbpValue(value.number_of_ports)),
      ports,
    };
  }
  if (isObject(value) && Object.hasOwn(value, 'port_number')) {
    return { generatedAt: 'ports', declaredPortCount: null, ports: [value] };
  }
  throw new FeedFormatError('JSON is neither a CBP port array, a CBP port object nor a converted bwt.xml');
}

/**
 * Parses CBP JSON: bytes, text, or an already parsed value. Throws `FeedFormatError` only when it
 * is not JSON (a truncated document included), has none of the known shapes, or has no port.
 */
export function parseCbpJson(input: Uint8Array | string | unknown, options?: CbpParseOptions): ParsedFeed {
  return normalizeCbpDocument(
    {
      format: 'cbp-json',
      ...documentOf(toJsonValue(input), (options?.fetchedAt ?? Date.now()) + CLOCK_TOLERANCE_MS),
    },
    options,
  );
}
