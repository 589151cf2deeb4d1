/**
 * The deployed service, built from infra/manifest.ts (the same description the local runtime
 * reads). One stack in us-east-1: a CloudFront web ACL (scope CLOUDFRONT) must live in us-east-1,
 * and keeping everything there avoids cross-region references (local-aws-recipe.md 5.3).
 */
import { fileURLToPath } from 'node:url';
import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Duration, Fn, RemovalPolicy, SecretValue, Stack, Validations } from 'aws-cdk-lib';
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
import { type CfnStage, HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type {
  BehaviorOptions,
  HeadersReferrerPolicy,
  IOrigin,
  ResponseHeadersPolicyProps,
  ResponseSecurityHeadersBehavior,
} from 'aws-cdk-lib/aws-cloudfront';
import {
  AllowedMethods,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HttpVersion,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { METRIC_NAMES, METRICS_NAMESPACE } from '../functions/core/metrics.ts';
import { PROBLEM_CONTENT_TYPE, PROBLEMS, type ProblemKind, problemType } from '../functions/core/problems.ts';
import { SITE_ORIGIN } from '../functions/core/site.ts';
import { ORIGIN_VERIFY_HEADER } from '../functions/http/origin-verify.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import {
  AUTHORIZER_RETRY_AFTER_SECONDS,
  BUCKETS,
  DATA_PATH_PREFIXES,
  EDGE_RESPONSE_HEADERS,
  EXPORTS_PREFIX,
  FUNCTION_SPECS,
  FUNCTIONS,
  GATEWAY_RATELIMIT_POLICY,
  GATEWAY_RESPONSES,
  type GatewayResponseName,
  gatewayProblemBody,
  HTTP_ROUTES,
  LIMITS,
  ROUTES,
  SCHEDULES,
  SECRETS,
  TABLES,
} from './manifest.ts';

export const VIEWER_REQUEST_PATH = fileURLToPath(new URL('./edge/viewer-request.js', import.meta.url));

/** Static API views the edge rewrites to data-bucket objects (cache behaviour path patterns). */
export const STATIC_VIEW_PATTERNS = ROUTES.filter((route) => route.static).map((route) => `${route.path}*`);
/** Paths that always go to API Gateway (origin id `api`, the id the edge function selects). */
export const API_PATTERNS = ['/api/*', '/keys/*', '/.well-known/*'];
/**
 * Paths CloudFront sends to the HTTP API (origin id `mcp`), matched before API_PATTERNS. A REST
 * proxy integration would rename the MCP challenge's `WWW-Authenticate` header (DESIGN.md 5).
 */
export const HTTP_API_PATTERNS = HTTP_ROUTES.map((route) => route.path);
/** Not-found page for S3 403/404 (S3 answers 403 for a missing key without ListBucket). */
export const NOT_FOUND_KEY = 'errors/not-found.json';
/** CloudFront's header carrying the viewer's `ip:port`; forwarded explicitly to both APIs. */
export const VIEWER_ADDRESS_HEADER = 'CloudFront-Viewer-Address';
/** Viewer headers the REST API reads (keys, bodies, conditional requests, CORS). */
export const API_ORIGIN_HEADERS = [
  'x-api-key',
  'content-type',
  'accept',
  'origin',
  'if-none-match',
  'if-modified-since',
  VIEWER_ADDRESS_HEADER,
];
/** Viewer headers the MCP endpoint reads (Authorization travels through the cache policy). */
export const MCP_ORIGIN_HEADERS = [
  'content-type',
  'accept',
  'origin',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'last-event-id',
  VIEWER_ADDRESS_HEADER,
];
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

export interface BorderWaitsStackProps extends StackProps {
  /** WAF rate rule: requests per client IP per 60-second window (WAF's minimum limit is 10). */
  readonly edgeRateLimitPerMinute?: number;
  /** IdP settings the MCP tiers check tokens against (stored in SSM, passed by name). */
  readonly idpIssuer?: string;
  readonly idpAudience?: string;
  /** Public URL of the MCP endpoint (the OAuth resource); defaults to the audience. */
  readonly mcpResourceUrl?: string;
  /**
   * Version id of the origin secret CloudFront sends (`-c originSecretVersion=...`): after a
   * rotation, deploying with the new version's id makes CloudFront send the new value
   * (CloudFormation re-resolves a dynamic reference only when its text changes). Unset: AWSCURRENT.
   */
  readonly originSecretVersion?: string;
}

type TableName = keyof typeof TABLES;
type BucketName = keyof typeof BUCKETS;
type FunctionName = keyof typeof FUNCTIONS;

/** A problem+json body without `instance` (WAF custom bodies are static). */
const problemJson = (kind: ProblemKind, detail: string) =>
  JSON.stringify({
    type: problemType(kind),
    title: PROBLEMS[kind].title,
    status: PROBLEMS[kind].status,
    detail,
  });

export class BorderWaitsStack extends Stack {
  readonly tables: Record<TableName, TableV2>;
  readonly buckets: Record<BucketName, Bucket>;
  readonly functions: Record<FunctionName, ServiceFunction>;
  readonly api: RestApi;
  readonly httpApi: HttpApi;
  readonly distribution: Distribution;
  readonly authorizerFunction: ServiceFunction;
  readonly originAuthorizerFunction: ServiceFunction;
  readonly alarmKey: Key;

  constructor(scope: Construct, id: string, props: BorderWaitsStackProps = {}) {
    super(scope, id, props);

    // ---- Storage, from the manifest ----------------------------------------------------------
    const tables = {} as Record<TableName, TableV2>;
    for (const [key, spec] of Object.entries(TABLES) as [TableName, (typeof TABLES)[TableName]][]) {
      const sortKey = 'sortKey' in spec ? spec.sortKey : undefined;
      const ttl = 'ttlAttribute' in spec ? spec.ttlAttribute : undefined;
      tables[key] = new TableV2(this, `Table-${spec.name}`, {
        partitionKey: { name: spec.partitionKey, type: AttributeType.STRING },
        ...(sortKey ? { sortKey: { name: sortKey, type: AttributeType.STRING } } : {}),
        ...(ttl ? { timeToLiveAttribute: ttl } : {}),
        billing: Billing.onDemand(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    }
    this.tables = tables;

    // Server access logs and CloudFront standard logs. Legacy CloudFront logging writes with ACLs,
    // hence OBJECT_WRITER. Logs expire after 90 days.
    const logBucket = new Bucket(this, 'LogBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket; logging it into itself would loop.',
    });

    const buckets = {} as Record<BucketName, Bucket>;
    for (const [key, spec] of Object.entries(BUCKETS) as [BucketName, (typeof BUCKETS)[BucketName]][]) {
      // Versioning off: both buckets are derived output (views rebuilt by ingest, site by the build).
      buckets[key] = new Bucket(this, `Bucket-${spec.name}`, {
        blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
        encryption: BucketEncryption.S3_MANAGED,
        enforceSSL: true,
        serverAccessLogsBucket: logBucket,
        serverAccessLogsPrefix: `s3/${spec.name}/`,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    }
    // MCP exports are handed out as short-lived presigned URLs; the objects go a day later.
    buckets.data.addLifecycleRule({
      id: 'expire-exports',
      prefix: EXPORTS_PREFIX,
      expiration: Duration.days(1),
    });
    this.buckets = buckets;

    // ---- Secrets and settings, passed to functions by name --------------------------------------
    const webhookKey = new Secret(this, 'WebhookSigningKey', {
      description: 'HMAC key that signs outgoing alert webhooks',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(webhookKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Every alert webhook secret derives from this key: rotating it changes them all, so it is rotated by hand with notice to subscribers (README, Deploy).',
    });
    // CloudFront sends this as the custom origin header x-origin-verify to both APIs, whose
    // authorizers refuse requests without it: only the CDN can vouch for CloudFront-Viewer-Address.
    const originSecret = new Secret(this, 'OriginVerifySecret', {
      description: 'Value of the x-origin-verify header CloudFront adds to every request to the APIs',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotated by hand in two steps (new value, then a deploy pointing CloudFront at it; the authorizers accept the current and the previous value meanwhile): README, Security.',
    });
    const idpIssuer = new StringParameter(this, 'IdpIssuer', {
      description: 'OAuth issuer for MCP tokens',
      stringValue: props.idpIssuer ?? 'https://idp.example.invalid/',
    });
    const idpAudience = new StringParameter(this, 'IdpAudience', {
      description: 'Expected aud of MCP tokens (our /mcp resource)',
      stringValue: props.idpAudience ?? `${SITE_ORIGIN}/mcp`,
    });

    // ---- Functions: grants and env vars from the manifest's access maps ------------------------
    const functions = {} as Record<FunctionName, ServiceFunction>;
    for (const [key, spec] of Object.entries(FUNCTIONS) as [
      FunctionName,
      (typeof FUNCTIONS)[FunctionName],
    ][]) {
      const fn = new ServiceFunction(this, `Fn-${spec.name}`, { spec });
      for (const [table, access] of Object.entries(spec.tables) as [
        TableName,
        'read' | 'write' | 'readWrite',
      ][]) {
        fn.useTable(TABLES[table].envVar, tables[table], access);
      }
      for (const [bucket, access] of Object.entries(spec.buckets) as [
        BucketName,
        'read' | 'write' | 'readWrite',
      ][]) {
        fn.useBucket(BUCKETS[bucket].envVar, buckets[bucket], access);
      }
      const specOf = FUNCTION_SPECS[key];
      for (const [table, prefix] of Object.entries(specOf.tableWritesUnder ?? {})) {
        fn.putItemsUnder(tables[table as TableName], prefix);
      }
      for (const [bucket, prefix] of Object.entries(specOf.bucketWritesUnder ?? {})) {
        fn.putObjectsUnder(buckets[bucket as BucketName], prefix);
      }
      functions[key] = fn;
    }
    this.functions = functions;
    // The functions that sign (ingest) or hand out (mcp) webhook secrets read the signing key from
    // Secrets Manager at run time (cached per warm function): their environment holds only its ARN.
    for (const fn of [functions.ingest, functions.mcp]) {
      fn.fn.addEnvironment(SECRETS.webhookSigningKey.envVar, webhookKey.secretArn);
      webhookKey.grantRead(fn.fn);
    }
    // The IdP settings live in SSM; the mcp function gets their values at deploy (no runtime read).
    functions.mcp.fn.addEnvironment('MCP_RESOURCE_URL', props.mcpResourceUrl ?? idpAudience.stringValue);
    functions.mcp.fn.addEnvironment('MCP_OAUTH_AUDIENCE', idpAudience.stringValue);
    functions.mcp.fn.addEnvironment('MCP_OAUTH_ISSUER', idpIssuer.stringValue);

    const authorizerFn = new ServiceFunction(this, 'Fn-authorizer', {
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
        [SECRETS.originVerify.envVar]: originSecret.secretArn,
      },
    }).useTable(TABLES.keys.envVar, tables.keys, 'read');
    originSecret.grantRead(authorizerFn.fn);
    this.authorizerFunction = authorizerFn;
    const originAuthorizerFn = new ServiceFunction(this, 'Fn-origin-authorizer', {
      spec: {
        name: 'origin-authorizer',
        entry: 'functions/handlers/origin-authorizer.ts',
        memoryMb: 256,
        timeoutSeconds: 5,
        description: 'HTTP API authorizer: admits only requests carrying the CDN origin secret',
      },
      environment: { [SECRETS.originVerify.envVar]: originSecret.secretArn },
    });
    originSecret.grantRead(originAuthorizerFn.fn);
    this.originAuthorizerFunction = originAuthorizerFn;

    // ---- Schedules ------------------------------------------------------------------------------
    for (const spec of Object.values(SCHEDULES)) {
      if (spec.rateSeconds % 60 !== 0)
        throw new Error(`schedule ${spec.name}: EventBridge rates are whole minutes`);
      new Rule(this, `Schedule-${spec.name}`, {
        description: spec.description,
        schedule: Schedule.rate(Duration.minutes(spec.rateSeconds / 60)),
        targets: [new LambdaFunction(functions[spec.function].fn, { retryAttempts: 0 })],
      });
    }

    // ---- API Gateway ----------------------------------------------------------------------------
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const api = new RestApi(this, 'Api', {
      description: 'Border waits /api/v1 (keyed and dynamic requests; CloudFront in front)',
      endpointTypes: [EndpointType.REGIONAL],
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      cloudWatchRole: true,
      deployOptions: {
        stageName: 'prod',
        accessLogDestination: new LogGroupLogDestination(accessLogs),
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
    const validator = api.addRequestValidator('Validator', {
      validateRequestParameters: true,
      validateRequestBody: true,
    });
    const authorizer = new RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: authorizerFn.fn,
      identitySources: [],
      // No caching: keyless requests have no identity source to cache by, and revocation is immediate.
      resultsCacheTtl: Duration.seconds(0),
    });
    const integrations = new Map<string, LambdaIntegration>();
    for (const route of ROUTES) {
      const fnName = route.function as FunctionName;
      let integration = integrations.get(fnName);
      if (!integration) {
        integration = new LambdaIntegration(functions[fnName].fn, { allowTestInvoke: false });
        integrations.set(fnName, integration);
      }
      const resource = api.root.resourceForPath(route.path);
      for (const method of route.methods) {
        resource.addMethod(method, integration, {
          authorizer,
          apiKeyRequired: true,
          requestValidator: validator,
        });
      }
    }

    // Usage plans are coarse backstops: API Gateway throttles per second with bursts and cannot
    // express 60/minute, so the service counts each key itself (DynamoDB, exact). Keyed traffic
    // shares one usage key, keyless traffic another.
    const stage = api.deploymentStage;
    const keyedPlan = api.addUsagePlan('KeyedPlan', {
      description: 'All keyed requests (each key: 60/min, counted by the service)',
      throttle: { rateLimit: 50, burstLimit: 100 },
      apiStages: [{ api, stage }],
    });
    keyedPlan.addApiKey(api.addApiKey('KeyedUsageKey', { apiKeyName: 'keyed', value: KEYED_USAGE_KEY }));
    const publicPlan = api.addUsagePlan('PublicPlan', {
      description: 'All keyless requests reaching the API (per-IP limits: WAF and the service)',
      throttle: { rateLimit: 50, burstLimit: 100 },
      apiStages: [{ api, stage }],
    });
    publicPlan.addApiKey(api.addApiKey('PublicUsageKey', { apiKeyName: 'public', value: PUBLIC_USAGE_KEY }));

    for (const [id, spec] of Object.entries(GATEWAY_RESPONSES)) {
      const { status } = PROBLEMS[spec.kind];
      api.addGatewayResponse(id, {
        type: ResponseType[spec.responseType],
        ...(spec.fixedStatus ? { statusCode: String(status) } : {}),
        responseHeaders: {
          'Content-Type': `'${PROBLEM_CONTENT_TYPE}'`,
          'Access-Control-Allow-Origin': "'*'",
          ...(spec.fixedStatus && status === 429 ? { 'Retry-After': "'1'" } : {}),
          ...(spec.fixedStatus && status === 503
            ? { 'Retry-After': `'${AUTHORIZER_RETRY_AFTER_SECONDS}'` }
            : {}),
          // Every response carries the policy (DESIGN.md section 5), API Gateway's own ones too.
          'RateLimit-Policy': `'${GATEWAY_RATELIMIT_POLICY}'`,
        },
        templates: {
          'application/json': gatewayProblemBody(
            id as GatewayResponseName,
            '$context.error.messageString',
            '"$context.path"',
          ),
        },
      });
    }
    // The execute-api URL is only CloudFront's origin: clients use BaseUrl (no ApiEndpoint output).
    api.node.tryRemoveChild('Endpoint');
    this.api = api;

    // ---- HTTP API for /mcp (payload 2.0: headers pass through, WWW-Authenticate included) -------
    const httpAccessLogs = new LogGroup(this, 'HttpApiAccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const httpApi = new HttpApi(this, 'McpApi', {
      description: 'Border waits /mcp (MCP Streamable HTTP) and its OAuth protected resource metadata',
      createDefaultStage: true,
    });
    const defaultStage = httpApi.defaultStage?.node.defaultChild as CfnStage;
    defaultStage.accessLogSettings = {
      destinationArn: httpAccessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        requestTime: '$context.requestTime',
        routeKey: '$context.routeKey',
        status: '$context.status',
        responseLength: '$context.responseLength',
        integrationError: '$context.integrationErrorMessage',
      }),
    };
    defaultStage.defaultRouteSettings = { throttlingRateLimit: 100, throttlingBurstLimit: 200 };
    // Identity source: the origin header. Without it API Gateway answers 401 itself; with a wrong
    // value the authorizer answers 403; the mcp function runs for neither.
    const originAuthorizer = new HttpLambdaAuthorizer('OriginAuthorizer', originAuthorizerFn.fn, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [`$request.header.${ORIGIN_VERIFY_HEADER}`],
      // No caching: a rotated-out value stops working as soon as the authorizer stops accepting it.
      resultsCacheTtl: Duration.seconds(0),
    });
    const httpIntegrations = new Map<string, HttpLambdaIntegration>();
    for (const route of HTTP_ROUTES) {
      const fnName = route.function as FunctionName;
      let integration = httpIntegrations.get(fnName);
      if (!integration) {
        integration = new HttpLambdaIntegration(`Http-${fnName}`, functions[fnName].fn);
        httpIntegrations.set(fnName, integration);
      }
      // A CloudFront prefix pattern becomes the exact path plus a greedy tail.
      const paths = route.path.endsWith('*')
        ? [route.path.slice(0, -1), `${route.path.slice(0, -1)}/{proxy+}`]
        : [route.path];
      const methods = route.methods.map((m) => HttpMethod[m as keyof typeof HttpMethod]);
      for (const path of paths)
        httpApi.addRoutes({ path, methods, integration, authorizer: originAuthorizer });
    }
    Validations.of(httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'MCP mixes anonymous and OAuth tools on one endpoint: the function answers the 401/403 challenges itself (DESIGN.md 5).',
    });
    this.httpApi = httpApi;

    // ---- WAF (CLOUDFRONT scope: this stack is in us-east-1) -------------------------------------
    const rateLimit = props.edgeRateLimitPerMinute ?? LIMITS.edgePerMinute;
    const webAcl = new CfnWebACL(this, 'EdgeAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: {
        cloudWatchMetricsEnabled: true,
        metricName: 'edge-acl',
        sampledRequestsEnabled: true,
      },
      // WAF custom bodies allow only text/plain, text/html or application/json content types.
      customResponseBodies: {
        'rate-limited': {
          contentType: 'APPLICATION_JSON',
          content: problemJson(
            'rate-limited',
            `More than ${rateLimit} requests in 60 seconds from this address.`,
          ),
        },
      },
      rules: [
        {
          name: 'rate-per-ip',
          priority: 0,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'rate-limited',
                responseHeaders: [
                  { name: 'retry-after', value: '60' },
                  { name: 'ratelimit-policy', value: `"edge";q=${rateLimit};w=60` },
                ],
              },
            },
          },
          statement: {
            rateBasedStatement: { limit: rateLimit, aggregateKeyType: 'IP', evaluationWindowSec: 60 },
          },
          visibilityConfig: {
            cloudWatchMetricsEnabled: true,
            metricName: 'rate-per-ip',
            sampledRequestsEnabled: true,
          },
        },
      ],
    });

    // ---- CloudFront -----------------------------------------------------------------------------
    const viewerRequest = new EdgeFunction(this, 'ViewerRequest', {
      code: FunctionCode.fromFile({ filePath: VIEWER_REQUEST_PATH }),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Static API views to S3 keys; keyed and dynamic requests to the api origin',
    });
    const functionAssociations = [{ function: viewerRequest, eventType: FunctionEventType.VIEWER_REQUEST }];

    const siteOrigin = S3BucketOrigin.withOriginAccessControl(buckets.site, { originId: 'site' });
    const dataOrigin = S3BucketOrigin.withOriginAccessControl(buckets.data, { originId: 'data' });
    // The secret origin header (a dynamic reference: resolved by CloudFormation, not in the template).
    const originHeaders = {
      [ORIGIN_VERIFY_HEADER]: (props.originSecretVersion
        ? SecretValue.secretsManager(originSecret.secretArn, { versionId: props.originSecretVersion })
        : originSecret.secretValue
      ).unsafeUnwrap(),
    };
    const apiOrigin = new RestApiOrigin(api, { originId: 'api', customHeaders: originHeaders });
    // https://<id>.execute-api.<region>.amazonaws.com -> its host name.
    const mcpOrigin = new HttpOrigin(Fn.select(2, Fn.split('/', httpApi.apiEndpoint)), {
      originId: 'mcp',
      customHeaders: originHeaders,
    });
    // Named headers only (never Host, which API Gateway needs to be its own), and CloudFront's
    // CloudFront-Viewer-Address, which a managed policy may not forward: without it every viewer
    // behind one edge would share one allowance.
    const apiRequests = new OriginRequestPolicy(this, 'ApiOriginRequests', {
      comment: 'REST API: the headers it reads, and the viewer address',
      headerBehavior: OriginRequestHeaderBehavior.allowList(...API_ORIGIN_HEADERS),
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      cookieBehavior: OriginRequestCookieBehavior.none(),
    });
    const mcpRequests = new OriginRequestPolicy(this, 'McpOriginRequests', {
      comment: 'MCP HTTP API: the MCP headers, and the viewer address',
      headerBehavior: OriginRequestHeaderBehavior.allowList(...MCP_ORIGIN_HEADERS),
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      cookieBehavior: OriginRequestCookieBehavior.none(),
    });
    // CloudFront forwards Authorization only through a cache policy (an origin request policy may
    // not name it). POSTs are never cached, and a 1-second ceiling keeps the metadata GETs fresh.
    const mcpCache = new CachePolicy(this, 'McpPassThrough', {
      comment: 'MCP: Authorization reaches the origin; effectively uncached',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.seconds(1),
      headerBehavior: CacheHeaderBehavior.allowList('Authorization'),
      queryStringBehavior: CacheQueryStringBehavior.none(),
    });

    const headersPolicy = new ResponseHeadersPolicy(
      this,
      'EdgeHeaders',
      edgeHeadersPolicy(EDGE_RESPONSE_HEADERS),
    );
    // Honour the origin's Cache-Control (MinTTL 0); the defaults apply only when it sends none.
    // Keyless view requests reach the cache with the rewritten URI and no query string, so they
    // share one entry per document. A keyed request keeps its URI and goes to the api origin from
    // the same behaviour: query string and x-api-key are in the key so it never hits another
    // request's entry (and the API marks keyed responses private, which CloudFront does not store).
    const viewPolicy = (id: string, comment: string) =>
      new CachePolicy(this, id, {
        comment,
        minTtl: Duration.seconds(0),
        defaultTtl: Duration.seconds(60),
        maxTtl: Duration.days(1),
        queryStringBehavior: CacheQueryStringBehavior.all(),
        headerBehavior: CacheHeaderBehavior.allowList('x-api-key'),
        enableAcceptEncodingGzip: true,
        enableAcceptEncodingBrotli: true,
      });
    const s3Behavior = (origin: IOrigin, cachePolicy: CachePolicy): BehaviorOptions => ({
      origin,
      cachePolicy,
      compress: true,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
      responseHeadersPolicy: headersPolicy,
      functionAssociations,
    });
    const additionalBehaviors: Record<string, BehaviorOptions> = {};
    for (const pattern of STATIC_VIEW_PATTERNS) {
      const name = pattern.replace('/api/v1/', '').replace('*', '');
      additionalBehaviors[pattern] = s3Behavior(dataOrigin, viewPolicy(`Cache-${name}`, `View ${name}`));
    }
    const dataPolicy = viewPolicy('Cache-data', 'Published documents, RSS');
    for (const prefix of [...DATA_PATH_PREFIXES, `/${NOT_FOUND_KEY.split('/')[0]}/`]) {
      additionalBehaviors[prefix.endsWith('/') ? `${prefix}*` : prefix] = s3Behavior(dataOrigin, dataPolicy);
    }
    for (const pattern of HTTP_API_PATTERNS) {
      // No viewer-request function: these go to the HTTP API untouched, Authorization included.
      additionalBehaviors[pattern] = {
        origin: mcpOrigin,
        cachePolicy: mcpCache,
        originRequestPolicy: mcpRequests,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        compress: true,
      };
    }
    for (const pattern of API_PATTERNS) {
      additionalBehaviors[pattern] = {
        origin: apiOrigin,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: apiRequests,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        compress: true,
        functionAssociations,
      };
    }
    const notFound = {
      responseHttpStatus: 404,
      responsePagePath: `/${NOT_FOUND_KEY}`,
      ttl: Duration.seconds(60),
    };
    this.distribution = new Distribution(this, 'Cdn', {
      comment: 'border waits: site, published views, API',
      defaultBehavior: s3Behavior(siteOrigin, viewPolicy('Cache-site', 'Status site')),
      defaultRootObject: 'index.html',
      additionalBehaviors,
      // S3 answers 403 for a missing key (no ListBucket for OAC): both become the problem+json 404.
      errorResponses: [
        { httpStatus: 403, ...notFound },
        { httpStatus: 404, ...notFound },
      ],
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket,
      logFilePrefix: 'cloudfront/',
      webAclId: webAcl.attrArn,
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'Public data about the US borders for anyone, anywhere: no geo restriction.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason: 'Default *.cloudfront.net certificate until the custom domain and its ACM certificate exist.',
    });

    // ---- Alarms and dashboard -------------------------------------------------------------------
    const ingest = functions.ingest.fn;
    const apiFn = functions.api.fn;
    const alarms = [
      new Alarm(this, 'IngestErrors', {
        alarmDescription: 'Ingest failed 3 cycles in a row: feeds may be stale',
        metric: ingest.metricErrors({ period: Duration.minutes(1) }),
        threshold: 1,
        evaluationPeriods: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'IngestNotRunning', {
        alarmDescription: 'No ingest invocation in 10 minutes: the schedule stopped, the feeds go stale',
        metric: ingest.metricInvocations({ period: Duration.minutes(10) }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.BREACHING,
      }),
      new Alarm(this, 'FeedsFailing', {
        alarmDescription:
          'A feed failed or was refused at every cycle for 15 minutes: its readings age towards stale',
        // The ingest function counts failed and refused documents per cycle (EMF, Powertools).
        metric: new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: METRIC_NAMES.feedFailures,
          dimensionsMap: { service: FUNCTIONS.ingest.name },
          statistic: 'Sum',
          period: Duration.minutes(15),
        }),
        threshold: 15,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'Api5xx', {
        alarmDescription: 'API Gateway 5XX responses',
        metric: api.metricServerError({ period: Duration.minutes(5) }),
        threshold: 5,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'ApiThrottles', {
        alarmDescription: 'api function throttled (account concurrency reached)',
        metric: apiFn.metricThrottles({ period: Duration.minutes(5) }),
        threshold: 1,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'Mcp5xx', {
        alarmDescription: 'MCP endpoint 5xx responses (function errors, JWKS unreachable)',
        metric: httpApi.metricServerError({ period: Duration.minutes(5) }),
        threshold: 5,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    ];
    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `${this.stackName}-service` });
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Ingest',
        left: [ingest.metricInvocations(), ingest.metricErrors()],
        right: [ingest.metricDuration()],
      }),
      new GraphWidget({
        title: 'API',
        left: [api.metricCount(), api.metricClientError(), api.metricServerError()],
        right: [api.metricLatency()],
      }),
      new GraphWidget({
        title: 'api function',
        left: [apiFn.metricErrors(), apiFn.metricThrottles()],
        right: [apiFn.metricDuration()],
      }),
      new GraphWidget({
        title: 'MCP',
        left: [httpApi.metricCount(), httpApi.metricClientError(), httpApi.metricServerError()],
        right: [functions.mcp.fn.metricDuration()],
      }),
    );
    // Operators subscribe to this topic (email, chat, paging) after the deploy. CloudWatch alarms
    // cannot publish to a topic under the AWS-managed SNS key (its policy cannot be changed), so
    // the topic has its own key whose policy lets CloudWatch use it.
    const alarmKey = new Key(this, 'AlarmKey', {
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    alarmKey.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    const alarmTopic = new Topic(this, 'Alarms', {
      displayName: 'border waits alarms',
      enforceSSL: true,
      masterKey: alarmKey,
    });
    this.alarmKey = alarmKey;
    for (const alarm of alarms) {
      alarm.addAlarmAction(new SnsAction(alarmTopic));
      alarm.addOkAction(new SnsAction(alarmTopic));
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: alarmTopic.topicArn });

    new CfnOutput(this, 'BaseUrl', { value: `https://${this.distribution.distributionDomainName}` });
    new CfnOutput(this, 'KeysTableName', { value: this.tables.keys.tableName });
    new CfnOutput(this, 'McpUrl', { value: `https://${this.distribution.distributionDomainName}/mcp` });
    // For `npm run migrate -- --aws`, which moves stored history into the packed layout.
    new CfnOutput(this, 'ObservationsTableName', { value: this.tables.observations.tableName });
    new CfnOutput(this, 'RollupsTableName', { value: this.tables.rollups.tableName });
  }
}

