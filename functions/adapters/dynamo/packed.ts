/**
 * The large values of the forecasts table (a port's track record and its issued forecasts), stored
 * as one binary attribute: the value's JSON, compressed with Brotli. As DynamoDB maps they are
 * tens to hundreds of kilobytes of nested attributes that the SDK converts number by number, on
 * every slot, for every port (a slot reads each port's record, its settled window and the 27
 * issues aimed at the due target; it writes the record and a new issue). Compressed JSON is
 * about a sixth of the bytes (DynamoDB bills reads per 4 KB and writes per 1 KB of item) and is
 * read back by one decompression and one `JSON.parse`. Items written before are maps:
 * {@link unpackedOr} reads either.
 *
 * (De)compression runs on libuv's thread pool, so one port's work overlaps another's.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * Brotli's quality: on a slot's records, 17% fewer bytes than zlib's fast level 3 for the
 * compression time of its default level 6 (the bytes are billed on every read and write; the
 * time is the thread pool's). Higher qualities save 1-3% more for two to four times the time.
 */
const QUALITY = 5;

/** `value` as stored: its JSON, compressed. */
export async function pack(value: unknown): Promise<Uint8Array> {
  const json = Buffer.from(JSON.stringify(value));
  return compress(json, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.byteLength,
    },
  });
}

/** The value {@link pack} stored. */
export async function unpack<T>(bytes: Uint8Array): Promise<T> {
  return JSON.parse((await decompress(bytes)).toString('utf8')) as T;
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
