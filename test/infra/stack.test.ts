import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRIC_NAMES, METRICS_NAMESPACE } from '../../functions/core/metrics.ts';
import { VIEW_PATHS } from '../../functions/core/views/view-paths.ts';
import { ORIGIN_VERIFY_HEADER } from '../../functions/http/origin-verify.ts';
import {
  API_STAGE,
  AUTHORIZER_RETRY_AFTER_SECONDS,
  EDGE_RESPONSE_HEADERS,
  EXPORTS_PREFIX,
  FUNCTIONS,
  GATEWAY_RATELIMIT_POLICY,
  ROUTES,
  SECRETS,
  TABLES,
} from '../../infra/manifest.ts';
import {
  API_ORIGIN_HEADERS,
  API_PATTERNS,
  BorderWaitsStack,
  HTTP_API_PATTERNS,
  KEYED_USAGE_KEY,
  MCP_ORIGIN_HEADERS,
  PUBLIC_USAGE_KEY,
  STATIC_VIEW_PATTERNS,
  VIEWER_REQUEST_PATH,
} from '../../infra/stack.ts';

type Json = Record<string, unknown>;
let stack: BorderWaitsStack;
let template: Template;
let resources: Record<string, { Type: string; Properties: Json }>;

beforeAll(() => {
  // Bundling skipped: `npm run synth` bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new BorderWaitsStack(app, 'Test', {
    env: { account: '123456789012', region: 'us-east-1' },
    edgeRateLimitPerMinute: 250,
  });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
});

/** The logical id of the origin request policy whose comment starts with `comment`. */
function originRequestPolicyId(comment: string): string {
  const found = Object.entries(template.findResources('AWS::CloudFront::OriginRequestPolicy')).find(([, r]) =>
    String(r.Properties.OriginRequestPolicyConfig.Comment).startsWith(comment),
  );
  if (!found) throw new Error(`no origin request policy ${comment}`);
  return found[0];
}

function cachePolicyId(comment: string): string {
  const found = Object.entries(template.findResources('AWS::CloudFront::CachePolicy')).find(([, r]) =>
    String(r.Properties.CachePolicyConfig.Comment).startsWith(comment),
  );
  if (!found) throw new Error(`no cache policy ${comment}`);
  return found[0];
}

const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

const roleOf = (fn: keyof typeof FUNCTIONS | 'authorizer' | 'origin-authorizer') =>
  fn === 'authorizer'
    ? stack.authorizerFunction.role
    : fn === 'origin-authorizer'
      ? stack.originAuthorizerFunction.role
      : stack.functions[fn].role;

