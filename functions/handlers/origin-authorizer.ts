/**
 * Lambda authorizer of the MCP HTTP API (payload 2.0, simple responses): admits a request only
 * when it carries the CDN's secret origin header, so `/mcp` reached directly at its execute-api
 * URL is refused (403; 401 when the header is missing, by API Gateway itself) before the mcp
 * function runs. The local HTTP API runs this same factory.
 */

import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { createSecretsManagerSource, preloadSecretsManager } from '../adapters/secrets/secrets-manager.ts';
import { OriginAuthorizerConfigSchema, parseConfig } from '../config.ts';
import { SECRETS } from '../contract.ts';
import type { SecretSource } from '../core/secrets.ts';
import { createOriginCheck, type OriginCheck, originHeaderOf } from '../http/origin-verify.ts';

export function createOriginAuthorizer(deps: { origin: OriginCheck }) {
  return async function authorize(
    event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers'>,
  ): Promise<{ isAuthorized: boolean }> {
    return { isAuthorized: await deps.origin(originHeaderOf(event.headers)) };
  };
}

/** The origin authorizer for a given environment (the stack sets the secret's ARN). */
export function createOriginAuthorizerHandler(
  env: Record<string, string | undefined>,
  secrets: SecretSource = createSecretsManagerSource(),
) {
  const config = parseConfig(OriginAuthorizerConfigSchema, env);
  return createOriginAuthorizer({ origin: createOriginCheck(secrets, config[SECRETS.originVerify.envVar]) });
}

// Every request checks the origin secret: the SDK module loads with the function (Lambda's init
// phase), not on the first request.
await preloadSecretsManager();

let cached: ReturnType<typeof createOriginAuthorizer> | undefined;

/** The Lambda entry point, configured from `process.env` on the first call. */
export async function handler(event: APIGatewayRequestAuthorizerEventV2) {
  cached ??= createOriginAuthorizerHandler(process.env);
  return cached(event);
}
