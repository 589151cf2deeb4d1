import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Alert, AlertStore } from '../../core/alerts.ts';

/** Alerts: pk = owner (token subject), sk = alert id. Evaluation scans: alerts are few per user. */
export function createAlertStore(doc: DynamoDBDocumentClient, table: string): AlertStore {
  const toAlert = (item: Record<string, unknown>): Alert => {
    const { pk: _pk, sk: _sk, ...alert } = item;
    return alert as unknown as Alert;
  };
  return {
    async listByOwner(owner) {
      const items: Alert[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': owner },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) items.push(toAlert(item));
        start = page.LastEvaluatedKey;
      } while (start);
      return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
    async get(owner, id) {
      const result = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: owner, sk: id }, ConsistentRead: true }),
      );
      return result.Item ? toAlert(result.Item) : undefined;
    },
    async put(alert) {
      await doc.send(new PutCommand({ TableName: table, Item: { pk: alert.owner, sk: alert.id, ...alert } }));
    },
    async delete(owner, id) {
      const result = await doc.send(
        new DeleteCommand({ TableName: table, Key: { pk: owner, sk: id }, ReturnValues: 'ALL_OLD' }),
      );
      return Boolean(result.Attributes);
    },
    async all() {
      const items: Alert[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }),
        );
        for (const item of page.Items ?? []) items.push(toAlert(item));
        start = page.LastEvaluatedKey;
      } while (start);
      return items;
    },
  };
}