/** Statements of the role of `fn` on resources that reference `resourceId`. */
function statementsOn(fn: Parameters<typeof roleOf>[0], resourceId: string): Statement[] {
  const roleId = logicalId(roleOf(fn));
  const out: Statement[] = [];
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::IAM::Policy') continue;
    if (!JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`)) continue;
    const doc = r.Properties.PolicyDocument as { Statement: Statement[] };
    for (const st of doc.Statement) {
      if (JSON.stringify(st.Resource).includes(`"${resourceId}"`)) out.push(st);
    }
  }
  return out;
}

/** Actions the role of `fn` is allowed on resources that reference `resourceId`. */
function actionsOn(fn: Parameters<typeof roleOf>[0], resourceId: string): string[] {
  return statementsOn(fn, resourceId).flatMap((st) => [st.Action].flat());
}

/** The logical id of the secret whose description contains `description`. */
function secretId(description: string): string {
  const found = Object.entries(template.findResources('AWS::SecretsManager::Secret')).find(([, r]) =>
    String(r.Properties.Description).includes(description),
  );
  if (!found) throw new Error(`no secret described as ${description}`);
  return found[0];
}

describe('tables from the manifest', () => {
  it.each(Object.values(TABLES))('$name: keys, TTL, on-demand, PITR, protection, retain', (spec) => {
    const keySchema: { AttributeName: string; KeyType: string }[] = [
      { AttributeName: spec.partitionKey, KeyType: 'HASH' },
    ];
    if ('sortKey' in spec) keySchema.push({ AttributeName: spec.sortKey, KeyType: 'RANGE' });
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: keySchema,
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification:
          'ttlAttribute' in spec ? { AttributeName: spec.ttlAttribute, Enabled: true } : Match.absent(),
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
  });
  it('one table per manifest entry', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', Object.keys(TABLES).length);
  });
});

describe('functions', () => {
  it('one NodejsFunction per manifest entry plus the authorizer: Node 24, arm64, explicit log group', () => {
    const fns = template.findResources('AWS::Lambda::Function', {
      Properties: {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        LoggingConfig: { LogGroup: Match.anyValue() },
      },
    });
    // Plus the REST key authorizer and the HTTP API's origin authorizer.
    expect(Object.keys(fns)).toHaveLength(Object.keys(FUNCTIONS).length + 2);
  });
  it('log groups have a retention', () => {
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    expect(groups.length).toBeGreaterThanOrEqual(4);
    for (const g of groups) expect(g.Properties.RetentionInDays).toBe(30);
  });
  it('no AWS-managed execution role policy on function roles', () => {
    const roles = Object.values(template.findResources('AWS::IAM::Role')).filter((r) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com'),
    );
    expect(roles).toHaveLength(Object.keys(FUNCTIONS).length + 2);
    for (const r of roles) expect(r.Properties.ManagedPolicyArns).toBeUndefined();
  });
  it('the grants follow the access map: api reads observations, never writes; ingest writes', () => {
    const obs = logicalId(stack.tables.observations);
    const api = actionsOn('api', obs);
    expect(api).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(api).not.toEqual(expect.arrayContaining(['dynamodb:PutItem']));
    expect(api.filter((a) => /Put|Update|Delete|BatchWrite/.test(a))).toEqual([]);
    expect(actionsOn('ingest', obs)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:BatchWriteItem']),
    );
    expect(actionsOn('ingest', logicalId(stack.tables.keys))).toEqual([]);
  });
  it('the api function reads keys and writes only key requests (PutItem under REQUEST#)', () => {
    const keys = logicalId(stack.tables.keys);
    const statements = statementsOn('api', keys);
    const writes = statements.filter((st) =>
      [st.Action].flat().some((a) => /Put|Update|Delete|BatchWrite|\*$/.test(a)),
    );
    expect(writes).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:PutItem',
        Resource: { 'Fn::GetAtt': [keys, 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['REQUEST#*'] } },
      },
    ]);
    expect(actionsOn('api', keys)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Scan']));
  });
  it('the mcp function reads the views and exports of the data bucket, lists nothing, and writes only under exports/', () => {
    const data = logicalId(stack.buckets.data);
    const writes = statementsOn('mcp', data).filter((st) =>
      [st.Action].flat().some((a) => /^s3:(Put|Delete|Abort)/.test(a)),
    );
    expect(writes.length).toBeGreaterThan(0);
    for (const st of writes) {
      expect(JSON.stringify(st.Resource)).toContain(`/${EXPORTS_PREFIX}*`);
      expect([st.Action].flat().filter((a) => a.startsWith('s3:Delete'))).toEqual([]);
    }
    expect(actionsOn('mcp', data)).toEqual(expect.arrayContaining(['s3:GetObject']));
    expect(actionsOn('mcp', data).filter((a) => a.startsWith('s3:List'))).toEqual([]);
    // ingest still publishes anywhere in the bucket
    expect(actionsOn('ingest', data)).toEqual(expect.arrayContaining(['s3:PutObject']));
  });
  it('only ingest and mcp may read the webhook signing key, and their environment holds only its ARN', () => {
    const secret = secretId('HMAC key');
    const fns = Object.values(template.findResources('AWS::Lambda::Function'));
    const withKey = fns
      .filter((fn) => fn.Properties.Environment?.Variables?.[SECRETS.webhookSigningKey.envVar] !== undefined)
      .map((fn) => fn.Properties.Description)
      .sort();
    expect(withKey).toEqual([FUNCTIONS.ingest.description, FUNCTIONS.mcp.description].sort());
    for (const fn of fns) {
      const variables = fn.Properties.Environment?.Variables ?? {};
      // No secret value is resolved into any function's environment.
      expect(JSON.stringify(variables)).not.toContain('resolve:secretsmanager');
      expect(variables.WEBHOOK_SIGNING_KEY).toBeUndefined();
      if (variables[SECRETS.webhookSigningKey.envVar] !== undefined)
        expect(variables[SECRETS.webhookSigningKey.envVar]).toEqual({ Ref: secret });
    }
    for (const fn of ['ingest', 'mcp'] as const)
      expect(actionsOn(fn, secret)).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue']));
    expect(actionsOn('api', secret)).toEqual([]);
  });
  it('env vars carry the physical names', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: FUNCTIONS.api.description,
      Environment: {
        Variables: Match.objectLike({
          [TABLES.observations.envVar]: { Ref: logicalId(stack.tables.observations) },
          BUCKET_DATA: { Ref: logicalId(stack.buckets.data) },
        }),
      },
    });
  });
});

describe('push alerts', () => {
  const table = () => logicalId(stack.tables.pushAlerts);
  it('the table expires alerts by TTL (ttl) and is keyed by subscription and slot', () => {
    expect(resources[table()]?.Properties).toMatchObject({
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
  });
  it('the api function creates, renews and deletes alerts but cannot list them; the ingest cannot create one', () => {
    expect(actionsOn('api', table()).sort()).toEqual(
      ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'].sort(),
    );
    expect(actionsOn('ingest', table()).sort()).toEqual(
      ['dynamodb:DeleteItem', 'dynamodb:Query', 'dynamodb:Scan', 'dynamodb:UpdateItem'].sort(),
    );
    for (const fn of ['mcp', 'forecast'] as const) expect(actionsOn(fn, table())).toEqual([]);
  });
  it('only ingest and api may read the VAPID key, and their environment holds only its ARN', () => {
    const secret = secretId('VAPID');
    const withKey = Object.values(template.findResources('AWS::Lambda::Function'))
      .filter((fn) => fn.Properties.Environment?.Variables?.[SECRETS.vapidKey.envVar] !== undefined)
      .map((fn) => {
        expect(fn.Properties.Environment.Variables[SECRETS.vapidKey.envVar]).toEqual({ Ref: secret });
        return fn.Properties.Description;
      })
      .sort();
    expect(withKey).toEqual([FUNCTIONS.api.description, FUNCTIONS.ingest.description].sort());
    for (const fn of ['ingest', 'api'] as const)
      expect(actionsOn(fn, secret)).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue']));
    for (const fn of ['mcp', 'forecast'] as const) expect(actionsOn(fn, secret)).toEqual([]);
  });
  it('/push/* goes to the api origin with Authorization forwarded, HTTPS only', () => {
    const dist = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0];
    const behaviours = dist?.Properties.DistributionConfig.CacheBehaviors as Json[];
    const behaviour = behaviours.find((b) => b.PathPattern === '/push/*') as Json;
    expect(behaviour).toMatchObject({ TargetOriginId: 'api', ViewerProtocolPolicy: 'https-only' });
    const policy = resources[(behaviour.CachePolicyId as { Ref: string }).Ref]?.Properties
      .CachePolicyConfig as { ParametersInCacheKeyAndForwardedToOrigin: Json };
    expect(policy.ParametersInCacheKeyAndForwardedToOrigin.HeadersConfig).toEqual({
      HeaderBehavior: 'whitelist',
      Headers: ['Authorization'],
    });
    expect(behaviour.OriginRequestPolicyId).toEqual({ Ref: originRequestPolicyId('REST API') });
  });
});

describe('one ingest at a time', () => {
  it('the ingest and forecast functions have a reserved concurrency of 1; the others draw on the shared pool', () => {
    const fnOf = (name: keyof typeof FUNCTIONS) =>
      resources[logicalId(stack.functions[name].fn)]?.Properties ?? {};
    expect(fnOf('ingest').ReservedConcurrentExecutions).toBe(1);
    expect(fnOf('forecast').ReservedConcurrentExecutions).toBe(1);
    expect(fnOf('api').ReservedConcurrentExecutions).toBeUndefined();
    expect(fnOf('mcp').ReservedConcurrentExecutions).toBeUndefined();
  });
});

describe('schedule', () => {
  it('ingest every minute', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack.functions.ingest.fn), 'Arn'] } })],
    });
  });
  it('the forecast function every 5 minutes, on its own rule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack.functions.forecast.fn), 'Arn'] } })],
    });
  });
  it('the forecast function writes forecasts and documents; the ingest no longer reaches the forecasts table', () => {
    const forecasts = logicalId(stack.tables.forecasts);
    expect(actionsOn('forecast', forecasts)).toEqual(expect.arrayContaining(['dynamodb:PutItem']));
    expect(actionsOn('ingest', forecasts)).toEqual([]);
    const obs = logicalId(stack.tables.observations);
    expect(actionsOn('forecast', obs).filter((a) => /Put|Update|Delete|BatchWrite/.test(a))).toEqual([]);
    expect(actionsOn('forecast', logicalId(stack.buckets.data))).toEqual(
      expect.arrayContaining(['s3:PutObject']),
    );
  });
});

describe('CloudFront', () => {
  let config: Json & { CacheBehaviors: Json[]; DefaultCacheBehavior: Json; Origins: Json[] };
  let fnId: string;
  beforeAll(() => {
    const dist = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0];
    config = dist?.Properties.DistributionConfig;
    fnId = Object.keys(template.findResources('AWS::CloudFront::Function'))[0] as string;
  });

  it('the viewer-request function is cloudfront-js-2.0 with the file text as code', () => {
    template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: readFileSync(VIEWER_REQUEST_PATH, 'utf8'),
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
  });
  it('origins site, data, api, mcp', () => {
    expect(config.Origins.map((o) => o.Id).sort()).toEqual(['api', 'data', 'mcp', 'site']);
  });
  it('behaviours route to the right origin, all with the function on viewer-request', () => {
    const byPath = new Map(config.CacheBehaviors.map((b) => [b.PathPattern as string, b]));
    const expected: [string, string][] = [
      ...STATIC_VIEW_PATTERNS.map((p): [string, string] => [p, 'data']),
      ['/v1/*', 'data'],
      ['/rss.xml', 'data'],
      ['/rss/*', 'data'],
      ...API_PATTERNS.map((p): [string, string] => [p, 'api']),
    ];
    for (const [path, origin] of expected) expect(byPath.get(path)?.TargetOriginId, path).toBe(origin);
    // The not-found document ships with the site: the default (site) behaviour serves it.
    expect(byPath.has('/errors/*')).toBe(false);
    // Every view the CDN has a document for, straight from the view table.
    for (const view of Object.values(VIEW_PATHS).filter((v) => v.document !== null))
      expect(byPath.get(`${view.path}*`)?.TargetOriginId, view.path).toBe('data');
    expect(config.DefaultCacheBehavior.TargetOriginId).toBe('site');
    const viaFunction = config.CacheBehaviors.filter(
      (b) => !HTTP_API_PATTERNS.includes(b.PathPattern as string),
    );
    for (const b of [...viaFunction, config.DefaultCacheBehavior]) {
      expect(b.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [fnId, 'FunctionARN'] } },
      ]);
      expect(b.Compress).toBe(true);
    }
    // The static views must be matched before the catch-all API behaviour.
    const order = config.CacheBehaviors.map((b) => b.PathPattern);
    expect(order.indexOf('/api/v1/ports*')).toBeLessThan(order.indexOf('/api/*'));
  });
  it('api behaviours: caching disabled, the explicit origin request policy', () => {
    const policy = originRequestPolicyId('REST API');
    for (const b of config.CacheBehaviors.filter(
      (x) => x.TargetOriginId === 'api' && x.PathPattern !== '/push/*',
    )) {
      expect(b.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
      expect(b.OriginRequestPolicyId).toEqual({ Ref: policy });
    }
  });
  it('view cache policies honour origin Cache-Control (MinTTL 0) and compress', () => {
    const policies = Object.values(template.findResources('AWS::CloudFront::CachePolicy')).filter(
      (p) => !/^(MCP|Web Push)/.test(String(p.Properties.CachePolicyConfig.Comment)),
    );
    expect(policies.length).toBeGreaterThanOrEqual(4);
    for (const p of policies) {
      const c = p.Properties.CachePolicyConfig;
      expect(c.MinTTL).toBe(0);
      const key = c.ParametersInCacheKeyAndForwardedToOrigin;
      expect(key.EnableAcceptEncodingGzip).toBe(true);
      // Keyed requests to a view path go to the api origin from the view's behaviour.
      expect(key.HeadersConfig).toEqual({ HeaderBehavior: 'whitelist', Headers: ['x-api-key'] });
      expect(key.QueryStringsConfig).toEqual({ QueryStringBehavior: 'all' });
    }
  });
  it('S3 403/404 become the problem+json not-found document, 416 the range one', () => {
    expect(config.CustomErrorResponses).toEqual([
      ...[403, 404].map((code) => ({
        ErrorCode: code,
        ResponseCode: 404,
        ResponsePagePath: '/errors/not-found.json',
        ErrorCachingMinTTL: 60,
      })),
      {
        ErrorCode: 416,
        ResponseCode: 416,
        ResponsePagePath: '/errors/range-not-satisfiable.json',
        ErrorCachingMinTTL: 60,
      },
    ]);
    expect(
      JSON.parse(
        readFileSync(new URL('../../site/public/errors/range-not-satisfiable.json', import.meta.url), 'utf8'),
      ),
    ).toMatchObject({ status: 416, type: 'https://border-waits.dev/problems/range-not-satisfiable' });
    // The default (site) behaviour serves that path: the site build ships the document.
    const page = JSON.parse(
      readFileSync(new URL('../../site/public/errors/not-found.json', import.meta.url), 'utf8'),
    );
    expect(page).toMatchObject({ status: 404, title: 'Not found', type: expect.stringMatching(/^https:/) });
    expect(config.Logging).toMatchObject({ Prefix: 'cloudfront/' });
    const aclId = Object.keys(template.findResources('AWS::WAFv2::WebACL'))[0];
    expect(config.WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
  });
  it('response headers policy carries every EDGE_RESPONSE_HEADERS entry', () => {
    const policy = Object.values(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0];
    const text = JSON.stringify(policy).toLowerCase();
    for (const [name, value] of Object.entries(EDGE_RESPONSE_HEADERS)) {
      const mapped: Record<string, string> = {
        'access-control-allow-origin': '"accesscontrolalloworigins":{"items":["*"]}',
        'access-control-expose-headers': '"accesscontrolexposeheaders":{"items":["etag"',
        'strict-transport-security': '"accesscontrolmaxagesec":63072000,"includesubdomains":true',
        'x-content-type-options': '"contenttypeoptions":{"override":true}',
        'referrer-policy': `"referrerpolicy":"${value}"`,
      };
      expect(text, name).toContain(
        mapped[name] ?? `"header":"${name}","override":false,"value":${JSON.stringify(value).toLowerCase()}`,
      );
    }
  });
});

describe('MCP over the HTTP API (WWW-Authenticate must survive)', () => {
  let behaviors: Json[];
  beforeAll(() => {
    const dist = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0];
    behaviors = dist?.Properties.DistributionConfig.CacheBehaviors;
  });

  it('an HTTP API (payload 2.0) integrates the mcp function', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    const integration = Object.values(template.findResources('AWS::ApiGatewayV2::Integration'))[0];
    expect(integration?.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
    expect(JSON.stringify(integration?.Properties.IntegrationUri)).toContain(
      logicalId(stack.functions.mcp.fn),
    );
  });

  it('routes /mcp (ANY: the function answers 405 to all but POST) and both metadata paths', () => {
    const keys = Object.values(template.findResources('AWS::ApiGatewayV2::Route'))
      .map((r) => r.Properties.RouteKey as string)
      .sort();
    expect(keys).toEqual(
      [
        'ANY /mcp',
        'GET /.well-known/oauth-protected-resource',
        'HEAD /.well-known/oauth-protected-resource',
        'GET /.well-known/oauth-protected-resource/{proxy+}',
        'HEAD /.well-known/oauth-protected-resource/{proxy+}',
      ].sort(),
    );
  });

  it('the REST API has no /mcp resource', () => {
    const paths = Object.values(template.findResources('AWS::ApiGateway::Resource')).map(
      (r) => r.Properties.PathPart,
    );
    expect(paths).not.toContain('mcp');
  });

  it('the $default stage logs access', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
  });

  it('CloudFront sends /mcp and the metadata to the HTTP API, uncached, before the /.well-known/* catch-all', () => {
    for (const pattern of HTTP_API_PATTERNS) {
      const b = behaviors.find((x) => x.PathPattern === pattern);
      expect(b?.TargetOriginId, pattern).toBe('mcp');
      expect(b?.CachePolicyId).toEqual({ Ref: cachePolicyId('MCP') });
      expect(b?.OriginRequestPolicyId).toEqual({ Ref: originRequestPolicyId('MCP HTTP API') });
      expect(b?.AllowedMethods).toContain('POST');
      // The viewer-request function answers their preflights (and passes the rest on).
      expect(b?.FunctionAssociations).toEqual([expect.objectContaining({ EventType: 'viewer-request' })]);
    }
    const order = behaviors.map((b) => b.PathPattern);
    expect(order.indexOf('/.well-known/oauth-protected-resource*')).toBeLessThan(
      order.indexOf('/.well-known/*'),
    );
  });

  it('the mcp function knows its resource URL, audience and issuer; grants follow the manifest', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: FUNCTIONS.mcp.description,
      Environment: {
        Variables: Match.objectLike({
          MCP_RESOURCE_URL: Match.anyValue(),
          MCP_OAUTH_AUDIENCE: Match.anyValue(),
          MCP_OAUTH_ISSUER: Match.anyValue(),
          TABLE_ALERTS: Match.anyValue(),
        }),
      },
    });
    const alerts = logicalId(stack.tables.alerts);
    expect(actionsOn('mcp', alerts)).toContain('dynamodb:PutItem');
    expect(actionsOn('ingest', alerts)).toContain('dynamodb:PutItem');
    expect(actionsOn('api', alerts)).toEqual([]);
  });

  it('has no reference cycle (the mcp function names the distribution, which fronts its HTTP API)', () => {
    const refsOf = (value: unknown, out: Set<string>): Set<string> => {
      if (Array.isArray(value)) for (const item of value) refsOf(item, out);
      else if (value && typeof value === 'object') {
        const object = value as Record<string, unknown>;
        if (typeof object.Ref === 'string') out.add(object.Ref);
        const getAtt = object['Fn::GetAtt'];
        if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') out.add(getAtt[0]);
        for (const item of Object.values(object)) refsOf(item, out);
      }
      return out;
    };
    const edges = new Map<string, string[]>();
    for (const [id, resource] of Object.entries(resources)) {
      const out = refsOf((resource as { Properties?: unknown }).Properties, new Set());
      for (const d of [(resource as { DependsOn?: string | string[] }).DependsOn ?? []].flat()) out.add(d);
      edges.set(
        id,
        [...out].filter((ref) => ref in resources),
      );
    }
    const state = new Map<string, 'open' | 'done'>();
    const cycleFrom = (id: string, path: string[]): string[] | null => {
      if (state.get(id) === 'done') return null;
      if (state.get(id) === 'open') return [...path.slice(path.indexOf(id)), id];
      state.set(id, 'open');
      for (const next of edges.get(id) ?? []) {
        const cycle = cycleFrom(next, [...path, id]);
        if (cycle) return cycle;
      }
      state.set(id, 'done');
      return null;
    };
    for (const id of edges.keys()) expect(cycleFrom(id, [])).toBeNull();
    const mcp = Object.values(resources).find(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Description === FUNCTIONS.mcp.description,
    ) as { Properties: { Environment: { Variables: Json } } } | undefined;
    expect(JSON.stringify(mcp?.Properties.Environment.Variables.MCP_DOCUMENTS_URL)).toContain('DomainName');
  });

  it('exports expire from the data bucket after a day', () => {
    const data = resources[logicalId(stack.buckets.data)];
    expect(JSON.stringify(data?.Properties.LifecycleConfiguration)).toContain(`"Prefix":"${EXPORTS_PREFIX}"`);
  });
});

describe('WAF', () => {
  it('rate rule per IP over a 60 s window answers 429 problem JSON', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      CustomResponseBodies: {
        'rate-limited': { ContentType: 'APPLICATION_JSON', Content: Match.stringLikeRegexp('"status":429') },
      },
      Rules: [
        Match.objectLike({
          Statement: { RateBasedStatement: { Limit: 250, AggregateKeyType: 'IP', EvaluationWindowSec: 60 } },
          Action: {
            Block: {
              CustomResponse: Match.objectLike({
                ResponseCode: 429,
                CustomResponseBodyKey: 'rate-limited',
                ResponseHeaders: Match.arrayWith([{ Name: 'ratelimit-policy', Value: '"edge";q=250;w=60' }]),
              }),
            },
          },
        }),
      ],
    });
    expect(stack.region).toBe('us-east-1');
  });
  it("the WAF's 429 carries the author link and CORS, as every answer does", () => {
    type Rule = { Action?: { Block?: { CustomResponse?: { ResponseHeaders?: unknown[] } } } };
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0];
    const rules = (acl?.Properties.Rules ?? []) as Rule[];
    const headers = rules.flatMap((rule) => rule.Action?.Block?.CustomResponse?.ResponseHeaders ?? []);
    expect(headers).toEqual(
      expect.arrayContaining([
        { Name: 'link', Value: '<https://border-waits.dev/>; rel="author"' },
        { Name: 'access-control-allow-origin', Value: '*' },
      ]),
    );
  });
});

describe('API Gateway', () => {
  it('keys come from the authorizer', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });
  it('REQUEST authorizer on the authorizer function, no caching', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      AuthorizerUri: Match.objectLike({
        'Fn::Join': [
          '',
          Match.arrayWith([{ 'Fn::GetAtt': [Match.stringLikeRegexp('Fnauthorizer'), 'Arn'] }]),
        ],
      }),
    });
  });
  it("every path takes ANY method, so a wrong method is the function's 405, never MISSING_AUTHENTICATION_TOKEN", () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    expect(new Set(methods.map((m) => m.Properties.HttpMethod))).toEqual(new Set(['ANY']));
    // A catch-all at the root: any other path is the function's problem+json 404.
    const parts = Object.values(template.findResources('AWS::ApiGateway::Resource')).map((r) => r.Properties);
    expect(parts).toContainEqual(
      expect.objectContaining({
        PathPart: '{proxy+}',
        ParentId: { 'Fn::GetAtt': [expect.any(String), 'RootResourceId'] },
      }),
    );
  });
  it('every method reaches the viewer-request function on the bucket behaviours (405 and preflights at the edge)', () => {
    const dist = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0];
    const config = dist?.Properties.DistributionConfig;
    const s3 = [config.DefaultCacheBehavior, ...config.CacheBehaviors].filter(
      (b: { TargetOriginId: string }) => b.TargetOriginId === 'site' || b.TargetOriginId === 'data',
    );
    expect(s3.length).toBeGreaterThan(3);
    for (const b of s3) {
      expect(b.AllowedMethods, b.PathPattern).toEqual(
        expect.arrayContaining(['POST', 'PUT', 'DELETE', 'OPTIONS']),
      );
      expect(b.FunctionAssociations, b.PathPattern).toEqual([
        expect.objectContaining({ EventType: 'viewer-request' }),
      ]);
    }
  });
  it('every route method uses the authorizer and requires a usage key', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    const expected = ROUTES.reduce((n, r) => n + r.methods.length, 0);
    expect(methods).toHaveLength(expected);
    for (const m of methods) {
      expect(m.Properties).toMatchObject({ AuthorizationType: 'CUSTOM', ApiKeyRequired: true });
    }
  });
  it('usage plans: keyed and keyless traffic each under one usage key the authorizer returns', () => {
    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Description: Match.stringLikeRegexp('keyed'),
      Throttle: { RateLimit: 50, BurstLimit: 100 },
    });
    for (const value of [KEYED_USAGE_KEY, PUBLIC_USAGE_KEY]) {
      template.hasResourceProperties('AWS::ApiGateway::ApiKey', { Value: value, Enabled: true });
    }
    expect(Object.keys(template.findResources('AWS::ApiGateway::UsagePlanKey'))).toHaveLength(2);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ KEYED_USAGE_KEY, PUBLIC_USAGE_KEY }) },
    });
  });
  it.each([
    ['DEFAULT_4XX', undefined],
    ['DEFAULT_5XX', undefined],
    ['THROTTLED', '429'],
    ['QUOTA_EXCEEDED', '429'],
    ['UNAUTHORIZED', '401'],
    ['ACCESS_DENIED', '403'],
    ['MISSING_AUTHENTICATION_TOKEN', '404'],
    ['REQUEST_TOO_LARGE', '413'],
  ])(
    'gateway response %s is problem+json with CORS, the limit policy and the author link',
    (type, status) => {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: status ?? Match.absent(),
        ResponseParameters: Match.objectLike({
          'gatewayresponse.header.Content-Type': "'application/problem+json'",
          'gatewayresponse.header.ratelimit-policy': `'${GATEWAY_RATELIMIT_POLICY}'`,
          'gatewayresponse.header.link': `'<https://border-waits.dev/>; rel="author"'`,
          'gatewayresponse.header.access-control-allow-origin': "'*'",
          'gatewayresponse.header.access-control-expose-headers': Match.stringLikeRegexp('Link'),
        }),
        ResponseTemplates: {
          'application/json': Match.stringLikeRegexp('"type":"https://border-waits.dev/problems/'),
        },
      });
    },
  );
  it('gateway responses carry no `instance`: their templates only substitute variables, and `$context.path` has the stage', () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
    expect(responses.length).toBeGreaterThan(0);
    for (const response of responses) {
      const body = response.Properties.ResponseTemplates['application/json'] as string;
      expect(body).not.toContain('"instance"');
      // Simple substitution only (no Velocity): a method call would be printed, not run.
      expect(body).not.toMatch(/\$context\.[\w.]+\(/);
    }
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: API_STAGE });
  });
  it('stage: access logs, error logging, throttling', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      MethodSettings: [
        Match.objectLike({ LoggingLevel: 'ERROR', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
      ],
    });
  });
});

describe('operations', () => {
  it('alarms on ingest and forecast errors, ingest silence, failing feeds, API 5XX and throttles, MCP 5xx; a dashboard', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    expect(alarms.map((a) => a.MetricName).sort()).toEqual([
      '5XXError',
      '5xx',
      'Errors',
      'Errors',
      'FeedFailures',
      'Invocations',
      'Throttles',
    ]);
    // Failing feeds are a metric the ingest function writes (EMF), not a filter over log text.
    template.resourceCountIs('AWS::Logs::MetricFilter', 0);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC_NAMES.feedFailures,
      Dimensions: [{ Name: 'service', Value: 'ingest' }],
      Statistic: 'Sum',
      Period: 900,
      Threshold: 15,
    });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });
  it('the alarm topic is encrypted with its own KMS key, whose policy lets CloudWatch publish', () => {
    const keyId = logicalId(stack.alarmKey);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    const key = resources[keyId];
    expect(key?.Type).toBe('AWS::KMS::Key');
    expect(key?.Properties.EnableKeyRotation).toBe(true);
    const policy = key?.Properties.KeyPolicy as { Statement: (Statement & { Principal: unknown })[] };
    const statements = policy.Statement;
    const cloudwatch = statements.find((st) =>
      JSON.stringify(st.Principal).includes('cloudwatch.amazonaws.com'),
    );
    expect(cloudwatch?.Effect).toBe('Allow');
    expect([cloudwatch?.Action].flat()).toEqual(
      expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']),
    );
  });
  it('every alarm notifies the alarm topic (SSL only, encrypted) when it fires and when it clears', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      }),
    });
    const topic = Object.keys(template.findResources('AWS::SNS::Topic'))[0];
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topic }]);
    }
    template.hasOutput('AlarmTopicArn', {});
  });
  it('outputs BaseUrl and the keys table name, and no execute-api URL', () => {
    template.hasOutput('BaseUrl', {});
    expect(template.findOutputs('ApiUrl')).toEqual({});
    expect(JSON.stringify(template.toJSON().Outputs)).not.toContain('execute-api');
    template.hasOutput('KeysTableName', { Value: { Ref: logicalId(stack.tables.keys) } });
    template.hasOutput('ObservationsTableName', { Value: { Ref: logicalId(stack.tables.observations) } });
    template.hasOutput('RollupsTableName', { Value: { Ref: logicalId(stack.tables.rollups) } });
    template.hasOutput('HealthTableName', { Value: { Ref: logicalId(stack.tables.health) } });
  });
  it('webhook key in Secrets Manager, IdP settings in SSM feeding the mcp function', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 3);
    const parameters = template.findResources('AWS::SSM::Parameter');
    expect(Object.keys(parameters)).toHaveLength(2);
    const idOf = (description: string) =>
      Object.entries(parameters).find(([, p]) => String(p.Properties.Description).includes(description))?.[0];
    const mcp = Object.values(template.findResources('AWS::Lambda::Function')).find(
      (fn) => fn.Properties.Description === FUNCTIONS.mcp.description,
    );
    const variables = mcp?.Properties.Environment.Variables;
    expect(variables.MCP_OAUTH_ISSUER).toEqual({ 'Fn::GetAtt': [idOf('OAuth issuer'), 'Value'] });
    expect(variables.MCP_OAUTH_AUDIENCE).toEqual({ 'Fn::GetAtt': [idOf('Expected aud'), 'Value'] });
  });
});

describe('only the CDN reaches the APIs, and it vouches for the viewer address', () => {
  let origins: Json[];
  beforeAll(() => {
    const dist = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0];
    origins = dist?.Properties.DistributionConfig.Origins;
  });

  it('CloudFront adds the origin secret, a Secrets Manager dynamic reference, to both API origins', () => {
    const secret = secretId('x-origin-verify');
    for (const id of ['api', 'mcp']) {
      const origin = origins.find((o) => o.Id === id) as { OriginCustomHeaders?: Json[] };
      const header = origin.OriginCustomHeaders?.find((h) => h.HeaderName === ORIGIN_VERIFY_HEADER);
      const value = JSON.stringify(header?.HeaderValue);
      expect(value, id).toContain('{{resolve:secretsmanager:');
      expect(value, id).toContain(secret);
    }
    for (const id of ['site', 'data']) {
      const origin = origins.find((o) => o.Id === id) as { OriginCustomHeaders?: Json[] };
      expect(JSON.stringify(origin.OriginCustomHeaders ?? [])).not.toContain(ORIGIN_VERIFY_HEADER);
    }
  });

  it('a given secret version can be pinned after a rotation', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const pinned = new BorderWaitsStack(app, 'Pinned', {
      env: { account: '123456789012', region: 'us-east-1' },
      originSecretVersion: 'v-2',
    });
    expect(JSON.stringify(Template.fromStack(pinned).toJSON())).toMatch(/SecretString:::v-2}}/);
  });

  it.each([
    ['REST API', API_ORIGIN_HEADERS],
    ['MCP HTTP API', MCP_ORIGIN_HEADERS],
  ])(
    'the %s origin request policy forwards CloudFront-Viewer-Address explicitly, never Host',
    (name, headers) => {
      const policy = resources[originRequestPolicyId(name)]?.Properties.OriginRequestPolicyConfig as {
        HeadersConfig: { HeaderBehavior: string; Headers: string[] };
      };
      expect(policy.HeadersConfig.HeaderBehavior).toBe('whitelist');
      expect(policy.HeadersConfig.Headers).toContain('CloudFront-Viewer-Address');
      expect(policy.HeadersConfig.Headers).toEqual(headers);
      expect(policy.HeadersConfig.Headers.map((h) => h.toLowerCase())).not.toContain('host');
    },
  );

  it('MCP requests keep their Authorization header (through the cache policy) and are not cached', () => {
    const policy = resources[cachePolicyId('MCP')]?.Properties.CachePolicyConfig as {
      MaxTTL: number;
      ParametersInCacheKeyAndForwardedToOrigin: { HeadersConfig: unknown };
    };
    expect(policy.ParametersInCacheKeyAndForwardedToOrigin.HeadersConfig).toEqual({
      HeaderBehavior: 'whitelist',
      Headers: ['Authorization'],
    });
    expect(policy.MaxTTL).toBeLessThanOrEqual(1);
  });

  it('the REST authorizer reads the origin secret (its ARN in the environment, GetSecretValue on it)', () => {
    const secret = secretId('x-origin-verify');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Environment: { Variables: Match.objectLike({ [SECRETS.originVerify.envVar]: { Ref: secret } }) },
      Description: Match.stringLikeRegexp('REQUEST authorizer'),
    });
    expect(actionsOn('authorizer', secret)).toContain('secretsmanager:GetSecretValue');
    expect(actionsOn('origin-authorizer', secret)).toContain('secretsmanager:GetSecretValue');
    // The mcp function reads it too, to send it with its view reads at the CDN (the WAF's rule
    // leaves those uncounted); the api function and the ingest never.
    expect(actionsOn('mcp', secret)).toEqual([
      'secretsmanager:GetSecretValue',
      'secretsmanager:DescribeSecret',
    ]);
    for (const fn of ['api', 'ingest'] as const) expect(actionsOn(fn, secret)).toEqual([]);
  });

  it('every HTTP API route runs the origin authorizer (identity source: the header, no caching)', () => {
    const authorizers = template.findResources('AWS::ApiGatewayV2::Authorizer');
    expect(Object.keys(authorizers)).toHaveLength(1);
    const [authorizerId, authorizer] = Object.entries(authorizers)[0] as [string, { Properties: Json }];
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'REQUEST',
      IdentitySource: [`$request.header.${ORIGIN_VERIFY_HEADER}`],
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      AuthorizerResultTtlInSeconds: 0,
    });
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(
      logicalId(stack.originAuthorizerFunction.fn),
    );
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    expect(routes.length).toBeGreaterThanOrEqual(3);
    for (const route of routes) {
      expect(route.Properties.AuthorizationType, route.Properties.RouteKey).toBe('CUSTOM');
      expect(route.Properties.AuthorizerId).toEqual({ Ref: authorizerId });
    }
  });

  it('an authorizer that cannot decide (store unreachable) is a 503 with Retry-After, not a 500', () => {
    for (const type of ['AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR']) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: '503',
        ResponseParameters: Match.objectLike({
          'gatewayresponse.header.Retry-After': `'${AUTHORIZER_RETRY_AFTER_SECONDS}'`,
          'gatewayresponse.header.Content-Type': "'application/problem+json'",
        }),
      });
    }
  });
});

/**
 * A deployed stack replaces any resource whose logical ID changes. These are the IDs the stack had
 * before it was split into constructs (infra/constructs/logical-ids.ts keeps them): state, and
 * resources whose replacement would lose something or fail the update.
 */
describe('logical IDs a deployed stack depends on', () => {
  let deployed: Template;
  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    // The id infra/app.ts gives the stack: some IDs embed it.
    const borderWaits = new BorderWaitsStack(app, 'BorderWaits', {
      env: { account: '123456789012', region: 'us-east-1' },
    });
    deployed = Template.fromStack(borderWaits);
  });

  it.each([
    [
      'AWS::DynamoDB::GlobalTable',
      [
        'TableobservationsF2BCDDA5',
        'Tablelatest25BE7622',
        'Tablerollups8D9AF8B9',
        'Tablefeedhealth9D5BAB01',
        'TableapikeysB75D9CFD',
        'TableratelimitsFB37A32B',
        'Tablealerts608E69B2',
        'Tableforecasts2631BD4C',
        'TablepushalertsACC04E7B',
      ],
    ],
    [
      'AWS::S3::Bucket',
      ['LogBucketCC3B17E8', 'BucketborderwaitsdataAFB1580A', 'Bucketborderwaitssite6CE2AD97'],
    ],
    // A new webhook key would change every subscriber's secret.
    // A new VAPID key would end every browser's push subscription.
    [
      'AWS::SecretsManager::Secret',
      ['WebhookSigningKeyA6F91456', 'OriginVerifySecret1DED2FB3', 'VapidKey5C6447C5'],
    ],
    // Operators subscribe to the topic by hand.
    ['AWS::SNS::Topic', ['Alarms04B5A0BF']],
    ['AWS::KMS::Key', ['AlarmKeyE05DE300']],
    // A new distribution is a new domain name.
    ['AWS::CloudFront::Distribution', ['Cdn9963B1AD']],
    ['AWS::WAFv2::WebACL', ['EdgeAcl']],
    // API key values are unique: a second key with the same value fails the update.
    ['AWS::ApiGateway::ApiKey', ['ApiKeyedUsageKey8C96CF6B', 'ApiPublicUsageKeyE4F86B22']],
    [
      'AWS::ApiGateway::UsagePlanKey',
      [
        'ApiKeyedPlanUsagePlanKeyResourceBorderWaitsApiKeyedUsageKeyC60DA21894C893BE',
        'ApiPublicPlanUsagePlanKeyResourceBorderWaitsApiPublicUsageKeyE46F39E0E41A728D',
      ],
    ],
    // Named dashboards: the old one's deletion would remove the new one.
    ['AWS::CloudWatch::Dashboard', ['Dashboard9E4231ED']],
    ['AWS::SSM::Parameter', ['IdpIssuer78BE9865', 'IdpAudience89CBC3B4']],
  ])('%s keeps its logical IDs', (type, ids) => {
    expect(Object.keys(deployed.findResources(type)).sort()).toEqual([...ids].sort());
  });

  it('the CloudFront function keeps its name, which cannot change in place', () => {
    deployed.hasResourceProperties('AWS::CloudFront::Function', {
      Name: 'us-east-1BorderWaitsViewerRequestD426C103',
    });
  });

  it('the parts still show in the construct tree', () => {
    expect(stack.tables.observations.node.path).toBe('Test/Storage/Table-observations');
    expect(stack.distribution.node.path).toBe('Test/Edge/Cdn');
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('zero unsuppressed errors and warnings', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    const found = report.violations.map(
      (v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(found).toEqual([]);
  });
});
