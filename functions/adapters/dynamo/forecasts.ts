import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { IssuedPort } from '../../core/forecast.ts';
import type { ForecastStore, SkillWindow } from '../../core/forecast-cycle.ts';
import { RECORD_DAYS, type SkillDay } from '../../core/skill.ts';

const HOUR_S = 3600;
const DAY_S = 86_400;

/**
 * Forecasts and their track record, one table (`forecasts`), TTL attribute `ttl`:
 * - `P#<port>` / issuedAt: the forecasts of one port issued in one 15-minute slot (every lane,
 *   horizon and method), kept until its last target has passed and been scored;
 * - `S#<port>` / target date (UTC): the port's track record of that date, with `through`;
 * - `W#<port>` / `window`: the sum of the port's settled records (derived, rebuilt daily);
 * - `CYCLE` / slot: the mark of a finished slot.
 */
export function createForecastStore(doc: DynamoDBDocumentClient, table: string): ForecastStore {
  const queryAll = async (input: Omit<QueryCommandInput, 'TableName'>) => {
    const items: Record<string, unknown>[] = [];
    let start: QueryCommandInput['ExclusiveStartKey'];
    do {
      const page = await doc.send(new QueryCommand({ TableName: table, ...input, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };
  return {
    async cycleDone(slot) {
      const result = await doc.send(new GetCommand({ TableName: table, Key: { pk: 'CYCLE', sk: slot } }));
      return result.Item !== undefined;
    },
    async markCycle(slot) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { pk: 'CYCLE', sk: slot, ttl: Math.floor(Date.parse(slot) / 1000) + 2 * DAY_S },
        }),
      );
    },
    async pending(portId, issuedAt) {
      const out: IssuedPort[] = [];
      // BatchGetItem takes at most 100 keys; unprocessed keys are asked again.
      for (let i = 0; i < issuedAt.length; i += 100) {
        let keys: Record<string, unknown>[] = issuedAt
          .slice(i, i + 100)
          .map((sk) => ({ pk: `P#${portId}`, sk }));
        for (let attempt = 0; keys.length > 0; attempt++) {
          if (attempt > 8)
            throw new Error(`BatchGet from ${table}: keys still unprocessed after ${attempt} attempts`);
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 25));
          const result = await doc.send(
            new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }),
          );
          for (const item of result.Responses?.[table] ?? []) {
            out.push({ portId, issuedAt: String(item.sk), lanes: item.lanes as IssuedPort['lanes'] });
          }
          keys = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
        }
      }
      return out.sort((a, b) => a.issuedAt.localeCompare(b.issuedAt));
    },
    async putPending(issue) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              pk: `P#${issue.portId}`,
              sk: issue.issuedAt,
              lanes: issue.lanes,
              ttl: Math.floor(Date.parse(issue.issuedAt) / 1000) + 9 * HOUR_S,
            },
            // The first issue of a slot wins: a rerun later in the slot must not replace what was published.
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return issue;
      } catch (error: unknown) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const stored = await doc.send(
          new GetCommand({
            TableName: table,
            Key: { pk: `P#${issue.portId}`, sk: issue.issuedAt },
            ConsistentRead: true,
          }),
        );
        return {
          portId: issue.portId,
          issuedAt: issue.issuedAt,
          lanes: stored.Item?.lanes as IssuedPort['lanes'],
        };
      }
    },
    async skillDays(portId, fromDate) {
      const items = await queryAll({
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        ExpressionAttributeValues: { ':pk': `S#${portId}`, ':from': fromDate },
        ConsistentRead: true,
      });
      return items.map(
        (item): SkillDay => ({
          date: String(item.sk),
          through: (item.through as string | undefined) ?? null,
          lanes: (item.lanes ?? {}) as SkillDay['lanes'],
        }),
      );
    },
    async window(portId) {
      const result = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: `W#${portId}`, sk: 'window' }, ConsistentRead: true }),
      );
      if (!result.Item) return undefined;
      return {
        from: String(result.Item.from),
        to: String(result.Item.to),
        lanes: (result.Item.lanes ?? {}) as SkillWindow['lanes'],
      };
    },
    async putWindow(portId, window) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            pk: `W#${portId}`,
            sk: 'window',
            ...window,
            ttl: Math.floor(Date.parse(`${window.to}T00:00:00Z`) / 1000) + (RECORD_DAYS + 2) * DAY_S,
          },
        }),
      );
    },
    async putSkillDay(portId, day, previousThrough) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              pk: `S#${portId}`,
              sk: day.date,
              through: day.through,
              lanes: day.lanes,
              ttl: Math.floor(Date.parse(`${day.date}T00:00:00Z`) / 1000) + (RECORD_DAYS + 2) * DAY_S,
            },
            // Absolute totals, written only over the record they were computed from.
            ConditionExpression:
              previousThrough === null ? 'attribute_not_exists(pk)' : 'through = :previous',
            ...(previousThrough === null
              ? {}
              : { ExpressionAttributeValues: { ':previous': previousThrough } }),
          }),
        );
        return true;
      } catch (error: unknown) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
