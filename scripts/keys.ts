/**
 * `npm run keys -- <command>`: operator commands for API keys and key requests on the store under
 * DATA_DIR (default `.data`). Works whether or not `npm start` runs there: it attaches to the
 * running server's DynamoDB, or opens the folder itself.
 *
 *   create --account NAME [--json]   issue a key (printed once; --json: {"key", "id", "account"})
 *   list [--json]                    keys: id, account, hint, created, revoked
 *   revoke ID                        revoke a key by its id
 *   requests [--json]                key requests from the site's form
 *   approve ID [--json]              issue a key for a request's organisation and mark it approved
 */
import { createDocumentClient } from '../functions/adapters/dynamo/client.ts';
import { createKeyStore } from '../functions/adapters/dynamo/keys.ts';
import { AccountSchema, printable, printableJson } from '../functions/core/access/key-requests.ts';
import { generateKey, newKeyRecord } from '../functions/core/access/keys.ts';
import { attachOrOpenDynamo } from '../infra/local/dynamo.ts';
import { TABLES } from '../infra/manifest.ts';

const USAGE = `usage: npm run keys -- <command>
  create --account NAME [--json]   issue a key for an account (shown once)
  list [--json]                    list keys (ids, accounts, hints; never the keys)
  revoke ID                        revoke the key with this id (from list)
  requests [--json]                list key requests
  approve ID [--json]              issue a key for a key request (id from requests)
The store is the one under DATA_DIR (default .data), with or without npm start running.
With --aws, the deployed table instead: AWS credentials and region as the AWS CLI finds them, and
TABLE_KEYS=<the stack's api-keys table name>.`;

class UsageError extends Error {}

function flag(args: string[], name: string): boolean {
  const index = args.indexOf(name);
  if (index === -1) return false;
  args.splice(index, 1);
  return true;
}

function option(args: string[], name: string): string | undefined {
  const index = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index === -1) return undefined;
  const arg = args[index] as string;
  if (arg.includes('=')) {
    args.splice(index, 1);
    return arg.slice(name.length + 1);
  }
  const value = args[index + 1];
  if (value === undefined || value.startsWith('--'))
    throw new UsageError(`${name} needs a value, e.g. ${name} "Example Freight"`);
  args.splice(index, 2);
  return value;
}

function onlyArgument(args: string[], what: string, example: string): string {
  if (args.length !== 1 || !args[0])
    throw new UsageError(`give exactly one ${what}, e.g. npm run keys -- ${example}`);
  return args[0];
}

/** Columns padded to their widest cell; every cell printable (control characters escaped). */
function table(raw: string[][]): string {
  const rows = raw.map((row) => row.map(printable));
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const [command, ...rest] = process.argv.slice(2);
const args = [...rest];
const dataDir = process.env.DATA_DIR ?? '.data';

async function main(): Promise<number> {
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (!['create', 'list', 'revoke', 'requests', 'approve'].includes(command)) {
    throw new UsageError(`unknown command "${command}"`);
  }
  const json = flag(args, '--json');
  const aws = flag(args, '--aws');
  const tableName = process.env[TABLES.keys.envVar] ?? (aws ? undefined : TABLES.keys.name);
  if (tableName === undefined) {
    throw new UsageError(
      `--aws needs the table name in ${TABLES.keys.envVar}, e.g. ${TABLES.keys.envVar}=BorderWaits-TableApiKeys... npm run keys -- list --aws`,
    );
  }
  const account = command === 'create' ? option(args, '--account') : undefined;
  if (command === 'create') {
    if (account === undefined)
      throw new UsageError(
        'create needs --account NAME, e.g. npm run keys -- create --account "Example Freight"',
      );
    const parsed = AccountSchema.safeParse(account);
    if (!parsed.success) throw new UsageError(`--account ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  }
  const id =
    command === 'revoke'
      ? onlyArgument(args, 'key id', 'revoke key_AbC123')
      : command === 'approve'
        ? onlyArgument(args, 'request id', 'approve req_AbC123')
        : undefined;
  if (id === undefined && args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`);

  // In AWS mode the SDK's own configuration decides where to go (AWS_ENDPOINT_URL_DYNAMODB too).
  const dynamo = aws ? null : await attachOrOpenDynamo(dataDir);
  const doc = createDocumentClient({ endpoint: dynamo?.endpoint, region: process.env.AWS_REGION });
  const store = createKeyStore(doc, tableName);
  try {
    const now = Date.now();
    if (command === 'create' || command === 'approve') {
      let owner = account?.trim() ?? '';
      let requestId: string | null = null;
      if (command === 'approve') {
        const request = await store.getRequest(id as string);
        if (!request) {
          console.error(`no key request with id "${id}"; npm run keys -- requests lists them`);
          return 1;
        }
        if (request.status === 'approved') {
          console.error(
            `request ${request.id} was already approved (key ${request.keyId}); revoke and create keys with create`,
          );
          return 1;
        }
        owner = request.organisation;
        requestId = request.id;
      }
      const key = generateKey();
      const record = newKeyRecord(key, owner, now, requestId);
      await store.put(record);
      if (requestId) await store.approveRequest(requestId, record.id);
      if (json) {
        console.log(
          printableJson({
            key,
            id: record.id,
            account: record.account,
            createdAt: record.createdAt,
            ...(requestId ? { requestId } : {}),
          }),
        );
      } else {
        console.log(
          `key for ${printable(record.account)} (id ${record.id}); shown only this once, store it now:`,
        );
        console.log(`  ${key}`);
        if (requestId) console.log(`request ${requestId} is approved; send the key to its contact.`);
      }
      return 0;
    }
    if (command === 'list') {
      const keys = await store.list();
      if (json) console.log(printableJson(keys.map(({ hash: _hash, ...visible }) => visible)));
      else if (keys.length === 0)
        console.log('no keys yet; npm run keys -- create --account NAME issues one');
      else
        console.log(
          table([
            ['ID', 'ACCOUNT', 'KEY', 'CREATED', 'REVOKED'],
            ...keys.map((k) => [k.id, k.account, k.hint, k.createdAt, k.revokedAt ?? '-']),
          ]),
        );
      return 0;
    }
    if (command === 'revoke') {
      if (!(await store.revoke(id as string, new Date(now).toISOString()))) {
        console.error(`no key with id "${id}"; npm run keys -- list shows the ids`);
        return 1;
      }
      console.log(`revoked ${id}: requests with it now get 401`);
      return 0;
    }
    const requests = await store.listRequests();
    if (json) console.log(printableJson(requests));
    else if (requests.length === 0) console.log('no key requests yet');
    else
      console.log(
        table([
          ['ID', 'STATUS', 'CREATED', 'NAME', 'EMAIL', 'ORGANISATION', 'USE'],
          ...requests.map((r) => [
            r.id,
            r.status,
            r.createdAt,
            r.name,
            r.email,
            r.organisation,
            r.use.replace(/\s+/g, ' ').slice(0, 60),
          ]),
        ]),
      );
    return 0;
  } finally {
    doc.destroy();
    await dynamo?.close();
  }
}

try {
  process.exitCode = await main();
} catch (error: unknown) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(`keys failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
