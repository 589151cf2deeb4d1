import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createKeyStore } from '../adapters/dynamo/keys.ts';
import { createLimitStore } from '../adapters/dynamo/limits.ts';
import { createPushAlertStore } from '../adapters/dynamo/push-alerts.ts';
import { createTelemetry } from '../adapters/powertools/telemetry.ts';
import { preloadS3 } from '../adapters/s3/sdk.ts';
import { createSecretsManagerSource } from '../adapters/secrets/secrets-manager.ts';
import { createStores } from '../adapters/stores.ts';
import { ApiConfigSchema, parseConfig, storeSettingsOf } from '../config.ts';
import { LIMITS } from '../contract.ts';
import { findPort, vapidKeysOf } from '../core/alerts/push.ts';
import { createReadApi } from '../core/api/read-api.ts';
import { currentSecret, type SecretSource } from '../core/secrets.ts';
import { type Clock, systemClock } from '../core/stores.ts';
import { accessPoliciesOf, createAccess } from '../http/access.ts';
import { createApiRouter } from '../http/api-router.ts';
import { createKeyRequestHandler } from '../http/key-requests.ts';
import { buildOpenApi } from '../http/openapi.ts';
import { problemFromError } from '../http/problem.ts';
import { createPushEndpoints } from '../http/push-subscriptions.ts';
import { problemResponse } from '../http/respond.ts';

/** The api function for a given environment (the local runtime passes its own). */
export function createApiHandler(
  env: Record<string, string | undefined>,
  clock: Clock = systemClock,
  secrets?: SecretSource,
) {
  const config = parseConfig(ApiConfigSchema, env);
  const telemetry = createTelemetry('api');
  const log = (line: string) => telemetry.log(line);
  const settings = storeSettingsOf(config);
  const stores = createStores(settings, clock);
  const readApi = createReadApi({ documents: stores.documents, observations: stores.observations, clock });
  const keys = createKeyStore(stores.dynamo, settings.tables.keys);
  const policies = accessPoliciesOf(config);
  const access = createAccess({
    keys,
    limits: createLimitStore(stores.dynamo, settings.tables.limits),
    clock,
    policies,
    log,
  });
  // The VAPID key is read at run time (Secrets Manager, loaded on the first push request), never
  // from the environment; only its public half leaves the function.
  let vapidSecrets = secrets;
  let publicKey: { secret: string; key: string } | undefined;
  const push = createPushEndpoints({
    store: createPushAlertStore(stores.dynamo, settings.tables.pushAlerts),
    clock,
    hosts: config.PUSH_SERVICE_HOSTS,
    findPort,
    async publicKey() {
      vapidSecrets ??= createSecretsManagerSource();
      const secret = await currentSecret(vapidSecrets, config.VAPID_KEY_SECRET);
      if (publicKey?.secret !== secret) publicKey = { secret, key: vapidKeysOf(secret).publicKey };
      return publicKey.key;
    },
  });
  const route = createApiRouter({
    readApi,
    access,
    push,
    keyRequests: createKeyRequestHandler({ requests: keys, clock }),
    openApi: () =>
      buildOpenApi({
        ...policies,
        pushHosts: config.PUSH_SERVICE_HOSTS,
        edgePerMinute: LIMITS.edgePerMinute,
      }),
    log,
  });
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use({
      onError: async (request) => {
        // Last line of defence: whatever escaped the router is a bare problem+json 500.
        telemetry.error('api unhandled', request.error);
        request.response = problemResponse(
          request.event,
          problemFromError(request.error, request.event.path),
        );
      },
    })
    .handler(route);
}

// Most requests read a published document: the S3 SDK module loads with the function (Lambda's
// init phase), not on the first request.
await preloadS3();

let cached: ReturnType<typeof createApiHandler> | undefined;

/** The Lambda entry point, configured from `process.env` on the first call. */
export const handler = (event: APIGatewayProxyEvent, context: Context) => {
  cached ??= createApiHandler(process.env);
  return cached(event, context);
};
