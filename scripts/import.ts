/**
 * `npm run import`: imports wait-time history into the rollups (and so the hourly averages and the
 * forecast profile) exactly as if it had been ingested; readings of the last 14 days also into the
 * observations. The whole file is checked before anything is written; a second import of the same
 * file changes nothing; the affected ports' averages documents are republished at once.
 *
 *   npm run import -- --input FILE [--format export|cascade-gateway]
 *                     [--port ID --direction D --mode M --lane L] [--aws]
 */
import { readFile } from 'node:fs/promises';
import { asAnotherWriterOf } from '../functions/adapters/dynamo/lease.ts';
import { createStores } from '../functions/adapters/stores.ts';
import { parseConfig, StoreConfigSchema, storeSettingsOf } from '../functions/config.ts';
import { type ImportReading, type ImportSummary, importReadings } from '../functions/core/history/import.ts';
import {
  ImportInputError,
  readCascadeGatewayCsv,
  readExportCsv,
} from '../functions/core/history/import-files.ts';
import { DIRECTIONS, LANES, MODES } from '../functions/core/model.ts';
import { systemClock } from '../functions/core/stores.ts';
import { attachOrOpenDynamo, runningEndpoints } from '../infra/local/dynamo.ts';
import { startS3 } from '../infra/local/s3.ts';

const USAGE = `usage: npm run import -- --input FILE [--format export|cascade-gateway]
                          [--port ID --direction D --mode M --lane L] [--aws]
  --format export           the CSV export_observations writes (default)
  --format cascade-gateway  the Border Data Warehouse's hourly CSV ("Group Starts,Avg - Delay (...)");
                            name its lane: --port 300402 --direction into-us --mode passenger --lane standard
  --aws                     the deployed tables and bucket: TABLE_OBSERVATIONS, TABLE_ROLLUPS,
                            TABLE_HEALTH and BUCKET_DATA name them (stack outputs), AWS credentials
                            and region as the AWS CLI finds them
Without --aws: the store under DATA_DIR (default .data), attached to a running npm start or opened here.
Each port is written under the ingest's lease: the import waits for a cycle in progress, and the
ingest skips the cycles that fall while a port is written.`;

class UsageError extends Error {}

/** How long one port's writes may hold the ingest's lease (the four-year real file takes seconds). */
const IMPORT_LEASE_MS = 5 * 60_000;

function options(argv: string[]): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'aws' || name === 'help') {
      out[name] = true;
      continue;
    }
    const value = inline ?? argv[i + 1];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value`);
    }
    if (inline === undefined) i++;
    out[name] = value;
  }
  return out;
}

const KNOWN = new Set(['input', 'format', 'port', 'direction', 'mode', 'lane', 'aws', 'help']);

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Where the stores are: the deployed ones, or the ones under DATA_DIR (attached or opened here). */
async function openStores(aws: boolean) {
  if (aws) {
    for (const name of ['TABLE_OBSERVATIONS', 'TABLE_ROLLUPS', 'TABLE_HEALTH', 'BUCKET_DATA']) {
      if (!process.env[name]) {
        throw new UsageError(
          `with --aws, set ${name} (and TABLE_OBSERVATIONS, TABLE_ROLLUPS, TABLE_HEALTH, BUCKET_DATA: the stack outputs)`,
        );
      }
    }
    const settings = storeSettingsOf(parseConfig(StoreConfigSchema, process.env));
    const stores = createStores(settings, systemClock);
    return { stores, healthTable: settings.tables.health, close: async () => stores.dynamo.destroy() };
  }
  const dataDir = process.env.DATA_DIR ?? '.data';
  const running = await runningEndpoints(dataDir);
  const dynamo = await attachOrOpenDynamo(dataDir);
  const s3 = running?.s3 ? { endpoint: running.s3, close: async () => {} } : await startS3(dataDir);
  const settings = storeSettingsOf(
    parseConfig(StoreConfigSchema, {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
    }),
  );
  const stores = createStores(settings, systemClock);
  return {
    stores,
    healthTable: settings.tables.health,
    async close() {
      stores.dynamo.destroy();
      stores.s3.destroy();
      await s3.close();
      await dynamo.close();
    },
  };
}

function readings(
  text: string,
  args: Record<string, string | true>,
  file: string,
): { readings: ImportReading[]; skipped: number } {
  const format = (args.format as string | undefined) ?? 'export';
  if (format === 'export') return { readings: readExportCsv(text, Date.now() + 10 * 60_000), skipped: 0 };
  if (format !== 'cascade-gateway')
    throw new UsageError(`--format must be export or cascade-gateway, got "${format}"`);
  const need = (name: string, allowed?: readonly string[]) => {
    const value = args[name];
    if (typeof value !== 'string') {
      throw new UsageError(
        `--format cascade-gateway needs --${name}: the file does not say which lane it measures (${file})`,
      );
    }
    if (allowed && !allowed.includes(value))
      throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value;
  };
  return readCascadeGatewayCsv(text, {
    portId: need('port'),
    direction: need('direction', DIRECTIONS) as ImportReading['direction'],
    mode: need('mode', MODES) as ImportReading['mode'],
    lane: need('lane', LANES) as ImportReading['lane'],
  });
}

function summaryLine(summary: ImportSummary, seconds: number): string {
  const span =
    summary.from && summary.to
      ? `readings from ${summary.from.slice(0, 16)}Z to ${summary.to.slice(0, 16)}Z`
      : 'no reading';
  return (
    `import: ${count(summary.read)} rows read, ${count(summary.written)} written, ` +
    `${count(summary.alreadyThere)} already there, ${count(summary.skipped)} skipped (no wait), ${span}; ` +
    `averages republished for ${summary.ports.length === 0 ? 'no port' : summary.ports.join(', ')}; ${seconds.toFixed(1)} s`
  );
}

async function main(): Promise<number> {
  const args = options(process.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const unknown = Object.keys(args).find((name) => !KNOWN.has(name));
  if (unknown) throw new UsageError(`unknown option --${unknown}`);
  const file = args.input;
  if (typeof file !== 'string') throw new UsageError('--input FILE is required');
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const started = performance.now();
  // The whole file is checked before anything is opened or written.
  let rows: { readings: ImportReading[]; skipped: number };
  try {
    rows = readings(text, args, file);
  } catch (error: unknown) {
    if (error instanceof ImportInputError) {
      console.error(`${file}: ${error.message}`);
      return 1;
    }
    throw error;
  }
  const { stores, healthTable, close } = await openStores(args.aws === true);
  const tty = process.stderr.isTTY === true;
  let shown = 0;
  try {
    const summary = await importReadings(
      {
        ...stores,
        clock: systemClock,
        exclusive: asAnotherWriterOf(stores.dynamo, healthTable, 'import', IMPORT_LEASE_MS),
        progress: (done, total) => {
          if (!tty || (done < total && performance.now() - shown < 200)) return;
          shown = performance.now();
          process.stderr.write(
            `\rimport: ${count(done)} / ${count(total)} rows (${Math.floor((done / Math.max(1, total)) * 100)} %)`,
          );
        },
      },
      rows.readings,
      rows.skipped,
    );
    if (tty) process.stderr.write('\n');
    console.log(summaryLine(summary, (performance.now() - started) / 1000));
    return 0;
  } finally {
    await close();
  }
}

process.exitCode = await main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE}`);
    return 2;
  }
  console.error(
    `import failed (rerun it: what was written stays, nothing counts twice): ${error instanceof Error ? error.message : String(error)}`,
  );
  return 1;
});
