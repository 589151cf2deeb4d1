/**
 * API Gateway REQUEST authorizer (apiKeySourceType AUTHORIZER). First the CDN's secret origin
 * header: a request without it did not come through CloudFront and is denied (403) before any
 * handler runs, so no caller can pick its own `CloudFront-Viewer-Address`. Then the key: a request
 * without `x-api-key` is public and is metered under the shared public usage key; a key is checked
 * by the core (format and checksum, then the SHA-256 digest lookup, compared in constant time)
 * and, if live, metered under the shared keyed usage key, with its id passed to the api function,
 * which counts each key's requests exactly. Unknown, revoked or garbled: 401. A secret or key
 * store that cannot be read throws, which the stack's AUTHORIZER_FAILURE gateway response turns
 * into 503 with Retry-After. The local gateway runs this same factory before the api.
 */

import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { createDocumentClient } from '../adapters/dynamo/client.ts';
import { createKeyStore } from '../adapters/dynamo/keys.ts';
import { createSecretsManagerSource, preloadSecretsManager } from '../adapters/secrets/secrets-manager.ts';
import { AuthorizerConfigSchema, parseConfig, storeSettingsOf } from '../config.ts';
import { SECRETS } from '../contract.ts';
import { checkKey, type KeyStore } from '../core/access/keys.ts';
import type { SecretSource } from '../core/secrets.ts';
import { createOriginCheck, type OriginCheck, originHeaderOf } from '../http/origin-verify.ts';

export interface AuthorizerDeps {
  keys: Pick<KeyStore, 'getByHash'>;
  /** Whether the request carries the CDN's origin secret. */
  origin: OriginCheck;
  publicUsageKey: string;
  keyedUsageKey: string;
}

/** What the api function finds in `requestContext.authorizer` (context values are strings). */
export interface AuthorizerContext {
  keyId: string;
  account: string;
}

/** Caching is off (TTL 0), so the policy may cover the whole stage. */
const stageArnOf = (event: APIGatewayRequestAuthorizerEvent) =>
  `${event.methodArn.split('/').slice(0, 2).join('/')}/*`;

function allow(
  event: APIGatewayRequestAuthorizerEvent,
  principal: string,
  usageKey: string,
  context?: AuthorizerContext,
) {
  return {
    principalId: principal,
    usageIdentifierKey: usageKey,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageArnOf(event) }],
    },
    ...(context ? { context: { ...context } } : {}),
  } satisfies APIGatewayAuthorizerResult;
}

/** An explicit deny: API Gateway answers ACCESS_DENIED (403) and the api function never runs. */
function deny(event: APIGatewayRequestAuthorizerEvent) {
  return {
    principalId: 'unverified-origin',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: stageArnOf(event) }],
    },
  } satisfies APIGatewayAuthorizerResult;
}

export function createAuthorizer(deps: AuthorizerDeps) {
  return async function authorize(event: APIGatewayRequestAuthorizerEvent) {
    if (!(await deps.origin(originHeaderOf(event.headers)))) return deny(event);
    const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-api-key');
    // A present but empty header is a (bad) key, not an anonymous request: never a fall-back to public.
    if (header === undefined || header[1] === undefined) return allow(event, 'public', deps.publicUsageKey);
    const check = await checkKey(deps.keys, header[1]);
    // Throwing 'Unauthorized' is API Gateway's contract for a 401 (gateway response UNAUTHORIZED).
    if (!check.ok) throw new Error('Unauthorized');
    return allow(event, `key:${check.record.id}`, deps.keyedUsageKey, {
      keyId: check.record.id,
      account: check.record.account,
    });
  };
}

/** The authorizer for a given environment (the stack sets the usage keys and the key table). */
export function createAuthorizerHandler(
  env: Record<string, string | undefined>,
  secrets: SecretSource = createSecretsManagerSource(),
) {
  const config = parseConfig(AuthorizerConfigSchema, env);
  const settings = storeSettingsOf(config);
  return createAuthorizer({
    keys: createKeyStore(
      createDocumentClient({ endpoint: settings.dynamodbEndpoint, region: settings.region }),
      settings.tables.keys,
    ),
    origin: createOriginCheck(secrets, config[SECRETS.originVerify.envVar]),
    publicUsageKey: config.PUBLIC_USAGE_KEY,
    keyedUsageKey: config.KEYED_USAGE_KEY,
  });
}

// Every request checks the origin secret: the SDK module loads with the function (Lambda's init
// phase), not on the first request.
await preloadSecretsManager();

let cached: ReturnType<typeof createAuthorizer> | undefined;

/** The Lambda entry point, configured from `process.env` on the first call. */
export async function handler(event: APIGatewayRequestAuthorizerEvent) {
  cached ??= createAuthorizerHandler(process.env);
  return cached(event);
}
