/**
 * `npm run migrate`: moves the history of the layout before the packed one (one item per
 * observation, one rollup item per lane and hour of week) into the packed layout (one item per
 * port and UTC hour of observations; one item per port and port-local hour of week of rollups,
 * plus a summary per port). Idempotent and resumable: run it again after any crash; nothing is
 * lost. It runs under the ingest's lease (the ingest skips its cycles meanwhile); stop the ingest
 * schedule first all the same.
 *
 *   npm run migrate                  the store under DATA_DIR (default .data), attached to a running
 *                                    npm start or opened here
 *   npm run migrate -- --aws         the deployed tables: TABLE_OBSERVATIONS, TABLE_ROLLUPS and
 *                                    TABLE_HEALTH (the lease's) name them, AWS credentials and
 *                                    region as the AWS CLI finds them
 */
import { createDocumentClient } from '../functions/adapters/dynamo/client.ts';
import { asAnotherWriterOf } from '../functions/adapters/dynamo/lease.ts';
import { migrateHistory } from '../functions/adapters/dynamo/migrate.ts';
import { attachOrOpenDynamo } from '../infra/local/dynamo.ts';
import { TABLES } from '../infra/manifest.ts';

const USAGE = `usage: npm run migrate [-- --aws]
Moves stored history into the packed layout (idempotent; rerun after a crash).
Without --aws: the store under DATA_DIR (default .data), with or without npm start running.
With --aws: TABLE_OBSERVATIONS=<stack output> TABLE_ROLLUPS=<stack output> TABLE_HEALTH=<stack output>
npm run migrate -- --aws (AWS credentials and region as the AWS CLI finds them). Stop the ingest
schedule first; the migration holds the ingest's lease while it runs (for 30 minutes at most).`;

/** The longest the migration holds the ingest's lease (a crash frees it after this). */
const MIGRATE_LEASE_MS = 30 * 60_000;

const args = process.argv.slice(2);
const aws = args.includes('--aws');
const unknown = args.filter((arg) => arg !== '--aws');

async function main(): Promise<number> {
  if (args.includes('--help') || args.includes('help')) {
    console.log(USAGE);
    return 0;
  }
  if (unknown.length > 0) {
    console.error(`unexpected argument "${unknown[0]}"\n${USAGE}`);
    return 2;
  }
  const tables = aws
    ? {
        observations: process.env.TABLE_OBSERVATIONS,
        rollups: process.env.TABLE_ROLLUPS,
        health: process.env.TABLE_HEALTH,
      }
    : { observations: TABLES.observations.name, rollups: TABLES.rollups.name, health: TABLES.health.name };
  if (!tables.observations || !tables.rollups || !tables.health) {
    console.error(
      'with --aws, set TABLE_OBSERVATIONS, TABLE_ROLLUPS and TABLE_HEALTH to the deployed table names (the stack outputs)',
    );
    return 2;
  }
  const { observations, rollups, health } = tables;
  const dynamo = aws ? null : await attachOrOpenDynamo(process.env.DATA_DIR ?? '.data');
  const doc = createDocumentClient({ endpoint: dynamo?.endpoint, region: process.env.AWS_REGION });
  try {
    const started = performance.now();
    const exclusive = asAnotherWriterOf(doc, health, 'migrate', MIGRATE_LEASE_MS);
    const result = await exclusive(() =>
      migrateHistory(doc, { observations, rollups }, Date.now, (line) => console.log(line)),
    );
    console.log(
      `migrated: ${result.observations} observations, ${result.rollupItems} rollup items, ` +
        `${result.ports} ports' averages in ${((performance.now() - started) / 1000).toFixed(1)} s` +
        (result.observations + result.rollupItems === 0 ? ' (nothing left in the old layout)' : ''),
    );
    return 0;
  } finally {
    doc.destroy();
    await dynamo?.close();
  }
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(
    `migrate failed (rerun it: it resumes where it stopped): ${error instanceof Error ? error.message : String(error)}`,
  );
  return 1;
});
