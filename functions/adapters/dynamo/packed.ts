/**
 * The large values of the forecasts table (a port's track record and its issued forecasts), stored
 * as one binary attribute: the value's JSON, deflated. As DynamoDB maps they are tens to hundreds
 * of kilobytes of nested attributes that the SDK converts number by number, on every slot, for
 * every port (a slot reads each port's record, its settled window and the 27 issues aimed at the
 * due target; it writes the record and a new issue); deflated JSON is about a fifth of the bytes
 * (DynamoDB bills reads per 4 KB and writes per 1 KB of item) and is read back by one inflate and
 * one `JSON.parse`. Items written before are maps: {@link unpackedOr} reads either.
 *
 * (De)compression runs on libuv's thread pool, so one port's inflate overlaps another port's work.
 */
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** zlib's level: most of the default level's reduction (measured on records: 3.6 MB against 3.1 MB) at half its time. */
const LEVEL = 3;

/** `value` as stored: its JSON, deflated (raw deflate, no header). */
export async function pack(value: unknown): Promise<Uint8Array> {
  return deflate(JSON.stringify(value), { level: LEVEL });
}

/** The value {@link pack} stored. */
export async function unpack<T>(bytes: Uint8Array): Promise<T> {
  return JSON.parse((await inflate(bytes)).toString('utf8')) as T;
}

/**
 * The value of an item that holds it packed under `packedName` (what this code writes), or as a
 * map under `mapName` (items written before), else `fallback`.
 */
export async function unpackedOr<T>(
  item: Record<string, unknown>,
  packedName: string,
  mapName: string,
  fallback: T,
): Promise<T> {
  const packed = item[packedName];
  if (packed instanceof Uint8Array) return unpack<T>(packed);
  return (item[mapName] as T | undefined) ?? fallback;
}
