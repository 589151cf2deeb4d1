import { createHash, randomBytes } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PUSH_LIMITS, type PushAlert, type PushAlertStore } from '../../core/alerts/push.ts';
import { isConditionFailure } from './client.ts';
import { queryAll, scanAll } from './paging.ts';

/** Runs a conditional write; false when its condition did not hold. */
async function conditional(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error: unknown) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The partition of one browser subscription: 96 bits of the SHA-256 of its endpoint. */
const partitionOf = (endpoint: string) =>
  `EP#${createHash('sha256').update(endpoint).digest('hex').slice(0, 24)}`;

const ID = /^ps_([0-9a-f]{24})_(\d{1,2})_([0-9a-f]{12})$/;

/** The item an id names (`ps_<partition>_<slot>_<random>`), or null for a malformed id. */
function keyOf(id: string): { pk: string; sk: string } | null {
  const match = ID.exec(id);
  if (!match) return null;
  return { pk: `EP#${match[1]}`, sk: `slot#${Number(match[2])}` };
}

/**
 * Push alerts: `pk = EP#<endpoint hash>`, `sk = slot#<0..9>`, `ttl` (epoch seconds). A
 * subscription's alerts share its partition and occupy numbered slots, so the cap per
 * subscription is exact without a counter: a new alert takes a free or expired slot with a
 * conditional put, and two concurrent creations can never hold the same slot. Every write after
 * creation is conditional on the alert's id (a deleted alert's slot may be reused by another).
 */
export function createPushAlertStore(doc: DynamoDBDocumentClient, table: string): PushAlertStore {
  const nowSeconds = (nowMs: number) => Math.floor(nowMs / 1000);
  const toAlert = (item: Record<string, unknown>): PushAlert => {
    const { pk: _pk, sk: _sk, ttl, ...rest } = item;
    return { ...(rest as Omit<PushAlert, 'expiresAt'>), expiresAt: Number(ttl) };
  };
  const keyFor = (alert: PushAlert) => keyOf(alert.id) as { pk: string; sk: string };
  const update = (alert: PushAlert, expression: string, condition: string, values: Record<string, unknown>) =>
    conditional(
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keyFor(alert),
          UpdateExpression: expression,
          ConditionExpression: `id = :id AND ${condition}`,
          ExpressionAttributeValues: { ':id': alert.id, ...values },
        }),
      ),
    );

  return {
    async create(alert, nowMs) {
      const pk = partitionOf(alert.endpoint);
      const now = nowSeconds(nowMs);
      for (let round = 0; round < 2; round++) {
        const live = await queryAll(doc, {
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ProjectionExpression: 'sk, #ttl',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ConsistentRead: true,
        });
        const taken = new Set(live.filter((item) => Number(item.ttl) > now).map((item) => String(item.sk)));
        const free = Array.from({ length: PUSH_LIMITS.alertsPerSubscription }, (_, slot) => slot).filter(
          (slot) => !taken.has(`slot#${slot}`),
        );
        if (free.length === 0) return { created: false };
        for (const slot of free) {
          const id = `ps_${pk.slice(3)}_${slot}_${randomBytes(6).toString('hex')}`;
          const { expiresAt, ...fields } = alert;
          const put = conditional(
            doc.send(
              new PutCommand({
                TableName: table,
                Item: { pk, sk: `slot#${slot}`, id, ...fields, ttl: expiresAt },
                // A free slot, or one whose alert has expired (DynamoDB deletes expired items late).
                ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
                ExpressionAttributeNames: { '#ttl': 'ttl' },
                ExpressionAttributeValues: { ':now': now },
              }),
            ),
          );
          if (await put) return { created: true, id };
        }
      }
      return { created: false };
    },
    async delete(id, tokenHash) {
      const key = keyOf(id);
      if (!key) return false;
      return conditional(
        doc.send(
          new DeleteCommand({
            TableName: table,
            Key: key,
            ConditionExpression: 'id = :id AND tokenHash = :hash',
            ExpressionAttributeValues: { ':id': id, ':hash': tokenHash },
          }),
        ),
      );
    },
    async renew(id, tokenHash, expiresAt, nowMs) {
      const key = keyOf(id);
      if (!key) return false;
      return conditional(
        doc.send(
          new UpdateCommand({
            TableName: table,
            Key: key,
            UpdateExpression: 'SET #ttl = :ttl',
            ConditionExpression: 'id = :id AND tokenHash = :hash AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':id': id,
              ':hash': tokenHash,
              ':ttl': expiresAt,
              ':now': nowSeconds(nowMs),
            },
          }),
        ),
      );
    },
    async all(nowMs) {
      const items = await scanAll(doc, {
        TableName: table,
        FilterExpression: '#ttl > :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':now': nowSeconds(nowMs) },
        ConsistentRead: true,
      });
      return items.map(toAlert);
    },
    markNotified(alert, observedAt) {
      return update(alert, 'SET notified = :true, notifiedObservedAt = :observed', 'notified = :false', {
        ':true': true,
        ':false': false,
        ':observed': observedAt,
      });
    },
    rearm(alert) {
      return update(alert, 'SET notified = :false REMOVE failedAttempts', 'notified = :true', {
        ':true': true,
        ':false': false,
      });
    },
    retryLater(alert, observedAt, failedAttempts) {
      // Only the dip this evaluation marked: a re-arm or another dip since leaves it as it is.
      return update(
        alert,
        'SET notified = :false, failedAttempts = :failed',
        'notified = :true AND notifiedObservedAt = :observed',
        { ':true': true, ':false': false, ':failed': failedAttempts, ':observed': observedAt },
      );
    },
    async recordDelivery(alert, delivery) {
      await update(alert, 'SET lastDelivery = :delivery', 'attribute_exists(pk)', { ':delivery': delivery });
    },
    async removeEndpoint(endpoint) {
      const pk = partitionOf(endpoint);
      const items = await queryAll(doc, {
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'pk, sk, endpoint',
        ConsistentRead: true,
      });
      let removed = 0;
      for (const item of items) {
        if (item.endpoint !== endpoint) continue;
        const gone = await conditional(
          doc.send(
            new DeleteCommand({
              TableName: table,
              Key: { pk: item.pk, sk: item.sk },
              ConditionExpression: 'endpoint = :endpoint',
              ExpressionAttributeValues: { ':endpoint': endpoint },
            }),
          ),
        );
        if (gone) removed += 1;
      }
      return removed;
    },
  };
}
