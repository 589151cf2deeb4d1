/**
 * The CDN in front of everything: one CloudFront distribution with the site, the data bucket, the
 * REST API and the MCP HTTP API as origins, the viewer-request function (infra/edge/, the same file
 * the local edge runs), cache and origin request policies, security headers, and a web ACL whose
 * rate rule answers 429 problem+json. CLOUDFRONT-scope web ACLs exist only in us-east-1.
 */
import { fileURLToPath } from 'node:url';
import { Duration, Fn, SecretValue, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type {
  BehaviorOptions,
  HeadersReferrerPolicy,
  ICachePolicy,
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
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { PROBLEMS, type ProblemKind, problemType } from '../../functions/core/problems.ts';
import { ORIGIN_VERIFY_HEADER } from '../../functions/http/origin-verify.ts';
import { MCP_RESPONSE_HEADERS } from '../../functions/mcp/response-headers.ts';
import {
  API_PATTERNS,
  DATA_PATH_PREFIXES,
  EDGE_RESPONSE_HEADERS,
  HTTP_ROUTES,
  LIMITS,
  PUSH_PATTERNS,
  ROUTES,
} from '../manifest.ts';
import { type BehaviourKind, securityHeadersOf } from '../security-headers.ts';
import { NOT_FOUND_KEY } from '../site-files.ts';
import { Section } from './logical-ids.ts';
import type { Storage } from './storage.ts';

export const VIEWER_REQUEST_PATH = fileURLToPath(new URL('../edge/viewer-request.js', import.meta.url));

/** Static API views the edge rewrites to data-bucket objects (cache behaviour path patterns). */
export const STATIC_VIEW_PATTERNS = ROUTES.filter((route) => route.static).map((route) => `${route.path}*`);
/** Paths that always go to API Gateway (origin id `api`, the id the edge function selects). */
/**
 * The Web Push endpoints, also to API Gateway, through a cache policy that forwards
 * Authorization (the delete token): CloudFront forwards that header no other way.
 */
export { API_PATTERNS, PUSH_PATTERNS };
/**
 * Paths CloudFront sends to the HTTP API (origin id `mcp`), matched before API_PATTERNS. A REST
 * proxy integration would rename the MCP challenge's `WWW-Authenticate` header (DESIGN.md 5).
 */
export const HTTP_API_PATTERNS = HTTP_ROUTES.map((route) => route.path);
/** Not-found page for S3 403/404 (S3 answers 403 for a missing key without ListBucket). */
export { NOT_FOUND_KEY };
/** Problem document for S3's 416 (site/public/errors/, beside the not-found one). */
export const RANGE_NOT_SATISFIABLE_KEY = 'errors/range-not-satisfiable.json';
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

/** A problem+json body without `instance` (WAF custom bodies are static). */
const problemJson = (kind: ProblemKind, detail: string) =>
  JSON.stringify({
    type: problemType(kind),
    title: PROBLEMS[kind].title,
    status: PROBLEMS[kind].status,
    detail,
  });

export interface EdgeDistributionProps {
  readonly storage: Storage;
  readonly api: RestApi;
  readonly httpApi: HttpApi;
  /** WAF rate rule: requests per client IP per 60-second window (WAF's minimum limit is 10). */
  readonly edgeRateLimitPerMinute?: number;
  /** Version id of the origin secret CloudFront sends; unset: AWSCURRENT (README, Security). */
  readonly originSecretVersion?: string;
  /** The site's Content-Security-Policy (`siteContentSecurityPolicy` of the built site). */
  readonly siteContentSecurityPolicy: string;
}

export class EdgeDistribution extends Section {
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: EdgeDistributionProps) {
    super(scope, id);
    const { storage } = props;

    const viewerRequest = new EdgeFunction(this, 'ViewerRequest', {
      code: FunctionCode.fromFile({ filePath: VIEWER_REQUEST_PATH }),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Static API views to S3 keys; keyed and dynamic requests to the api origin',
    });
    const functionAssociations = [{ function: viewerRequest, eventType: FunctionEventType.VIEWER_REQUEST }];

    const siteOrigin = S3BucketOrigin.withOriginAccessControl(storage.buckets.site, { originId: 'site' });
    const dataOrigin = S3BucketOrigin.withOriginAccessControl(storage.buckets.data, { originId: 'data' });
    // The secret origin header (a dynamic reference: resolved by CloudFormation, not in the
    // template). CloudFormation re-resolves a dynamic reference only when its text changes, hence
    // the version id after a rotation.
    const secret = storage.originSecret;
    const originHeaders = {
      [ORIGIN_VERIFY_HEADER]: (props.originSecretVersion
        ? SecretValue.secretsManager(secret.secretArn, { versionId: props.originSecretVersion })
        : secret.secretValue
      ).unsafeUnwrap(),
    };
    const webAcl = this.webAcl(
      props.edgeRateLimitPerMinute ?? LIMITS.edgePerMinute,
      originHeaders[ORIGIN_VERIFY_HEADER],
    );
    const apiOrigin = new RestApiOrigin(props.api, { originId: 'api', customHeaders: originHeaders });
    // https://<id>.execute-api.<region>.amazonaws.com -> its host name.
    const mcpOrigin = new HttpOrigin(Fn.select(2, Fn.split('/', props.httpApi.apiEndpoint)), {
      originId: 'mcp',
      customHeaders: originHeaders,
    });
    // Named headers only (never Host, which API Gateway needs to be its own), and CloudFront's
    // CloudFront-Viewer-Address, which a managed policy may not forward: without it every viewer
    // behind one edge would share one allowance.
    const originRequests = (id: string, comment: string, headers: readonly string[]) =>
      new OriginRequestPolicy(this, id, {
        comment,
        headerBehavior: OriginRequestHeaderBehavior.allowList(...headers),
        queryStringBehavior: OriginRequestQueryStringBehavior.all(),
        cookieBehavior: OriginRequestCookieBehavior.none(),
      });
    const apiRequests = originRequests(
      'ApiOriginRequests',
      'REST API: the headers it reads, and the viewer address',
      API_ORIGIN_HEADERS,
    );
    const mcpRequests = originRequests(
      'McpOriginRequests',
      'MCP HTTP API: the MCP headers, and the viewer address',
      MCP_ORIGIN_HEADERS,
    );
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

    // Every behaviour has a headers policy with the security headers: the site's with its own
    // Content-Security-Policy, the documents' and the APIs' with one that lets nothing run or frame.
    // The REST API answers CORS and Link itself, its gateway responses included.
    const headersOf = (kind: BehaviourKind) => securityHeadersOf(kind, props.siteContentSecurityPolicy);
    // The same for the push endpoints' bearer tokens; the VAPID key's Cache-Control (an hour)
    // applies to its GETs, and a DELETE or PUT is never cached.
    const pushCache = new CachePolicy(this, 'PushPassThrough', {
      comment: 'Web Push endpoints: Authorization reaches the origin',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.hours(1),
      headerBehavior: CacheHeaderBehavior.allowList('Authorization'),
      queryStringBehavior: CacheQueryStringBehavior.none(),
    });

    const headersPolicy = new ResponseHeadersPolicy(
      this,
      'EdgeHeaders',
      edgeHeadersPolicy({ ...EDGE_RESPONSE_HEADERS, ...headersOf('data') }, 'Published documents: '),
    );
    const siteHeaders = new ResponseHeadersPolicy(
      this,
      'SiteHeaders',
      edgeHeadersPolicy({ ...EDGE_RESPONSE_HEADERS, ...headersOf('site') }, 'Status site: '),
    );
    const apiHeaders = new ResponseHeadersPolicy(
      this,
      'ApiHeaders',
      edgeHeadersPolicy(headersOf('api'), 'REST API: '),
    );
    // The HTTP API's paths also get the mcp function's CORS and Link headers, without override:
    // the function's own answers keep theirs, and the answers the HTTP API gives itself (its origin
    // authorizer's 401 and 403, a throttle's 429, a 413), which no gateway response can shape on
    // an HTTP API, gain them.
    const httpApiHeaders = new ResponseHeadersPolicy(
      this,
      'HttpApiHeaders',
      edgeHeadersPolicy({ ...MCP_RESPONSE_HEADERS, ...headersOf('api') }, 'MCP HTTP API: ', {
        originOverride: false,
        methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
      }),
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
    const s3Behavior = (
      origin: IOrigin,
      cachePolicy: CachePolicy,
      responseHeadersPolicy = headersPolicy,
    ): BehaviorOptions => ({
      origin,
      cachePolicy,
      compress: true,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      // Every method reaches the function, which answers OPTIONS (CORS) and a method the path does
      // not take (405 problem+json); with GET_HEAD_OPTIONS CloudFront would refuse a POST itself
      // with a 403. Nothing but GET and HEAD reaches the bucket.
      allowedMethods: AllowedMethods.ALLOW_ALL,
      responseHeadersPolicy,
      functionAssociations,
    });
    const apiBehavior = (
      origin: IOrigin,
      cachePolicy: ICachePolicy,
      originRequestPolicy: OriginRequestPolicy,
    ): BehaviorOptions => ({
      origin,
      cachePolicy,
      originRequestPolicy,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      compress: true,
      responseHeadersPolicy: apiHeaders,
    });

    const additionalBehaviors: Record<string, BehaviorOptions> = {};
    for (const pattern of STATIC_VIEW_PATTERNS) {
      const name = pattern.replace('/api/v1/', '').replace('*', '');
      additionalBehaviors[pattern] = s3Behavior(dataOrigin, viewPolicy(`Cache-${name}`, `View ${name}`));
    }
    const dataPolicy = viewPolicy('Cache-data', 'Published documents, RSS');
    // The not-found document ships with the site (site/public/errors/) and the default (site)
    // behaviour serves it, for errors of every behaviour.
    for (const prefix of DATA_PATH_PREFIXES) {
      additionalBehaviors[prefix.endsWith('/') ? `${prefix}*` : prefix] = s3Behavior(dataOrigin, dataPolicy);
    }
    // The function answers these paths' preflights and passes every other request to the HTTP
    // API untouched, Authorization included.
    for (const pattern of HTTP_API_PATTERNS) {
      additionalBehaviors[pattern] = {
        ...apiBehavior(mcpOrigin, mcpCache, mcpRequests),
        responseHeadersPolicy: httpApiHeaders,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        functionAssociations,
      };
    }
    for (const pattern of API_PATTERNS) {
      additionalBehaviors[pattern] = {
        ...apiBehavior(apiOrigin, CachePolicy.CACHING_DISABLED, apiRequests),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        functionAssociations,
      };
    }
    for (const pattern of PUSH_PATTERNS) {
      additionalBehaviors[pattern] = {
        ...apiBehavior(apiOrigin, pushCache, apiRequests),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
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
      defaultBehavior: s3Behavior(siteOrigin, viewPolicy('Cache-site', 'Status site'), siteHeaders),
      defaultRootObject: 'index.html',
      additionalBehaviors,
      // S3 answers 403 for a missing key (no ListBucket for OAC): both become the problem+json 404.
      errorResponses: [
        { httpStatus: 403, ...notFound },
        { httpStatus: 404, ...notFound },
        // S3's InvalidRange (a range past the end; the function drops malformed ones) is XML.
        {
          httpStatus: 416,
          responseHttpStatus: 416,
          responsePagePath: `/${RANGE_NOT_SATISFIABLE_KEY}`,
          ttl: Duration.seconds(60),
        },
      ],
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: storage.logBucket,
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
  }

  /**
   * The web ACL: one rate rule per client IP over 60 seconds, answering 429 problem+json. It
   * leaves uncounted the requests that carry the origin secret: the mcp function's reads of the
   * published views (functions/adapters/cdn/documents.ts), which come from Lambda's egress
   * addresses, shared by every warm instance (and other functions), so counting them per address
   * would soon refuse the tools' reads for everyone. No viewer knows the value; the authorizers
   * keep refusing it from anyone but CloudFront, which overwrites a viewer's header of that name
   * on the way to the APIs. Between the two steps of a rotation (README, Security) the function
   * sends the new value and the rule still knows the old: its reads count like a client's then.
   */
  private webAcl(rateLimit: number, originSecret: string): CfnWebACL {
    return new CfnWebACL(this, 'EdgeAcl', {
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
                  { name: 'link', value: EDGE_RESPONSE_HEADERS.link ?? '' },
                  { name: 'access-control-allow-origin', value: '*' },
                ],
              },
            },
          },
          statement: {
            rateBasedStatement: {
              limit: rateLimit,
              aggregateKeyType: 'IP',
              evaluationWindowSec: 60,
              scopeDownStatement: {
                notStatement: {
                  statement: {
                    byteMatchStatement: {
                      fieldToMatch: { singleHeader: { Name: ORIGIN_VERIFY_HEADER } },
                      positionalConstraint: 'EXACTLY',
                      searchString: originSecret,
                      textTransformations: [{ priority: 0, type: 'NONE' }],
                    },
                  },
                },
              },
            },
          },
          visibilityConfig: {
            cloudWatchMetricsEnabled: true,
            metricName: 'rate-per-ip',
            sampledRequestsEnabled: true,
          },
        },
      ],
    });
  }
}

