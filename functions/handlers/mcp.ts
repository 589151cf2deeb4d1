import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createCdnDocumentStore } from '../adapters/cdn/documents.ts';
import { createAlertQuota } from '../adapters/dynamo/alert-quota.ts';
import { createAlertStore } from '../adapters/dynamo/alerts.ts';
import { createLimitStore } from '../adapters/dynamo/limits.ts';
import { createTelemetry } from '../adapters/powertools/telemetry.ts';
import { createExportStore } from '../adapters/s3/exports.ts';
import { createSecretsManagerSource } from '../adapters/secrets/secrets-manager.ts';
import { createStores } from '../adapters/stores.ts';
import { type McpConfig, McpConfigSchema, parseConfig, storeSettingsOf } from '../config.ts';
import { SECRETS } from '../contract.ts';
import { createReadApi } from '../core/api/read-api.ts';
import { currentSecret, type SecretSource } from '../core/secrets.ts';
import { type Clock, systemClock } from '../core/stores.ts';
import { clientIpKey } from '../http/client-ip.ts';
import { httpApiEventToRequest, responseToHttpApiResult } from '../http/http-api-event.ts';
import { ORIGIN_VERIFY_HEADER } from '../http/origin-verify.ts';
import { createMcpApp } from '../mcp/app.ts';
import { createJwtVerifier, resourceMetadataUrlOf } from '../mcp/auth.ts';

/** The `/mcp` app for a parsed configuration: built once per cold start (JWKS cache included). */
export function createMcpWebApp(
  config: McpConfig,
  clock: Clock = systemClock,
  secrets: SecretSource = createSecretsManagerSource(),
) {
  const settings = storeSettingsOf(config);
  // Its role reads only its exports in the bucket (infra/manifest.ts): the published views come
  // from the CDN, as any client reads them, with the origin secret that exempts the reads from
  // the WAF's per-IP rule (README, Security).
  const stores = createStores(settings, clock);
  const documents = createCdnDocumentStore({
    origin: config.MCP_DOCUMENTS_URL ?? new URL(config.MCP_RESOURCE_URL).origin,
    timeoutMs: config.MCP_DOCUMENTS_TIMEOUT_MS,
    now: () => clock.now(),
    revalidateAlways: config.MCP_DOCUMENTS_REVALIDATE,
    headers: async () => ({
      [ORIGIN_VERIFY_HEADER]: await currentSecret(secrets, config[SECRETS.originVerify.envVar]),
    }),
  });
  const auth = {
    resourceUrl: config.MCP_RESOURCE_URL,
    resourceMetadataUrl: resourceMetadataUrlOf(config.MCP_RESOURCE_URL),
    issuer: config.MCP_OAUTH_ISSUER,
    audience: config.MCP_OAUTH_AUDIENCE ?? config.MCP_RESOURCE_URL,
    jwksUrl: config.MCP_OAUTH_JWKS_URL,
    tierClaim: config.MCP_TIER_CLAIM,
  };
  const telemetry = createTelemetry('mcp');
  return createMcpApp({
    log: (line) => telemetry.log(line),
    auth,
    verifier: createJwtVerifier(auth),
    allowedHosts: config.MCP_ALLOWED_HOSTS,
    maxBodyBytes: config.MCP_MAX_BODY_BYTES,
    limits: {
      store: createLimitStore(stores.dynamo, settings.tables.limits),
      perIp: { name: 'mcp-ip', quota: config.MCP_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 },
      perUser: { name: 'mcp-user', quota: config.MCP_USER_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 },
      clock,
    },
    tools: {
      readApi: createReadApi({ documents, observations: stores.observations, clock }),
      clock,
      alerts: createAlertStore(stores.dynamo, settings.tables.alerts),
      alertQuota: createAlertQuota(stores.dynamo, settings.tables.limits),
      exports: createExportStore(stores.s3, settings.buckets.data),
      settings: {
        upgradeUrl: config.MCP_UPGRADE_URL,
        exportInlineMaxBytes: config.EXPORT_INLINE_MAX_BYTES,
        exportUrlTtlSeconds: config.EXPORT_URL_TTL_SECONDS,
        allowPrivateWebhooks: config.ALERT_WEBHOOK_ALLOW_PRIVATE,
        webhookSigningKey: () => currentSecret(secrets, config.WEBHOOK_SIGNING_KEY_SECRET),
      },
      newId: () => randomUUID(),
    },
  });
}

/** The mcp function behind the HTTP API (payload 2.0), for a given environment. */
export function createMcpHandler(
  env: Record<string, string | undefined>,
  clock: Clock = systemClock,
  secrets?: SecretSource,
) {
  const config = parseConfig(McpConfigSchema, env);
  const app = createMcpWebApp(config, clock, secrets);
  const publicOrigin = new URL(config.MCP_RESOURCE_URL).origin;
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>().handler(async (event) =>
    responseToHttpApiResult(
      await app(httpApiEventToRequest(event, publicOrigin), {
        // The HTTP API's origin authorizer admitted only requests from the CDN, which sets the header.
        clientIp: clientIpKey(
          event.headers?.['cloudfront-viewer-address'],
          event.requestContext.http.sourceIp,
        ),
      }),
    ),
  );
}

let cached: ReturnType<typeof createMcpHandler> | undefined;

/** The Lambda entry point, configured from `process.env` on the first call. */
export const handler = (event: APIGatewayProxyEventV2, context: Context) => {
  cached ??= createMcpHandler(process.env);
  return cached(event, context);
};
