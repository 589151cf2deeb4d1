/**
 * `/mcp` and its OAuth protected resource metadata on an HTTP API (payload 2.0: headers pass
 * through, `WWW-Authenticate` included, which a REST proxy integration would rename). An origin
 * authorizer admits only requests carrying the CDN's origin secret; the IdP settings the mcp
 * function checks tokens against are SSM parameters, resolved into its environment at deploy.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { type CfnStage, HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { SITE_ORIGIN } from '../../functions/core/site.ts';
import { ORIGIN_VERIFY_HEADER } from '../../functions/http/origin-verify.ts';
import { HTTP_ROUTES, SECRETS } from '../manifest.ts';
import { Section } from './logical-ids.ts';
import { logGroup, ServiceFunction } from './service-function.ts';
import { type FunctionName, oncePerFunction } from './service-functions.ts';
import type { Storage } from './storage.ts';

export interface McpApiProps {
  readonly storage: Storage;
  readonly functions: Record<FunctionName, ServiceFunction>;
  /** OAuth issuer of MCP tokens; a placeholder until the IdP exists. */
  readonly idpIssuer?: string;
  /** Expected `aud` of MCP tokens; defaults to the site's `/mcp`. */
  readonly idpAudience?: string;
  /** Public URL of the MCP endpoint (the OAuth resource); defaults to the audience. */
  readonly mcpResourceUrl?: string;
}

export class McpApi extends Section {
  readonly httpApi: HttpApi;
  readonly originAuthorizerFunction: ServiceFunction;

  constructor(scope: Construct, id: string, props: McpApiProps) {
    super(scope, id);
    const { storage, functions } = props;

    // The IdP settings live in SSM; the mcp function gets their values at deploy (no runtime read).
    const idpIssuer = new StringParameter(this, 'IdpIssuer', {
      description: 'OAuth issuer for MCP tokens',
      stringValue: props.idpIssuer ?? 'https://idp.example.invalid/',
    });
    const idpAudience = new StringParameter(this, 'IdpAudience', {
      description: 'Expected aud of MCP tokens (our /mcp resource)',
      stringValue: props.idpAudience ?? `${SITE_ORIGIN}/mcp`,
    });
    const mcp = functions.mcp.fn;
    mcp.addEnvironment('MCP_RESOURCE_URL', props.mcpResourceUrl ?? idpAudience.stringValue);
    mcp.addEnvironment('MCP_OAUTH_AUDIENCE', idpAudience.stringValue);
    mcp.addEnvironment('MCP_OAUTH_ISSUER', idpIssuer.stringValue);
    // Sent with its reads of the published views at the CDN, which the WAF's per-IP rule then
    // leaves uncounted (edge-distribution.ts).
    mcp.addEnvironment(SECRETS.originVerify.envVar, storage.originSecret.secretArn);
    storage.originSecret.grantRead(mcp);

    this.originAuthorizerFunction = new ServiceFunction(this, 'Fn-origin-authorizer', {
      spec: {
        name: 'origin-authorizer',
        entry: 'functions/handlers/origin-authorizer.ts',
        memoryMb: 256,
        timeoutSeconds: 5,
        description: 'HTTP API authorizer: admits only requests carrying the CDN origin secret',
      },
      environment: { [SECRETS.originVerify.envVar]: storage.originSecret.secretArn },
    });
    storage.originSecret.grantRead(this.originAuthorizerFunction.fn);

    const httpApi = new HttpApi(this, 'McpApi', {
      description: 'Border waits /mcp (MCP Streamable HTTP) and its OAuth protected resource metadata',
      createDefaultStage: true,
    });
    const defaultStage = httpApi.defaultStage?.node.defaultChild as CfnStage;
    defaultStage.accessLogSettings = {
      destinationArn: logGroup(this, 'HttpApiAccessLogs').logGroupArn,
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
    const authorizer = new HttpLambdaAuthorizer('OriginAuthorizer', this.originAuthorizerFunction.fn, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [`$request.header.${ORIGIN_VERIFY_HEADER}`],
      // No caching: a rotated-out value stops working as soon as the authorizer stops accepting it.
      resultsCacheTtl: Duration.seconds(0),
    });
    const integration = oncePerFunction(
      (name) => new HttpLambdaIntegration(`Http-${name}`, functions[name].fn),
    );
    for (const route of HTTP_ROUTES) {
      // A CloudFront prefix pattern becomes the exact path plus a greedy tail.
      const paths = route.path.endsWith('*')
        ? [route.path.slice(0, -1), `${route.path.slice(0, -1)}/{proxy+}`]
        : [route.path];
      const methods = route.methods.map((m) => HttpMethod[m as keyof typeof HttpMethod]);
      for (const path of paths) {
        httpApi.addRoutes({
          path,
          methods,
          integration: integration(route.function as FunctionName),
          authorizer,
        });
      }
    }
    Validations.of(httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'MCP mixes anonymous and OAuth tools on one endpoint: the function answers the 401/403 challenges itself (DESIGN.md 5).',
    });
    this.httpApi = httpApi;
  }
}
