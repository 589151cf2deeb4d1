/**
 * CDK app. The stack's region is us-east-1 on purpose: the CloudFront web ACL (scope CLOUDFRONT)
 * must be created there. cdk-nag AwsSolutions runs as a policy validation plugin, so
 * `npm run synth` fails on any unsuppressed error.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BorderWaitsStack } from './stack.ts';

// The stack deploys the built site and derives its Content-Security-Policy from it: `npm run synth`
// and `npm run deploy` build it first.
const siteDist = fileURLToPath(new URL('../site/dist/', import.meta.url));
if (!existsSync(`${siteDist}index.html`)) {
  console.error(
    'infra/app.ts: site/dist holds no built site; run `npm run build:site` (npm run deploy does)',
  );
  process.exit(1);
}

const app = new App();
const account = process.env.CDK_DEFAULT_ACCOUNT;
// The MCP endpoint's IdP: `-c idpIssuer=... -c idpAudience=... [-c mcpResourceUrl=...]` (README, Deploy).
const context = (name: string): string | undefined => app.node.tryGetContext(name) ?? undefined;
const idpIssuer = context('idpIssuer');
const idpAudience = context('idpAudience');
const mcpResourceUrl = context('mcpResourceUrl');
// After rotating the origin secret: `-c originSecretVersion=<VersionId>` (README, Security).
const originSecretVersion = context('originSecretVersion');
new BorderWaitsStack(app, 'BorderWaits', {
  env: { ...(account ? { account } : {}), region: 'us-east-1' },
  ...(idpIssuer ? { idpIssuer } : {}),
  ...(idpAudience ? { idpAudience } : {}),
  ...(mcpResourceUrl ? { mcpResourceUrl } : {}),
  ...(originSecretVersion ? { originSecretVersion } : {}),
  siteDist,
  description: 'Border wait times: ingest, published views, API, CDN',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
