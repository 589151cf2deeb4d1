import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { IssuedLane, IssuedPort } from '../../core/forecast/forecast.ts';
import type { Aimed, ForecastStore, SkillWindow } from '../../core/forecast/forecast-cycle.ts';
import { RECORD_DAYS, type SkillDay } from '../../core/forecast/skill.ts';
import { batchGet } from './batch.ts';
import { isConditionFailure } from './client.ts';
import { pack, packIssueLanes, unpackedOr, unpackIssueLanes } from './packed.ts';
import { queryAll } from './paging.ts';

const HOUR_S = 3600;
const DAY_S = 86_400;

/**
 * Forecasts and their track record, one table (`forecasts`), TTL attribute `ttl`:
 * - `P#<port>` / issuedAt: the forecasts of one port issued in one 15-minute slot (every lane,
 *   horizon and method), kept until its last target has passed and been scored;
 * - `S#<port>` / target date (UTC): the port's track record of that date, with `through`;
 * - `W#<port>` / `window`: the sum of the port's settled records (derived, rebuilt daily);
 * - `CYCLE` / slot: the mark of a finished slot.
 *
 * The lanes of an issue, a record and a window are stored packed (`lanesPacked`: see packed.ts;
 * an issue's by horizon, so scoring reads its horizon alone); items written before hold them as a
 * map (`lanes`), and are read whole.
 */
const LANES = 'lanes';
const PACKED = 'lanesPacked';

const lanesOf = <T>(item: Record<string, unknown>, fallback: T): Promise<T> =>
  unpackedOr(item, PACKED, LANES, fallback);

/** An issue's lanes; with `horizons`, the store may leave out their other points. */
const issueLanesOf = (item: Record<string, unknown>, horizons?: ReadonlySet<number>): Promise<IssuedLane[]> =>
  unpackedOr<IssuedLane[]>(item, PACKED, LANES, [], (bytes) => unpackIssueLanes(bytes, horizons));

const windowOf = async (item: Record<string, unknown>): Promise<SkillWindow> => ({
  from: String(item.from),
  to: String(item.to),
  lanes: await lanesOf<SkillWindow['lanes']>(item, {}),
});

export function createForecastStore(doc: DynamoDBDocumentClient, table: string): ForecastStore {
  /** Stored issues of several ports' slots at once (BatchGetItem, 100 keys a request), oldest first. */
  async function pendingOf(
    requests: readonly { portId: string; issuedAt: readonly string[]; aimed?: Aimed }[],
  ): Promise<Map<string, IssuedPort[]>> {
    const keys = requests.flatMap(({ portId, issuedAt }) =>
      issuedAt.map((sk) => ({ pk: `P#${portId}`, sk })),
    );
    // Per item key, the horizons scoring reads (an issue not aimed is read whole).
    const aimedAt = new Map<string, Set<number>>();
    for (const { portId, aimed } of requests) {
      for (const [issuedAt, horizons] of aimed ?? [])
        aimedAt.set(`P#${portId} ${issuedAt}`, new Set(horizons));
    }
    const out = new Map<string, IssuedPort[]>(requests.map(({ portId }) => [portId, []]));
    const items = await batchGet(doc, table, keys, { consistent: true });
    const issues = await Promise.all(
      items.map(
        async (item): Promise<IssuedPort> => ({
          portId: String(item.pk).slice(2),
          issuedAt: String(item.sk),
          lanes: await issueLanesOf(item, aimedAt.get(`${String(item.pk)} ${String(item.sk)}`)),
        }),
      ),
    );
    for (const issue of issues) out.get(issue.portId)?.push(issue);
    for (const list of out.values()) list.sort((a, b) => a.issuedAt.localeCompare(b.issuedAt));
    return out;
  }
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
    async pending(portId, issuedAt, aimed) {
      return (await pendingOf([{ portId, issuedAt, ...(aimed ? { aimed } : {}) }])).get(portId) ?? [];
    },
    pendingOf,
    async windows(portIds) {
      const items = await batchGet(
        doc,
        table,
        portIds.map((portId) => ({ pk: `W#${portId}`, sk: 'window' })),
        { consistent: true },
      );
      return new Map(
        await Promise.all(
          items.map(async (item) => [String(item.pk).slice(2), await windowOf(item)] as const),
        ),
      );
    },
    async putPending(issue) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: {
              pk: `P#${issue.portId}`,
              sk: issue.issuedAt,
              [PACKED]: await packIssueLanes(issue.lanes),
              // Scored up to a day after issue (+24 h horizon), plus the scoring backlog.
              ttl: Math.floor(Date.parse(issue.issuedAt) / 1000) + 27 * HOUR_S,
            },
            // The first issue of a slot wins: a rerun later in the slot must not replace what was published.
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return issue;
      } catch (error: unknown) {
        if (!isConditionFailure(error)) throw error;
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
          lanes: stored.Item ? await issueLanesOf(stored.Item) : [],
        };
      }
    },
    async skillDays(portId, fromDate) {
      const items = await queryAll(doc, {
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        ExpressionAttributeValues: { ':pk': `S#${portId}`, ':from': fromDate },
        ConsistentRead: true,
      });
      return Promise.all(
        items.map(
          async (item): Promise<SkillDay> => ({
            date: String(item.sk),
            through: (item.through as string | undefined) ?? null,
            lanes: await lanesOf<SkillDay['lanes']>(item, {}),
          }),
        ),
      );
    },
    async window(portId) {
      const result = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: `W#${portId}`, sk: 'window' }, ConsistentRead: true }),
      );
      return result.Item ? await windowOf(result.Item) : undefined;
    },
    async putWindow(portId, window) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            pk: `W#${portId}`,
            sk: 'window',
            from: window.from,
            to: window.to,
            [PACKED]: await pack(window.lanes),
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
              [PACKED]: await pack(day.lanes),
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
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
  };
}
