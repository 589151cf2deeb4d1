import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Observation, RETENTION_HOURS } from '../../core/model.ts';
import type { ObservationFilter, ObservationStore } from '../../core/stores.ts';
import { batchPut } from './batch.ts';
import { queryPages } from './paging.ts';

/**
 * The layout before the packed hours (kept for `npm run migrate`, which reads it, and for the
 * benchmark, which compares the two). Observations: pk = port id, sk = `observedAt#direction#mode#lane` (the identity, so a second
 * write of the same observation overwrites itself). `ttl` = observedAt + 14 days; DynamoDB
 * deletes lazily and dynalite never does, so every query also filters on it.
 */
export function createLegacyObservationStore(
  doc: DynamoDBDocumentClient,
  table: string,
  now: () => number,
): Pick<ObservationStore, 'putMany' | 'query'> {
  return {
    async putMany(observations) {
      await batchPut(
        doc,
        table,
        observations.map((o) => ({
          pk: o.portId,
          sk: `${o.observedAt}#${o.direction}#${o.mode}#${o.lane}`,
          ttl: Math.floor(Date.parse(o.observedAt) / 1000) + RETENTION_HOURS * 3600,
          ...o,
        })),
      );
    },
    async query(portId, fromMs, toMs, filter: ObservationFilter = {}, limit = Number.POSITIVE_INFINITY) {
      const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk', '#ttl': 'ttl' };
      const values: Record<string, unknown> = {
        ':pk': portId,
        ':from': new Date(fromMs).toISOString().slice(0, 19),
        ':to': `${new Date(toMs).toISOString().slice(0, 19)}Z~`,
        ':now': Math.floor(now() / 1000),
      };
      const filters = ['#ttl > :now'];
      for (const field of ['direction', 'mode', 'lane'] as const) {
        const value = filter[field];
        if (value === undefined) continue;
        names[`#${field}`] = field;
        values[`:${field}`] = value;
        filters.push(`#${field} = :${field}`);
      }
      const out: Observation[] = [];
      const pages = queryPages(doc, {
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        FilterExpression: filters.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        // With a limit, read newest first and stop there: the cost follows the answer.
        ScanIndexForward: !Number.isFinite(limit),
      });
      for await (const page of pages) {
        for (const item of page) {
          const { pk: _pk, sk: _sk, ttl: _ttl, ...observation } = item;
          out.push(observation as Observation);
          if (out.length >= limit) break;
        }
        if (out.length >= limit) break;
      }
      return Number.isFinite(limit) ? out.reverse() : out;
    },
  };
}
