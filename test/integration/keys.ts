/** Issues and revokes keys straight in the running stack's key table (as `npm run keys` does). */
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createKeyStore } from '../../functions/adapters/dynamo/keys.ts';
import { type ApiKeyRecord, generateKey, newKeyRecord } from '../../functions/core/access/keys.ts';
import { TABLES } from '../../infra/manifest.ts';
import type { TestStack } from './stack.ts';

export function keyStoreOf(stack: TestStack) {
  const doc = createDocumentClient({ endpoint: stack.service.endpoints.dynamodb });
  return { doc, store: createKeyStore(doc, TABLES.keys.name) };
}

export async function issueKey(
  stack: TestStack,
  account = 'Test Freight',
): Promise<{ key: string; record: ApiKeyRecord }> {
  const { doc, store } = keyStoreOf(stack);
  try {
    const key = generateKey();
    const record = newKeyRecord(key, account, stack.clock.now());
    await store.put(record);
    return { key, record };
  } finally {
    doc.destroy();
  }
}

export async function revokeKey(stack: TestStack, id: string): Promise<void> {
  const { doc, store } = keyStoreOf(stack);
  try {
    if (!(await store.revoke(id, new Date(stack.clock.now()).toISOString()))) throw new Error(`no key ${id}`);
  } finally {
    doc.destroy();
  }
}
