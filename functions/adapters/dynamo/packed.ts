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
import type { IssuedLane, IssuedPoint } from '../../core/forecast/forecast.ts';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * Brotli's quality: on a slot's records, 17% fewer bytes than zlib's fast level 3 for the
 * compression time of its default level 6 (the bytes are billed on every read and write; the
 * time is the thread pool's). Higher qualities save 1-3% more for two to four times the time.
 */
const QUALITY = 5;

/** Text as stored: compressed. */
async function compressText(text: string): Promise<Uint8Array> {
  const bytes = Buffer.from(text);
  return compress(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  });
}

const decompressText = async (bytes: Uint8Array): Promise<string> =>
  (await decompress(bytes)).toString('utf8');

/** `value` as stored: its JSON, compressed. */
export const pack = (value: unknown): Promise<Uint8Array> => compressText(JSON.stringify(value));

/** The value {@link pack} stored. */
export async function unpack<T>(bytes: Uint8Array): Promise<T> {
  return JSON.parse(await decompressText(bytes)) as T;
}

/**
 * The lanes of an issue as stored: lines of JSON (JSON has no raw line break), compressed. The
 * first line holds the lanes without their points and the horizons; then one line per horizon,
 * each lane's point at it (null where the lane has none). A slot scoring a target reads each
 * issue aimed at it for one horizon: {@link unpackIssueLanes} parses that line alone, a 27th of
 * the numbers.
 */
export function packIssueLanes(lanes: readonly IssuedLane[]): Promise<Uint8Array> {
  const horizons: number[] = [];
  const rowOf = new Map<number, (IssuedPoint | null)[]>();
  lanes.forEach((lane, l) => {
    for (const point of lane.points) {
      let row = rowOf.get(point.horizonMinutes);
      if (!row) {
        row = new Array<IssuedPoint | null>(lanes.length).fill(null);
        rowOf.set(point.horizonMinutes, row);
        horizons.push(point.horizonMinutes);
      }
      row[l] = point;
    }
  });
  const heads = lanes.map(({ points: _, ...head }) => head);
  const lines = [
    JSON.stringify({ lanes: heads, horizons }),
    ...horizons.map((h) => JSON.stringify(rowOf.get(h))),
  ];
  return compressText(lines.join('\n'));
}

/** The lanes {@link packIssueLanes} stored; with `horizons`, each lane with its points at those alone. */
export async function unpackIssueLanes(
  bytes: Uint8Array,
  horizons?: ReadonlySet<number>,
): Promise<IssuedLane[]> {
  const text = await decompressText(bytes);
  let end = text.indexOf('\n');
  const header = JSON.parse(end < 0 ? text : text.slice(0, end)) as {
    lanes: Omit<IssuedLane, 'points'>[];
    horizons: number[];
  };
  const lanes: IssuedLane[] = header.lanes.map((head) => ({ ...head, points: [] }));
  for (const h of header.horizons) {
    const start = end + 1;
    end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (horizons && !horizons.has(h)) continue;
    const row = JSON.parse(text.slice(start, end)) as (IssuedPoint | null)[];
    row.forEach((point, l) => {
      if (point) lanes[l]?.points.push(point);
    });
  }
  return lanes;
}

/**
 * The value of an item that holds it packed under `packedName` (what this code writes), or as a
 * map under `mapName` (items written before), else `fallback`. A packed value that does not read
 * back is an error naming the item.
 */
export async function unpackedOr<T>(
  item: Record<string, unknown>,
  packedName: string,
  mapName: string,
  fallback: T,
  read: (bytes: Uint8Array) => Promise<T> = unpack,
): Promise<T> {
  const packed = item[packedName];
  if (!(packed instanceof Uint8Array)) return (item[mapName] as T | undefined) ?? fallback;
  try {
    return await read(packed);
  } catch (error: unknown) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `item ${String(item.pk)} / ${String(item.sk)}: ${packedName} does not read back as packed JSON (${why})`,
      { cause: error },
    );
  }
}
