import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LatestPortState, LatestReading } from '../../core/model.ts';
import type { LatestStore } from '../../core/stores.ts';
import { batchPut } from './batch.ts';
import { scanAll } from './paging.ts';

/**
 * Latest state: pk = port id; sk = `lane#direction#mode#lane` for a lane reading, `port#source`
 * for the port state a source gave. The whole table is small (a few hundred items).
 */
export function createLatestStore(doc: DynamoDBDocumentClient, table: string): LatestStore {
  return {
    async all() {
      const readings: LatestReading[] = [];
      const ports: LatestPortState[] = [];
      for (const item of await scanAll(doc, { TableName: table })) {
        const { pk: _pk, sk, ...rest } = item;
        if (String(sk).startsWith('lane#')) readings.push(rest as LatestReading);
        else ports.push(rest as LatestPortState);
      }
      return { readings, ports };
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
  };
}
