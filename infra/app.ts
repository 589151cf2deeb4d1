/**
 * CDK app. The stack's region is us-east-1 on purpose: the CloudFront web ACL (scope CLOUDFRONT)
 * must be created there. cdk-nag AwsSolutions runs as a policy validation plugin, so
 * `npm run synth` fails on any unsuppressed error.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BorderWaitsStack } from './stack.ts';

const app = new App();
const account = process.env.CDK_DEFAULT_ACCOUNT;
new BorderWaitsStack(app, 'BorderWaits', {
  env: { ...(account ? { account } : {}), region: 'us-east-1' },
  description: 'Border wait times: ingest, published views, API, CDN',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
