/**
 * The status site, deployed by the stack: the built site (site/dist) goes into the site bucket in
 * the groups of infra/site-files.ts (one BucketDeployment each: its keys, cache lifetime and content
 * type), hashed assets first, pages last, and then one CloudFront invalidation. `npm run deploy`
 * builds the site first, so the deploy is one command.
 */
import { type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { SITE_GROUPS, SITE_REST, type SiteGroup } from '../site-files.ts';
import { Section } from './logical-ids.ts';

export interface SiteDeploymentProps {
  /** The built site (site/dist). */
  readonly dist: string;
  readonly bucket: IBucket;
  readonly distribution: Distribution;
}

export class SiteDeployment extends Section {
  readonly deployments: BucketDeployment[];

  constructor(scope: Construct, id: string, props: SiteDeploymentProps) {
    super(scope, id);
    const source = Source.asset(props.dist);
    const others = SITE_GROUPS.flatMap((group) => group.include);
    const deploy = (group: SiteGroup, last: boolean) =>
      new BucketDeployment(this, `Site${group.name}`, {
        sources: [source],
        destinationBucket: props.bucket,
        // `aws s3 sync` filters: every exclude, then every include; prune touches only the keys
        // the filters select, so the groups never delete each other's files.
        ...(group === SITE_REST ? { exclude: others } : { exclude: ['*'], include: [...group.include] }),
        prune: group.prune,
        cacheControl: [CacheControl.fromString(group.cacheControl)],
        ...(group.contentType ? { contentType: group.contentType } : {}),
        memoryLimit: 512,
        ...(last ? { distribution: props.distribution, distributionPaths: ['/*'] } : {}),
      });
    // Assets before the pages that name them; pages (and their invalidation) after everything.
    const [assets, ...middle] = SITE_GROUPS.filter((g) => g.name !== 'Pages').map((g) => deploy(g, false));
    const rest = deploy(SITE_REST, false);
    const pages = deploy(SITE_GROUPS.find((g) => g.name === 'Pages') as SiteGroup, true);
    for (const d of [...middle, rest]) if (assets) d.node.addDependency(assets);
    for (const d of [assets, ...middle, rest]) if (d) pages.node.addDependency(d);
    this.deployments = [assets, ...middle, rest, pages].filter((d): d is BucketDeployment => d !== undefined);

    // The deployments share one handler function that CDK provides (a singleton per stack): its
    // role reads the CDK asset bucket and syncs the site bucket, and runs only during deploys.
    const stack = Stack.of(this);
    const siteBucket = stack.getLogicalId(props.bucket.node.defaultChild as CfnElement);
    const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
    const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
    const findings = [
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map(
        (action) => `AwsSolutions-IAM5[Action::${action}]`,
      ),
      `AwsSolutions-IAM5[Resource::<${siteBucket}.Arn>/*]`,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${account}-${region}/*]`,
      'AwsSolutions-IAM5[Resource::*]',
      // Its Python runtime is the one this CDK version ships the handler for.
      'AwsSolutions-L1',
    ];
    for (const child of stack.node.children) {
      if (!child.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
      for (const id of findings) {
        Validations.of(child).acknowledge({
          id,
          reason:
            "CDK's BucketDeployment handler, run by CloudFormation during deploys only: it reads the CDK asset bucket and syncs the site bucket (with the basic execution policy for its logs).",
        });
      }
    }
  }
}
