/**
 * The stack's hardening, pinned: security headers on every CloudFront behaviour (the site's
 * Content-Security-Policy derived from the built site), the site deployed by the stack (content
 * types, the not-found document, one invalidation), least privilege for the mcp and api functions
 * (the data bucket's prefixes, their own counters only), and the WAF rate rule as documented. The
 * stack is built around a small site in a temporary folder, so the policy follows what it holds.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTER_PREFIXES } from '../../functions/contract.ts';
import { PROBLEM_CONTENT_TYPE } from '../../functions/core/problems.ts';
import { DOCUMENT_KEYS, DOCUMENTS_PREFIX } from '../../functions/core/views/view-paths.ts';
import { ORIGIN_VERIFY_HEADER } from '../../functions/http/origin-verify.ts';
import { MCP_RESPONSE_HEADERS } from '../../functions/mcp/response-headers.ts';
import { EXPORTS_PREFIX, isHttpRoutePath, LIMITS } from '../../infra/manifest.ts';
import {
  behaviourKindOf,
  CLOUDFRONT_CSP_MAX_LENGTH,
  SECURITY_HEADERS,
  siteContentSecurityPolicy,
} from '../../infra/security-headers.ts';
import { SITE_GROUPS, siteObjectHeaders } from '../../infra/site-files.ts';
import { BorderWaitsStack } from '../../infra/stack.ts';

/** CloudFormation JSON, read by path in the assertions. */
type Json = ReturnType<Template['toJSON']>;

const INLINE = "if('serviceWorker'in navigator)navigator.serviceWorker.register('/sw.js')";
const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** A small built site: a page with an inline script, a data block, an asset, the not-found document. */
function writeSite(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const SITE_FILES = {
  'index.html': `<!doctype html><html><head><script>${INLINE}</script><script type="application/json" id="d">{"a":1}</script><script type="module" src="/_astro/app.js"></script></head><body></body></html>`,
  'es/index.html': `<!doctype html><html><head><script>${INLINE}</script></head><body></body></html>`,
  '_astro/app.js': 'console.log(1)',
  'errors/not-found.json': '{"type":"about:blank","title":"Not found","status":404}',
  'manifest.webmanifest': '{}',
  'sw.js': 'self.addEventListener("fetch",()=>{})',
};

let dir: string;
let stack: BorderWaitsStack;
let template: Template;
let resources: Record<string, { Type: string; Properties: Json }>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'site-dist-'));
  writeSite(dir, SITE_FILES);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new BorderWaitsStack(app, 'Test', {
    env: { account: '123456789012', region: 'us-east-1' },
    siteDist: dir,
  });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

function ofType(type: string): [string, Json][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type) as [string, Json][];
}

