import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LatestPortState, LatestReading } from '../../core/model.ts';
import { type LatestSighting, type LatestStore, resolveSightings } from '../../core/stores.ts';
import { batchPut } from './batch.ts';
import { scanAll } from './paging.ts';

/** Partition key of the sightings, one item per source (`sk` = the source); no port id has it. */
const SIGHTINGS_PK = '#sighting';

/**
 * A lane's or a port's item: its keys, `fetchedAt`, and the other fields as one JSON string `c`
 * (the fields the keys spell, `portId`, a lane's direction, mode and lane, a port state's source,
 * are left out of it). One attribute instead of a dozen: the whole table is read every cycle and a
 * new hour rewrites most of it, and each attribute costs the SDK and the service a node to encode
 * and decode (about a third of the CPU of those requests). Items keep about the size they had with
 * an attribute per field, so their read and write units.
 */
function encode(
  pk: string,
  sk: string,
  item: LatestReading | LatestPortState,
  keyFields: readonly string[],
): Record<string, unknown> {
  const content: Record<string, unknown> = { ...item };
  for (const field of ['fetchedAt', ...keyFields]) delete content[field];
  return { pk, sk, fetchedAt: item.fetchedAt, c: JSON.stringify(content) };
}

/** An item as written by {@link encode}, or with a field per attribute as written before it. */
function decode(
  pk: string,
  rest: Record<string, unknown>,
  keys: Record<string, string | undefined>,
): Record<string, unknown> {
  if (typeof rest.c !== 'string') return rest;
  const content = JSON.parse(rest.c) as Record<string, unknown>;
  return { portId: pk, ...keys, ...content, fetchedAt: rest.fetchedAt };
}

const READING_KEYS = ['portId', 'direction', 'mode', 'lane'] as const;
const PORT_KEYS = ['portId', 'source'] as const;

/**
 * Latest state: pk = port id; sk = `lane#direction#mode#lane` for a lane reading, `port#source`
 * for the port state a source gave ({@link encode}); pk = `#sighting`, sk = source for the last
 * document of that source that moved latest. The whole table is small (a few hundred items).
 */
export function createLatestStore(doc: DynamoDBDocumentClient, table: string): LatestStore {
  return {
    async all() {
      const readings: LatestReading[] = [];
      const ports: LatestPortState[] = [];
      const sightings: LatestSighting[] = [];
      for (const item of await scanAll(doc, { TableName: table })) {
        const { pk, sk, ...rest } = item;
        if (pk === SIGHTINGS_PK) sightings.push(rest as LatestSighting);
        else if (String(sk).startsWith('lane#')) {
          const [, direction, mode, lane] = String(sk).split('#');
          readings.push(decode(String(pk), rest, { direction, mode, lane }) as unknown as LatestReading);
        } else {
          const source = String(sk).slice('port#'.length);
          ports.push(decode(String(pk), rest, { source }) as unknown as LatestPortState);
        }
      }
      return {
        readings: resolveSightings(readings, sightings),
        ports: resolveSightings(ports, sightings),
        sightings,
      };
    },
    async putReadings(readings) {
      await batchPut(
        doc,
        table,
        readings.map((r) => encode(r.portId, `lane#${r.direction}#${r.mode}#${r.lane}`, r, READING_KEYS)),
      );
    },
    async putPorts(ports) {
      await batchPut(
        doc,
        table,
        ports.map((p) => encode(p.portId, `port#${p.source}`, p, PORT_KEYS)),
      );
    },
    async putSighting(sighting) {
      await doc.send(
        new PutCommand({ TableName: table, Item: { pk: SIGHTINGS_PK, sk: sighting.source, ...sighting } }),
      );
    },
  };
}
