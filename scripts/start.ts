/**
 * `npm start`: the whole service on embedded stand-ins, polling the configured feeds.
 * `npm run demo`: the same, fed by the built-in feed simulator on loopback (no internet needed).
 */
import { startSimulator } from '../infra/local/simulator/server.ts';
import { startLocal } from '../infra/local/start-local.ts';
import { buildSiteIfStale } from './site-build.ts';

const env = process.env;
const demo = process.argv.includes('--demo');

// The site is served from site/dist: a fresh clone (or a changed source) builds it first.
try {
  buildSiteIfStale((line) => console.log(line));
} catch (error: unknown) {
  console.error(error instanceof Error ? error.message : String(error));
  console.error(
    'the site could not be built: fix the error above, or run `npm run build:site` to see it again',
  );
  process.exit(1);
}
const simulator = demo ? await startSimulator({}) : undefined;
const intervalSeconds = Number(env.INGEST_INTERVAL_SECONDS ?? 60);
if (!Number.isInteger(intervalSeconds) || intervalSeconds < 1) {
  console.error(
    `INGEST_INTERVAL_SECONDS must be a whole number of seconds >= 1, got "${env.INGEST_INTERVAL_SECONDS}"`,
  );
  process.exit(2);
}
const functionEnv: Record<string, string> = {};
for (const name of [
  'KEY_RATE_LIMIT_PER_MINUTE',
  'PUBLIC_RATE_LIMIT_PER_MINUTE',
  'KEY_REQUESTS_PER_HOUR',
  'EDGE_RATE_LIMIT_PER_MINUTE',
  'FEED_TIMEOUT_MS',
  'FEED_MAX_BYTES',
  'MCP_OAUTH_ISSUER',
  'MCP_OAUTH_AUDIENCE',
  'MCP_OAUTH_JWKS_URL',
  'MCP_RESOURCE_URL',
  'MCP_DOCUMENTS_TIMEOUT_MS',
  'MCP_TIER_CLAIM',
  'MCP_RATE_LIMIT_PER_MINUTE',
  'MCP_USER_RATE_LIMIT_PER_MINUTE',
  'PUSH_SERVICE_HOSTS',
  'PUSH_SUBSCRIPTIONS_PER_HOUR',
  'PUSH_TIMEOUT_MS',
]) {
  const value = env[name];
  if (value !== undefined) functionEnv[name] = value;
}

try {
  const service = await startLocal({
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '127.0.0.1',
    dataDir: env.DATA_DIR ?? '.data',
    cbpFeedUrl: simulator?.cbpXmlUrl ?? env.CBP_FEED_URL,
    cbsaFeedUrl: simulator?.cbsaEnUrl ?? env.CBSA_FEED_URL,
    ingestIntervalSeconds: intervalSeconds,
    ...(env.DEV_IDP_PORT ? { idpPort: Number(env.DEV_IDP_PORT) } : {}),
    env: functionEnv,
  });
  console.log(`border waits ${demo ? '(demo feeds from the simulator) ' : ''}serving on ${service.url}`);
  console.log(`  ${service.url}/api/v1/port-current?include=ports`);
  console.log(
    `  MCP: ${service.mcpUrl} (OAuth issuer ${service.issuer}${service.idp ? ', development IdP' : ''})`,
  );
  console.log(`  origin (API Gateway's part; refuses requests that skip the edge): ${service.originUrl}`);
  console.log(`  data under ${service.dataDir}; stop with Ctrl-C`);
  const shutdown = async () => {
    await service.stop();
    await simulator?.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
} catch (error: unknown) {
  await simulator?.stop();
  const message = error instanceof Error ? error.message : String(error);
  console.error(`could not start: ${message}`);
  if (/EADDRINUSE/.test(message)) console.error(`port ${env.PORT ?? 3000} is taken: set PORT to another one`);
  process.exit(1);
}
