import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type Alert, type AlertStore, MAX_FIRINGS_KEPT } from '../../core/alerts/alerts.ts';
import { isConditionFailure } from './client.ts';
import { queryAll, scanAll } from './paging.ts';

/** Runs a conditional write; false when its condition did not hold. */
async function conditional(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error: unknown) {
    if (isConditionFailure(error)) {
      return false;
    }
    throw error;
  }
}

/**
 * Alerts: pk = owner (token subject), sk = alert id. Evaluation scans: alerts are few per user.
 * Every write is conditional: creation never overwrites, and the evaluator's writes require the
 * alert to exist (`attribute_exists`), so a deletion always wins over an evaluation in flight.
 */
export function createAlertStore(doc: DynamoDBDocumentClient, table: string): AlertStore {
  const toAlert = (item: Record<string, unknown>): Alert => {
    const { pk: _pk, sk: _sk, ...alert } = item;
    return alert as unknown as Alert;
  };
  return {
    async listByOwner(owner) {
      const items = (
        await queryAll(doc, {
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': owner },
          ConsistentRead: true,
        })
      ).map(toAlert);
      return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
    async get(owner, id) {
      const result = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: owner, sk: id }, ConsistentRead: true }),
      );
      return result.Item ? toAlert(result.Item) : undefined;
    },
    async put(alert) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { pk: alert.owner, sk: alert.id, ...alert },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },
    recordFiring(alert, firing) {
      // Optimistic: the alert must still exist and hold the last firing we read.
      const unchanged =
        alert.lastFiredObservedAt === null
          ? '(attribute_not_exists(lastFiredObservedAt) OR attribute_type(lastFiredObservedAt, :null))'
          : 'lastFiredObservedAt = :previous';
      return conditional(
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: alert.owner, sk: alert.id },
            UpdateExpression: 'SET lastFiredAt = :at, lastFiredObservedAt = :observed, firings = :firings',
            ConditionExpression: `attribute_exists(pk) AND ${unchanged}`,
            ExpressionAttributeValues: {
              ':at': firing.firedAt,
              ':observed': firing.observedAt,
              ':firings': [firing, ...alert.firings].slice(0, MAX_FIRINGS_KEPT),
              ...(alert.lastFiredObservedAt === null
                ? { ':null': 'NULL' }
                : { ':previous': alert.lastFiredObservedAt }),
            },
          }),
        ),
      );
    },
    async updateDelivery(owner, id, firingId, expectedAttempts, delivery, indexHint) {
      // The firing's place in the list moves when a newer firing is recorded: try the hinted
      // place, else find it, then update that element on condition that it is still the same
      // firing at the same attempt.
      let hint = indexHint;
      for (let tries = 0; tries < 3; tries++) {
        let index = hint ?? -1;
        hint = undefined;
        if (index < 0) {
          const current = await doc.send(
            new GetCommand({ TableName: table, Key: { pk: owner, sk: id }, ConsistentRead: true }),
          );
          if (!current.Item) return false;
          index = ((current.Item.firings ?? []) as Alert['firings']).findIndex((f) => f.id === firingId);
          if (index < 0) return false;
        }
        const written = await conditional(
          doc.send(
            new UpdateCommand({
              TableName: table,
              Key: { pk: owner, sk: id },
              UpdateExpression: `SET firings[${index}].delivery = :delivery`,
              ConditionExpression: `attribute_exists(pk) AND firings[${index}].id = :firing AND firings[${index}].delivery.attempts = :attempts`,
              ExpressionAttributeValues: {
                ':delivery': delivery,
                ':firing': firingId,
                ':attempts': expectedAttempts,
              },
            }),
          ),
        );
        if (written) return true;
        const again = await doc.send(
          new GetCommand({ TableName: table, Key: { pk: owner, sk: id }, ConsistentRead: true }),
        );
        const firings = (again.Item?.firings ?? []) as Alert['firings'];
        const at = firings.findIndex((f) => f.id === firingId);
        // Gone, or the attempt was taken: only a moved firing is worth another try.
        if (at < 0 || firings[at]?.delivery.attempts !== expectedAttempts) return false;
        hint = at;
      }
      return false;
    },
    async delete(owner, id) {
      const result = await doc.send(
        new DeleteCommand({ TableName: table, Key: { pk: owner, sk: id }, ReturnValues: 'ALL_OLD' }),
      );
      return Boolean(result.Attributes);
    },
    async all() {
      return (await scanAll(doc, { TableName: table, ConsistentRead: true })).map(toAlert);
    },
  };
}
