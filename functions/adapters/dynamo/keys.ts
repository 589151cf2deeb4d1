import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyRequest, KeyRequestStore } from '../../core/access/key-requests.ts';
import type { ApiKeyRecord, KeyStore } from '../../core/access/keys.ts';
import { scanAll } from './paging.ts';

/**
 * Keys and key requests in one table. A key is `pk = KEY#<sha256 hex>`, `sk = KEY` (the layout the
 * REST authorizer reads); a request is `pk = REQUEST#<id>`, `sk = REQUEST`. The plaintext key is
 * never written. Listing scans: the table holds a few hundred items at most.
 */
export function createKeyStore(doc: DynamoDBDocumentClient, table: string): KeyStore & KeyRequestStore {
  async function scan(prefix: string): Promise<Record<string, unknown>[]> {
    return scanAll(doc, {
      TableName: table,
      FilterExpression: 'begins_with(pk, :prefix)',
      ExpressionAttributeValues: { ':prefix': prefix },
    });
  }

  const toKey = ({ pk: _pk, sk: _sk, ...rest }: Record<string, unknown>) =>
    ({ revokedAt: null, requestId: null, ...rest }) as ApiKeyRecord;
  const toRequest = ({ pk: _pk, sk: _sk, ...rest }: Record<string, unknown>) =>
    ({ keyId: null, ...rest }) as KeyRequest;
  const byCreated = (a: { createdAt: string }, b: { createdAt: string }) =>
    a.createdAt.localeCompare(b.createdAt);

  return {
    async put(record) {
      await doc.send(
        new PutCommand({
          TableName: table,
          // Absent, not null, until revoked: the authorizer treats any revokedAt attribute as revoked.
          Item: { pk: `KEY#${record.hash}`, sk: 'KEY', ...record, revokedAt: record.revokedAt ?? undefined },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },
    async getByHash(hash) {
      const out = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: `KEY#${hash}`, sk: 'KEY' }, ConsistentRead: true }),
      );
      return out.Item ? toKey(out.Item) : null;
    },
    async list() {
      return (await scan('KEY#')).map(toKey).sort(byCreated);
    },
    async revoke(id, atIso) {
      const found = (await scan('KEY#')).map(toKey).find((record) => record.id === id);
      if (!found) return false;
      // A second revoke keeps the first time.
      if (found.revokedAt) return true;
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `KEY#${found.hash}`, sk: 'KEY' },
          UpdateExpression: 'SET revokedAt = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': atIso },
        }),
      );
      return true;
    },
    async putRequest(request) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { pk: `REQUEST#${request.id}`, sk: 'REQUEST', ...request },
        }),
      );
    },
    async getRequest(id) {
      const out = await doc.send(
        new GetCommand({
          TableName: table,
          Key: { pk: `REQUEST#${id}`, sk: 'REQUEST' },
          ConsistentRead: true,
        }),
      );
      return out.Item ? toRequest(out.Item) : null;
    },
    async listRequests() {
      return (await scan('REQUEST#')).map(toRequest).sort(byCreated);
    },
    async approveRequest(id, keyId) {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `REQUEST#${id}`, sk: 'REQUEST' },
          UpdateExpression: 'SET #status = :approved, keyId = :keyId',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':approved': 'approved', ':keyId': keyId },
        }),
      );
    },
  };
}
