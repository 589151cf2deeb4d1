/**
 * The deployed service, built from infra/manifest.ts (the same description the local runtime
 * reads). One stack in us-east-1: a CloudFront web ACL (scope CLOUDFRONT) must live in us-east-1,
 * and keeping everything there avoids cross-region references (local-aws-recipe.md 5.3).
 *
 * The stack composes its parts (infra/constructs/): storage, the manifest's functions, the public
 * REST API, the MCP HTTP API, the CDN, and observability. The parts are sections: they group
 * resources without entering their logical IDs, so a deployed stack keeps every resource
 * (infra/constructs/logical-ids.ts).
 */
import type { CfnElement, StackProps } from 'aws-cdk-lib';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { EdgeDistribution } from './constructs/edge-distribution.ts';
import { flatLogicalId, flatTemplate } from './constructs/logical-ids.ts';
import { McpApi } from './constructs/mcp-api.ts';
import { Observability } from './constructs/observability.ts';
import { PublicApi } from './constructs/public-api.ts';
import type { ServiceFunction } from './constructs/service-function.ts';
import { type FunctionName, ServiceFunctions } from './constructs/service-functions.ts';
import { SiteDeployment } from './constructs/site-deployment.ts';
import { type BucketName, Storage, type TableName } from './constructs/storage.ts';
import { siteContentSecurityPolicy } from './security-headers.ts';

export {
  API_ORIGIN_HEADERS,
  API_PATTERNS,
  edgeHeadersPolicy,
  HTTP_API_PATTERNS,
  MCP_ORIGIN_HEADERS,
  NOT_FOUND_KEY,
  STATIC_VIEW_PATTERNS,
  VIEWER_ADDRESS_HEADER,
  VIEWER_REQUEST_PATH,
} from './constructs/edge-distribution.ts';
export { KEYED_USAGE_KEY, PUBLIC_USAGE_KEY } from './constructs/public-api.ts';

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
  /**
   * The built site (site/dist): deployed to the site bucket (infra/constructs/site-deployment.ts),
   * and its inline scripts are the ones the site's Content-Security-Policy allows. Unset (tests of
   * other parts): no site deployment, and a policy that allows no inline script.
   */
  readonly siteDist?: string;
}

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
    const storage = new Storage(this, 'Storage');
    const { functions } = new ServiceFunctions(this, 'Functions', storage);
    const publicApi = new PublicApi(this, 'PublicApi', { storage, functions });
    const mcpApi = new McpApi(this, 'McpEndpoint', { ...props, storage, functions });
    const edge = new EdgeDistribution(this, 'Edge', {
      ...props,
      storage,
      api: publicApi.api,
      httpApi: mcpApi.httpApi,
      siteContentSecurityPolicy: siteContentSecurityPolicy(props.siteDist),
    });
    // The mcp function reads the published views from this distribution, as any client does (its
    // role reads only exports/ of the bucket). Its own domain, not MCP_RESOURCE_URL's: that is
    // the IdP audience, the production domain unless the deploy names another.
    functions.mcp.fn.addEnvironment(
      'MCP_DOCUMENTS_URL',
      `https://${edge.distribution.distributionDomainName}`,
    );
    if (props.siteDist) {
      new SiteDeployment(this, 'Site', {
        dist: props.siteDist,
        bucket: storage.buckets.site,
        distribution: edge.distribution,
      });
    }
    const observability = new Observability(this, 'Observability', {
      functions,
      api: publicApi.api,
      httpApi: mcpApi.httpApi,
    });

    this.tables = storage.tables;
    this.buckets = storage.buckets;
    this.functions = functions;
    this.api = publicApi.api;
    this.authorizerFunction = publicApi.authorizerFunction;
    this.httpApi = mcpApi.httpApi;
    this.originAuthorizerFunction = mcpApi.originAuthorizerFunction;
    this.distribution = edge.distribution;
    this.alarmKey = observability.alarmKey;

    const domain = this.distribution.distributionDomainName;
    new CfnOutput(this, 'BaseUrl', { value: `https://${domain}` });
    new CfnOutput(this, 'McpUrl', { value: `https://${domain}/mcp` });
    new CfnOutput(this, 'KeysTableName', { value: this.tables.keys.tableName });
    // For `npm run import -- --aws` and `npm run migrate -- --aws`, which write stored history
    // (under the ingest's lease, an item of the health table).
    new CfnOutput(this, 'ObservationsTableName', { value: this.tables.observations.tableName });
    new CfnOutput(this, 'RollupsTableName', { value: this.tables.rollups.tableName });
    new CfnOutput(this, 'HealthTableName', { value: this.tables.health.tableName });
  }

  /** Logical IDs leave the parts (sections) out: see infra/constructs/logical-ids.ts. */
  protected override allocateLogicalId(element: CfnElement): string {
    return flatLogicalId(element);
  }

  /** Names derived from unique ids leave the parts out too (infra/constructs/logical-ids.ts). */
  protected override _toCloudFormation(): unknown {
    return flatTemplate(this, super._toCloudFormation());
  }
}
