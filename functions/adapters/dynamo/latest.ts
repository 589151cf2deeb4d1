import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LatestPortState, LatestReading } from '../../core/model.ts';
import { type LatestSighting, type LatestStore, resolveSightings } from '../../core/stores.ts';
import { batchPut } from './batch.ts';
import { scanAll } from './paging.ts';

/** Partition key of the sightings, one item per source (`sk` = the source); no port id has it. */
const SIGHTINGS_PK = '#sighting';

/**
 * Latest state: pk = port id; sk = `lane#direction#mode#lane` for a lane reading, `port#source`
 * for the port state a source gave; pk = `#sighting`, sk = source for the last document of that
 * source that moved latest. The whole table is small (a few hundred items).
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
        else if (String(sk).startsWith('lane#')) readings.push(rest as LatestReading);
        else ports.push(rest as LatestPortState);
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
        readings.map((r) => ({ pk: r.portId, sk: `lane#${r.direction}#${r.mode}#${r.lane}`, ...r })),
      );
    },
    async putPorts(ports) {
      await batchPut(
        doc,
        table,
        ports.map((p) => ({ pk: p.portId, sk: `port#${p.source}`, ...p })),
      );
    },
    async putSighting(sighting) {
      await doc.send(
        new PutCommand({ TableName: table, Item: { pk: SIGHTINGS_PK, sk: sighting.source, ...sighting } }),
      );
    },
  };
}
