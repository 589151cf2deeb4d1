/**
 * The keyed and dynamic `/api/v1` (and the request-a-key form): a regional REST API behind
 * CloudFront, a REQUEST authorizer that checks the origin header and the API key, the manifest's
 * routes on the api function, two usage plans as coarse backstops, and API Gateway's own answers
 * as problem+json.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { PROBLEM_CONTENT_TYPE, PROBLEMS } from '../../functions/core/problems.ts';
import {
  API_STAGE,
  AUTHORIZER_RETRY_AFTER_SECONDS,
  GATEWAY_RESPONSE_HEADERS,
  GATEWAY_RESPONSES,
  type GatewayResponseName,
  gatewayProblemBody,
  ROUTES,
  SECRETS,
  TABLES,
} from '../manifest.ts';
import { Section } from './logical-ids.ts';
import { logGroup, ServiceFunction } from './service-function.ts';
import { type FunctionName, oncePerFunction } from './service-functions.ts';
import type { Storage } from './storage.ts';

/**
 * Usage key the authorizer returns for keyless requests. Not a secret: with apiKeySourceType
 * AUTHORIZER clients cannot present usage keys, only the authorizer can.
 */
export const PUBLIC_USAGE_KEY = 'border-waits-public-usage-key-v1';
/**
 * Usage key the authorizer returns for every live customer key. One shared key, so issuing a key
 * (`npm run keys`, a DynamoDB item) needs no API Gateway call; the exact per-key limit (60/min) is
 * the service's own DynamoDB counter, and this plan is only the aggregate backstop.
 */
export const KEYED_USAGE_KEY = 'border-waits-keyed-usage-key-v1';

/** `Retry-After` of API Gateway's own answers with these statuses. */
const RETRY_AFTER: Readonly<Record<number, string>> = {
  429: '1',
  503: String(AUTHORIZER_RETRY_AFTER_SECONDS),
};

export interface PublicApiProps {
  readonly storage: Storage;
  readonly functions: Record<FunctionName, ServiceFunction>;
}

export class PublicApi extends Section {
  readonly api: RestApi;
  readonly authorizerFunction: ServiceFunction;

  constructor(scope: Construct, id: string, { storage, functions }: PublicApiProps) {
    super(scope, id);

    this.authorizerFunction = new ServiceFunction(this, 'Fn-authorizer', {
      spec: {
        name: 'authorizer',
        entry: 'functions/handlers/authorizer.ts',
        memoryMb: 256,
        timeoutSeconds: 5,
        description: 'REQUEST authorizer: x-api-key hash lookup, usage key for the usage plan',
      },
      environment: {
        PUBLIC_USAGE_KEY,
        KEYED_USAGE_KEY,
        [SECRETS.originVerify.envVar]: storage.originSecret.secretArn,
      },
    }).useTable(TABLES.keys.envVar, storage.tables.keys, 'read');
    storage.originSecret.grantRead(this.authorizerFunction.fn);

    const api = new RestApi(this, 'Api', {
      description: 'Border waits /api/v1 (keyed and dynamic requests; CloudFront in front)',
      endpointTypes: [EndpointType.REGIONAL],
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      cloudWatchRole: true,
      deployOptions: {
        stageName: API_STAGE,
        accessLogDestination: new LogGroupLogDestination(logGroup(this, 'ApiAccessLogs')),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: MethodLoggingLevel.ERROR,
        metricsEnabled: true,
        // Stage-wide ceiling; per-key limits are the service's own (60/min, DESIGN.md 5).
        throttlingRateLimit: 100,
        throttlingBurstLimit: 200,
      },
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-level API Gateway logging role needs exactly this AWS-managed policy (execution logs, APIG6).',
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'The web ACL sits on CloudFront; the regional execute-api URL is only used as CloudFront origin.',
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-COG4',
      reason: 'Callers authenticate with API keys checked by a Lambda REQUEST authorizer, not Cognito.',
    });

    const requestValidator = api.addRequestValidator('Validator', {
      validateRequestParameters: true,
      validateRequestBody: true,
    });
    const authorizer = new RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: this.authorizerFunction.fn,
      identitySources: [],
      // No caching: keyless requests have no identity source to cache by, and revocation is immediate.
      resultsCacheTtl: Duration.seconds(0),
    });
    const integration = oncePerFunction(
      (name) => new LambdaIntegration(functions[name].fn, { allowTestInvoke: false }),
    );
    for (const route of ROUTES) {
      const resource = api.root.resourceForPath(route.path);
      for (const method of route.methods) {
        resource.addMethod(method, integration(route.function as FunctionName), {
          authorizer,
          apiKeyRequired: true,
          requestValidator,
        });
      }
    }

    // Usage plans are coarse backstops: API Gateway throttles per second with bursts and cannot
    // express 60/minute, so the service counts each key itself (DynamoDB, exact). Keyed traffic
    // shares one usage key, keyless traffic another.
    const plans = [
      ['Keyed', 'keyed', KEYED_USAGE_KEY, 'All keyed requests (each key: 60/min, counted by the service)'],
      [
        'Public',
        'public',
        PUBLIC_USAGE_KEY,
        'All keyless requests reaching the API (per-IP limits: WAF and the service)',
      ],
    ] as const;
    for (const [id, apiKeyName, value, description] of plans) {
      api
        .addUsagePlan(`${id}Plan`, {
          description,
          throttle: { rateLimit: 50, burstLimit: 100 },
          apiStages: [{ api, stage: api.deploymentStage }],
        })
        .addApiKey(api.addApiKey(`${id}UsageKey`, { apiKeyName, value }));
    }

    for (const [name, spec] of Object.entries(GATEWAY_RESPONSES) as [
      GatewayResponseName,
      (typeof GATEWAY_RESPONSES)[GatewayResponseName],
    ][]) {
      const { status } = PROBLEMS[spec.kind];
      const retryAfter = RETRY_AFTER[status];
      api.addGatewayResponse(name, {
        type: ResponseType[spec.responseType],
        ...(spec.fixedStatus ? { statusCode: String(status) } : {}),
        responseHeaders: {
          'Content-Type': `'${PROBLEM_CONTENT_TYPE}'`,
          ...(spec.fixedStatus && retryAfter ? { 'Retry-After': `'${retryAfter}'` } : {}),
          // Every response carries CORS, the limit policy (DESIGN.md section 5) and the attribution
          // link, API Gateway's own ones too.
          ...Object.fromEntries(
            Object.entries(GATEWAY_RESPONSE_HEADERS).map(([name, value]) => [name, `'${value}'`]),
          ),
        },
        templates: {
          'application/json': gatewayProblemBody(name, '$context.error.messageString'),
        },
      });
    }
    // The execute-api URL is only CloudFront's origin: clients use BaseUrl (no ApiEndpoint output).
    api.node.tryRemoveChild('Endpoint');
    this.api = api;
  }
}
