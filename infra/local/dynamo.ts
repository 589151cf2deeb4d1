/**
 * dynalite persisted under DATA_DIR. dynalite locks its LevelDB folder, and a second process that
 * opens it crashes on its first request; so the server publishes its endpoint in
 * `DATA_DIR/endpoints.json`, and other processes (the operator CLI) attach to it when it answers,
 * or own the folder themselves when no server runs.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  type AttributeDefinition,
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
  type KeySchemaElement,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { Level } from 'level';
import { TABLES, type TableSpec } from '../manifest.ts';

export interface LocalDynamo {
  endpoint: string;
  mode: 'owner' | 'attached';
  close(): Promise<void>;
}

/** The LevelDB database under a dynalite server, as much of it as the fix below touches. */
interface DynaliteLevel {
  keys(options: unknown): LevelIterator;
  values(options: unknown): LevelIterator;
  createKeyStream(options: unknown): Readable;
  createValueStream(options: unknown): Readable;
  attachResource(resource: unknown): void;
  detachResource(resource: unknown): void;
}
interface LevelIterator {
  next(): Promise<unknown>;
  close(): Promise<void>;
}
interface DynaliteStore {
  db: DynaliteLevel;
  recreate(): void;
}

const dynaliteDb = createRequire(import.meta.url)('dynalite/db') as {
  create(options: unknown): DynaliteStore;
};

/**
 * dynalite 4 reads LevelDB through streams whose `destroy` calls `iterator.return()`, which
 * abstract-level 3 iterators do not have: no iterator is ever closed, and the database holds every
 * one (each pinning a LevelDB snapshot) until it closes, so the process grows with every Query and
 * Scan. This gives the database of a new dynalite store streams that close their iterator at the
 * end or when the reader stops early, and counts the database's open resources (iterators and
 * batches) so that a test can see them return to none.
 */
function closingStreams(db: DynaliteLevel): () => number {
  let open = 0;
  const attach = db.attachResource.bind(db);
  const detach = db.detachResource.bind(db);
  db.attachResource = (resource) => {
    open += 1;
    attach(resource);
  };
  db.detachResource = (resource) => {
    open -= 1;
    detach(resource);
  };
  const stream = (iterator: LevelIterator) =>
    new Readable({
      objectMode: true,
      read() {
        iterator.next().then(
          (item) => this.push(item === undefined ? null : item),
          (error: unknown) => this.destroy(error as Error),
        );
      },
      destroy(error, done) {
        iterator.close().then(
          () => done(error),
          () => done(error),
        );
      },
    });
  db.createKeyStream = (options) => stream(db.keys(options));
  db.createValueStream = (options) => stream(db.values(options));
  return () => open;
}

/** A dynalite server whose LevelDB iterators are closed (see `closingStreams`). */
function startDynalite(path: string): { server: ReturnType<typeof dynalite>; openResources: () => number } {
  const create = dynaliteDb.create;
  let openResources = () => 0;
  dynaliteDb.create = (options) => {
    const store = create(options);
    openResources = closingStreams(store.db);
    const recreate = store.recreate;
    store.recreate = function (this: DynaliteStore) {
      recreate.call(this);
      openResources = closingStreams(this.db);
    };
    return store;
  };
  try {
    const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    return { server, openResources: () => openResources() };
  } finally {
    dynaliteDb.create = create;
  }
}

const endpointFile = (dataDir: string) => join(dataDir, 'endpoints.json');

export async function startDynamoOwner(dataDir: string): Promise<LocalDynamo & { openResources(): number }> {
  const dbDir = join(dataDir, 'dynamodb');
  await mkdir(dbDir, { recursive: true });
  await assertNotLocked(dbDir);
  const { server, openResources } = startDynalite(dbDir);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    mode: 'owner',
    openResources,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

export async function publishEndpoints(dataDir: string, endpoints: Record<string, string>): Promise<void> {
  await writeFile(endpointFile(dataDir), JSON.stringify({ pid: process.pid, ...endpoints }, null, 2));
}

export async function unpublishEndpoints(dataDir: string): Promise<void> {
  await rm(endpointFile(dataDir), { force: true });
}

/** The running server's endpoints when it answers, else null. */
export async function runningEndpoints(dataDir: string): Promise<Record<string, string> | null> {
  const published = (await readFile(endpointFile(dataDir), 'utf8').then(JSON.parse, () => null)) as Record<
    string,
    string
  > | null;
  if (published?.dynamodb && (await isUp(published.dynamodb))) return published;
  return null;
}

/** Attaches to the server's dynalite when it runs, else owns the folder. */
export async function attachOrOpenDynamo(dataDir: string): Promise<LocalDynamo> {
  const running = await runningEndpoints(dataDir);
  if (running?.dynamodb) return { endpoint: running.dynamodb, mode: 'attached', close: async () => {} };
  const owned = await startDynamoOwner(dataDir);
  await createTables(owned.endpoint);
  return owned;
}

async function isUp(endpoint: string): Promise<boolean> {
  try {
    await fetch(endpoint, { method: 'POST', signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

async function assertNotLocked(dbDir: string): Promise<void> {
  const probe = new Level(dbDir);
  try {
    await probe.open();
  } catch (error: unknown) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') {
      throw new Error(
        `${dbDir} is in use by another process that did not publish its endpoint; stop it, or use another DATA_DIR`,
      );
    }
    throw error;
  }
  await probe.close();
}

/**
 * Creates a table and returns once it is ACTIVE; an existing table is left alone. dynalite answers
 * CreateTable with CREATING and turns the table ACTIVE a moment later, and until then every read
 * and write of it fails with ResourceNotFoundException, as in DynamoDB.
 */
export async function createTable(
  client: Pick<DynamoDBClient, 'send'>,
  input: CreateTableCommandInput & { TableName: string },
): Promise<void> {
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error: unknown) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (Date.now() > deadline) {
      throw new Error(`table ${input.TableName} is still ${Table?.TableStatus} after 10 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Creates every table of the manifest (existing ones are left alone) and waits until all are ACTIVE. */
export async function createTables(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const table of Object.values(TABLES)) {
      const spec: TableSpec = table;
      const keys: KeySchemaElement[] = [{ AttributeName: spec.partitionKey, KeyType: 'HASH' }];
      const attributes: AttributeDefinition[] = [{ AttributeName: spec.partitionKey, AttributeType: 'S' }];
      if (spec.sortKey) {
        keys.push({ AttributeName: spec.sortKey, KeyType: 'RANGE' });
        attributes.push({ AttributeName: spec.sortKey, AttributeType: 'S' });
      }
      await createTable(client, {
        TableName: table.name,
        KeySchema: keys,
        AttributeDefinitions: attributes,
        BillingMode: 'PAY_PER_REQUEST',
      });
    }
  } finally {
    client.destroy();
  }
}