/**
 * Maps a header list onto CloudFront's CORS, security and custom header sections. Security headers
 * override the origin's; custom ones (`Link`) never do; CORS does unless `cors.originOverride` is
 * false, and allows `cors.methods` (GET, HEAD, OPTIONS unless given).
 */
export function edgeHeadersPolicy(
  headers: Readonly<Record<string, string>>,
  comment = '',
  cors: { originOverride?: boolean; methods?: readonly string[] } = {},
): ResponseHeadersPolicyProps {
  const custom: { header: string; value: string; override: boolean }[] = [];
  let corsBehavior: ResponseHeadersPolicyProps['corsBehavior'];
  const security: {
    -readonly [K in keyof ResponseSecurityHeadersBehavior]: ResponseSecurityHeadersBehavior[K];
  } = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'access-control-allow-origin') {
      corsBehavior = {
        accessControlAllowOrigins: [value],
        accessControlAllowMethods: [...(cors.methods ?? ['GET', 'HEAD', 'OPTIONS'])],
        accessControlAllowHeaders: ['*'],
        accessControlAllowCredentials: false,
        accessControlExposeHeaders: (headers['access-control-expose-headers'] ?? '')
          .split(',')
          .map((h) => h.trim())
          .filter(Boolean),
        originOverride: cors.originOverride ?? true,
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
    } else if (lower === 'x-frame-options') {
      security.frameOptions = {
        frameOption:
          value.toUpperCase() === 'SAMEORIGIN' ? HeadersFrameOption.SAMEORIGIN : HeadersFrameOption.DENY,
        override: true,
      };
    } else if (lower === 'content-security-policy') {
      security.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
    } else {
      custom.push({ header: name, value, override: false });
    }
  }
  return {
    comment: `${comment}headers from infra/manifest.ts and infra/security-headers.ts`.slice(0, 128),
    ...(corsBehavior ? { corsBehavior } : {}),
    securityHeadersBehavior: security,
    ...(custom.length > 0 ? { customHeadersBehavior: { customHeaders: custom } } : {}),
  };
}
