/**
 * Lambda authorizer of the MCP HTTP API (payload 2.0, simple responses): admits a request only
 * when it carries the CDN's secret origin header, so `/mcp` reached directly at its execute-api
 * URL is refused (403; 401 when the header is missing, by API Gateway itself) before the mcp
 * function runs. The local HTTP API runs this same factory.
 */

import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { SECRETS } from '../../infra/manifest.ts';
import { createSecretsManagerSource } from '../adapters/secrets/secrets-manager.ts';
import { createOriginCheck, type OriginCheck, originHeaderOf } from '../http/origin-verify.ts';

export function createOriginAuthorizer(deps: { origin: OriginCheck }) {
  return async function authorize(
    event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers'>,
  ): Promise<{ isAuthorized: boolean }> {
    return { isAuthorized: await deps.origin(originHeaderOf(event.headers)) };
  };
}

let cached: ReturnType<typeof createOriginAuthorizer> | undefined;

export async function handler(event: APIGatewayRequestAuthorizerEventV2) {
  cached ??= createOriginAuthorizer({
    origin: createOriginCheck(
      createSecretsManagerSource(),
      process.env[SECRETS.originVerify.envVar] ?? SECRETS.originVerify.name,
    ),
  });
  return cached(event);
}