/** Every statement of the role of `fn`. */
function statementsOf(fn: 'api' | 'mcp' | 'ingest'): Json[] {
  const roleId = logicalId(stack.functions[fn].role);
  return ofType('AWS::IAM::Policy')
    .filter(([, r]) => JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`))
    .flatMap(([, r]) => r.Properties.PolicyDocument.Statement as Json[]);
}

describe('security headers on every CloudFront behaviour', () => {
  let behaviours: Json[];
  let policies: Map<string, Json>;
  beforeAll(() => {
    const config = ofType('AWS::CloudFront::Distribution')[0]?.[1].Properties.DistributionConfig;
    behaviours = [{ ...config.DefaultCacheBehavior, PathPattern: '/' }, ...config.CacheBehaviors];
    policies = new Map(
      ofType('AWS::CloudFront::ResponseHeadersPolicy').map(([id, r]) => [
        id,
        r.Properties.ResponseHeadersPolicyConfig,
      ]),
    );
  });
  const policyOf = (behaviour: Json) => policies.get(behaviour.ResponseHeadersPolicyId?.Ref) as Json;
  const pathOf = (pattern: string) => pattern.replace('*', 'x');

  it('every behaviour, the APIs and /mcp included, has a headers policy with HSTS, nosniff, Referrer-Policy and frame-ancestors', () => {
    expect(behaviours.map((b) => b.PathPattern)).toEqual(
      expect.arrayContaining(['/', '/api/*', '/keys/*', '/.well-known/*', '/mcp', '/v1/*']),
    );
    for (const behaviour of behaviours) {
      const security = policyOf(behaviour)?.SecurityHeadersConfig;
      expect(security, behaviour.PathPattern).toBeDefined();
      expect(security.StrictTransportSecurity).toEqual({
        AccessControlMaxAgeSec: 63072000,
        IncludeSubdomains: true,
        Override: true,
        Preload: false,
      });
      expect(security.ContentTypeOptions).toEqual({ Override: true });
      expect(security.ReferrerPolicy).toEqual({
        ReferrerPolicy: SECURITY_HEADERS['referrer-policy'],
        Override: true,
      });
      expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
      expect(security.ContentSecurityPolicy.ContentSecurityPolicy, behaviour.PathPattern).toContain(
        "frame-ancestors 'none'",
      );
    }
  });

  it("each behaviour's policy is its kind's, as the local edge picks it (behaviourKindOf)", () => {
    for (const behaviour of behaviours) {
      const csp = policyOf(behaviour).SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy;
      const kind = behaviourKindOf(pathOf(behaviour.PathPattern));
      expect(
        csp.startsWith(kind === 'site' ? "default-src 'self'" : "default-src 'none'"),
        behaviour.PathPattern,
      ).toBe(true);
      // The REST API sets CORS and Link itself, gateway responses included; the CDN adds them to
      // what it serves from S3, and to the HTTP API's answers that lack them (below).
      expect(policyOf(behaviour).CorsConfig === undefined, behaviour.PathPattern).toBe(
        kind === 'api' && !isHttpRoutePath(pathOf(behaviour.PathPattern)),
      );
    }
  });

  it("the HTTP API's behaviours add the mcp function's CORS and Link, never over the function's own", () => {
    const httpApi = behaviours.filter((b) => isHttpRoutePath(pathOf(b.PathPattern)));
    expect(httpApi.map((b) => b.PathPattern).sort()).toEqual(
      ['/.well-known/oauth-protected-resource*', '/mcp'].sort(),
    );
    for (const behaviour of httpApi) {
      const policy = policyOf(behaviour);
      // The origin authorizer's 401/403, a throttle's 429 or a 413 come from the HTTP API itself,
      // which has no gateway responses: these are what gives them CORS and the author link.
      expect(policy.CorsConfig, behaviour.PathPattern).toMatchObject({
        AccessControlAllowOrigins: { Items: ['*'] },
        AccessControlAllowCredentials: false,
        AccessControlAllowMethods: { Items: expect.arrayContaining(['POST', 'OPTIONS']) },
        AccessControlExposeHeaders: {
          Items: (MCP_RESPONSE_HEADERS['access-control-expose-headers'] ?? '').split(', '),
        },
        OriginOverride: false,
      });
      expect(policy.CustomHeadersConfig.Items).toEqual([
        { Header: 'link', Value: MCP_RESPONSE_HEADERS.link, Override: false },
      ]);
    }
  });

  it("the site's policy allows its inline scripts by hash, never 'unsafe-inline' for scripts", () => {
    const site = policyOf(behaviours[0] as Json).SecurityHeadersConfig.ContentSecurityPolicy
      .ContentSecurityPolicy;
    const scripts = /script-src ([^;]*)/.exec(site)?.[1] ?? '';
    expect(scripts).toBe(`'self' ${sha(INLINE)}`);
    expect(site).not.toMatch(/script-src[^;]*unsafe/);
    expect(site).toMatch(/object-src 'none'/);
    expect(site).toMatch(/base-uri 'none'/);
  });
});

describe('the site policy follows the build', () => {
  const build = (files: Record<string, string>) => writeSite(mkdtempSync(join(tmpdir(), 'csp-')), files);

  it('hashes each distinct inline script once and ignores data blocks and files', () => {
    const other = 'console.log(2)';
    const policy = siteContentSecurityPolicy(
      build({
        'a.html': `<script>${INLINE}</script><script type="module">${other}</script>`,
        'b/c.html': `<script>${INLINE}</script><script type="application/ld+json">{}</script><script src="/x.js"></script>`,
      }),
    );
    expect(/script-src ([^;]*)/.exec(policy)?.[1]).toBe(
      ["'self'", sha(INLINE), sha(other)].sort((a, b) => (a === "'self'" ? -1 : a < b ? -1 : 1)).join(' '),
    );
  });

  it('refuses what no hash allows, naming the file and the fix', () => {
    expect(() =>
      siteContentSecurityPolicy(build({ 'p/index.html': '<button onclick="go()">x</button>' })),
    ).toThrow(/p\/index\.html: an inline event handler \(onclick\).*attach it in a script/);
    expect(() => siteContentSecurityPolicy(build({ 'q.html': '<a href="javascript:go()">x</a>' }))).toThrow(
      /q\.html: a javascript: URL/,
    );
  });

  it("refuses a policy longer than CloudFront's limit", () => {
    const pages = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`p${i}.html`, `<script>console.log(${i})</script>`]),
    );
    expect(() => siteContentSecurityPolicy(build(pages))).toThrow(
      new RegExp(`CloudFront allows ${CLOUDFRONT_CSP_MAX_LENGTH}: move inline scripts into files`),
    );
  });
});

describe('the stack deploys the site', () => {
  let deployments: Json[];
  beforeAll(() => {
    deployments = ofType('Custom::CDKBucketDeployment').map(([, r]) => r.Properties);
  });

  it('one deployment per group into the site bucket, with its cache lifetime and content type', () => {
    const site = logicalId(stack.buckets.site);
    expect(deployments).toHaveLength(SITE_GROUPS.length + 1);
    for (const d of deployments) expect(d.DestinationBucketName).toEqual({ Ref: site });
    const notFound = deployments.find((d) => JSON.stringify(d.Include) === '["errors/*"]');
    expect(notFound?.SystemMetadata).toEqual({
      'content-type': PROBLEM_CONTENT_TYPE,
      'cache-control': 'public, max-age=60',
    });
    const pages = deployments.find((d) => JSON.stringify(d.Include) === '["*.html"]');
    expect(pages?.SystemMetadata['content-type']).toBe('text/html; charset=utf-8');
    const assets = deployments.find((d) => JSON.stringify(d.Include) === '["_astro/*"]');
    expect(assets?.SystemMetadata['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(assets?.Prune).toBe(false);
    // Everything else: the groups' keys excluded, types from the extension.
    const rest = deployments.find((d) => d.Include === undefined);
    expect(rest?.Exclude).toEqual(SITE_GROUPS.flatMap((g) => g.include));
    expect(rest?.SystemMetadata['content-type']).toBeUndefined();
  });

  it('invalidates the distribution once, after the pages', () => {
    const invalidating = deployments.filter((d) => d.DistributionId !== undefined);
    expect(invalidating).toHaveLength(1);
    expect(invalidating[0]?.DistributionId).toEqual({ Ref: logicalId(stack.distribution) });
    expect(invalidating[0]?.DistributionPaths).toEqual(['/*']);
    expect(invalidating[0]?.Include).toEqual(['*.html']);
  });

  it('gives each file of the build the headers the local upload gives it', () => {
    expect(siteObjectHeaders('errors/not-found.json').contentType).toBe(PROBLEM_CONTENT_TYPE);
    expect(siteObjectHeaders('es/manifest.webmanifest').contentType).toBe('application/manifest+json');
    expect(siteObjectHeaders('_astro/app.js')).toEqual({
      contentType: 'text/javascript; charset=utf-8',
      cacheControl: 'public, max-age=31536000, immutable',
    });
    expect(siteObjectHeaders('sw.js').cacheControl).toBe('public, max-age=300');
  });
});

describe('least privilege', () => {
  const s3Statements = (fn: 'mcp' | 'api') =>
    statementsOf(fn).filter((st) => [st.Action].flat().some((a: string) => a.startsWith('s3:')));
  const limitsStatements = (fn: 'mcp' | 'api') =>
    statementsOf(fn).filter((st) =>
      JSON.stringify(st.Resource).includes(`"${logicalId(stack.tables.limits)}"`),
    );

  it('the mcp function reads only its exports of the data bucket (s3:GetObject on exports/*), and lists nothing', () => {
    const reads = s3Statements('mcp').filter((st) =>
      [st.Action].flat().some((a: string) => /^s3:(Get|List)/.test(a)),
    );
    expect(reads).toHaveLength(1);
    expect(reads[0]?.Action).toBe('s3:GetObject');
    // One resource: the bucket's exports/*. The views (v1/*) it reads from the CDN.
    const resources = [reads[0]?.Resource].flat();
    expect(resources).toHaveLength(1);
    const resource = JSON.stringify(resources[0]);
    expect(resource).toMatch(new RegExp(`"/${EXPORTS_PREFIX}\\*"\\]\\]\\}$`));
    for (const key of [DOCUMENT_KEYS.current(true), DOCUMENT_KEYS.forecastSkill, DOCUMENT_KEYS.averages('x')])
      expect(key.startsWith(DOCUMENTS_PREFIX)).toBe(true);
    expect(JSON.stringify(statementsOf('mcp'))).not.toContain(`/${DOCUMENTS_PREFIX}`);
    const writes = s3Statements('mcp').filter((st) => st !== reads[0]);
    for (const st of writes) expect(JSON.stringify(st.Resource)).toContain(`/${EXPORTS_PREFIX}*`);
  });

  it.each(['api', 'mcp'] as const)('the %s function reads and writes only its own counter items', (fn) => {
    const statements = limitsStatements(fn);
    expect(statements.length).toBeGreaterThan(0);
    for (const st of statements) {
      expect(st.Condition).toEqual({
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': Object.values(COUNTER_PREFIXES[fn]).map((p) => `${p}*`),
        },
      });
      expect([st.Action].flat().sort()).toEqual([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
    }
    // Neither function's prefixes cover the other's counters.
    const other = fn === 'api' ? 'mcp' : 'api';
    for (const mine of Object.values(COUNTER_PREFIXES[fn]))
      for (const theirs of Object.values(COUNTER_PREFIXES[other]))
        expect(theirs.startsWith(mine)).toBe(false);
  });

  it('the functions still find the table and the bucket by name', () => {
    const fn = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::Lambda::Function' &&
        r.Properties.Role?.['Fn::GetAtt']?.[0] === logicalId(stack.functions.mcp.role),
    );
    expect(fn?.Properties.Environment.Variables).toMatchObject({
      TABLE_LIMITS: { Ref: logicalId(stack.tables.limits) },
      BUCKET_DATA: { Ref: logicalId(stack.buckets.data) },
    });
  });

  it('the WAF rule counts per address, at the documented limit (the service counts IPv6 per /64 behind it)', () => {
    const acl = ofType('AWS::WAFv2::WebACL')[0]?.[1].Properties;
    expect(acl.Rules[0].Statement.RateBasedStatement).toEqual({
      Limit: LIMITS.edgePerMinute,
      AggregateKeyType: 'IP',
      EvaluationWindowSec: 60,
      ScopeDownStatement: expect.any(Object),
    });
  });

  it("the WAF rule leaves uncounted only requests carrying the origin secret CloudFront sends (the mcp function's view reads)", () => {
    const acl = ofType('AWS::WAFv2::WebACL')[0]?.[1].Properties;
    const match =
      acl.Rules[0].Statement.RateBasedStatement.ScopeDownStatement.NotStatement.Statement.ByteMatchStatement;
    expect(match).toMatchObject({
      FieldToMatch: { SingleHeader: { Name: ORIGIN_VERIFY_HEADER } },
      PositionalConstraint: 'EXACTLY',
      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
    });
    // The very value of CloudFront's origin header: a dynamic reference to the secret, resolved by
    // CloudFormation, never a literal in the template.
    const config = ofType('AWS::CloudFront::Distribution')[0]?.[1].Properties.DistributionConfig;
    const sent = (config.Origins as Json[])
      .flatMap((o) => (o.OriginCustomHeaders ?? []) as Json[])
      .find((h) => h.HeaderName === ORIGIN_VERIFY_HEADER)?.HeaderValue;
    expect(sent).toBeDefined();
    expect(match.SearchString).toEqual(sent);
    expect(JSON.stringify(match.SearchString)).toContain('{{resolve:secretsmanager:');
  });

  it('the mcp function reads the views from its own distribution, with the origin secret it may read', () => {
    const fn = ofType('AWS::Lambda::Function').find(
      ([, r]) => r.Properties.Role?.['Fn::GetAtt']?.[0] === logicalId(stack.functions.mcp.role),
    )?.[1];
    const distribution = ofType('AWS::CloudFront::Distribution')[0]?.[0];
    const secret = logicalId(stack.node.findAll().find((c) => c.node.id === 'OriginVerifySecret') as never);
    expect(fn?.Properties.Environment.Variables).toMatchObject({
      MCP_DOCUMENTS_URL: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution, 'DomainName'] }]] },
      ORIGIN_VERIFY_SECRET: { Ref: secret },
    });
    const reads = statementsOf('mcp').filter(
      (st) => JSON.stringify(st.Resource) === JSON.stringify({ Ref: secret }),
    );
    expect(reads.flatMap((st) => [st.Action].flat())).toContain('secretsmanager:GetSecretValue');
  });
});

describe('cdk-nag AwsSolutions with the site deployment', () => {
  it('zero unsuppressed errors and warnings', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    const found = report.violations.map(
      (v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(found).toEqual([]);
  });
});
