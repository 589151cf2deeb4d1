/**
 * `npm run ingest`: one ingest cycle against the configured feeds and the stores under DATA_DIR,
 * then exits. Works whether or not `npm start` is running (it attaches to the running stores).
 */
import { createFileSecretSource, ensureFileSecret } from '../functions/adapters/secrets/files.ts';
import { createIngestHandler } from '../functions/handlers/ingest.ts';
import { attachOrOpenDynamo, runningEndpoints } from '../infra/local/dynamo.ts';
import { lambdaContext } from '../infra/local/lambda-context.ts';
import { startS3 } from '../infra/local/s3.ts';
import { FUNCTIONS, SECRETS } from '../infra/manifest.ts';

const dataDir = process.env.DATA_DIR ?? '.data';
const running = await runningEndpoints(dataDir);
const dynamo = await attachOrOpenDynamo(dataDir);
const s3 = running?.s3 ? { endpoint: running.s3, close: async () => {} } : await startS3(dataDir);
let failed = false;
try {
  // The local stand-in for Secrets Manager (the webhook signing key `npm start` created).
  await ensureFileSecret(dataDir, SECRETS.webhookSigningKey.name);
  const handler = createIngestHandler(
    {
      ...process.env,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
    },
    {
      secrets: createFileSecretSource(dataDir),
      // Plain lines for a person at a terminal; no EMF metric lines (CloudWatch reads those in AWS).
      log: (line) => console.log(line),
      metricsOutput: () => {},
    },
  );
  const outcomes = await handler(
    {} as never,
    lambdaContext(FUNCTIONS.ingest.name, FUNCTIONS.ingest.timeoutSeconds),
  );
  failed = outcomes.some((o) => o.outcome === 'failed' || o.outcome === 'refused');
} catch (error: unknown) {
  console.error(`ingest failed: ${error instanceof Error ? error.message : String(error)}`);
  failed = true;
} finally {
  await s3.close();
  await dynamo.close();
}
process.exit(failed ? 1 : 0);