/** Maps the manifest's header list onto CloudFront's CORS, security and custom header sections. */
export function edgeHeadersPolicy(headers: Readonly<Record<string, string>>): ResponseHeadersPolicyProps {
  const custom: { header: string; value: string; override: boolean }[] = [];
  let cors: ResponseHeadersPolicyProps['corsBehavior'];
  const security: {
    -readonly [K in keyof ResponseSecurityHeadersBehavior]: ResponseSecurityHeadersBehavior[K];
  } = {
    frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
  };
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'access-control-allow-origin') {
      cors = {
        accessControlAllowOrigins: [value],
        accessControlAllowMethods: ['GET', 'HEAD', 'OPTIONS'],
        accessControlAllowHeaders: ['*'],
        accessControlAllowCredentials: false,
        accessControlExposeHeaders: (headers['access-control-expose-headers'] ?? '')
          .split(',')
          .map((h) => h.trim())
          .filter(Boolean),
        originOverride: true,
      };
    } else if (lower === 'access-control-expose-headers') {
      // Folded into the CORS section above.
    } else if (lower === 'strict-transport-security') {
      const maxAge = Number(/max-age=(\d+)/.exec(value)?.[1] ?? 0);
      security.strictTransportSecurity = {
        accessControlMaxAge: Duration.seconds(maxAge),
        includeSubdomains: /includeSubDomains/i.test(value),
        preload: /preload/i.test(value),
        override: true,
      };
    } else if (lower === 'x-content-type-options') {
      security.contentTypeOptions = { override: true };
    } else if (lower === 'referrer-policy') {
      security.referrerPolicy = { referrerPolicy: value as HeadersReferrerPolicy, override: true };
    } else {
      custom.push({ header: name, value, override: false });
    }
  }
  return {
    comment: 'EDGE_RESPONSE_HEADERS from infra/manifest.ts plus security headers',
    ...(cors ? { corsBehavior: cors } : {}),
    securityHeadersBehavior: security,
    ...(custom.length > 0 ? { customHeadersBehavior: { customHeaders: custom } } : {}),
  };
}
