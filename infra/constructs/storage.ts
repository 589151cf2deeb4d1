/**
 * The service's state: the manifest's tables and buckets, the log bucket, and the two secrets.
 * Every table and bucket is retained when the stack goes, tables have point-in-time recovery and
 * deletion protection; buckets block public access, enforce TLS and log to the log bucket.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type BucketProps,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { BUCKETS, EXPORTS_PREFIX, TABLES } from '../manifest.ts';
import { Section } from './logical-ids.ts';

export type TableName = keyof typeof TABLES;
export type BucketName = keyof typeof BUCKETS;

const entries = <K extends string, V>(record: Readonly<Record<K, V>>) => Object.entries(record) as [K, V][];

/** What every bucket of the service has in common. */
const PRIVATE_BUCKET = {
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  encryption: BucketEncryption.S3_MANAGED,
  enforceSSL: true,
  removalPolicy: RemovalPolicy.RETAIN,
} as const satisfies BucketProps;

export class Storage extends Section {
  readonly tables: Record<TableName, TableV2>;
  readonly buckets: Record<BucketName, Bucket>;
  /** S3 server access logs and CloudFront standard logs. */
  readonly logBucket: Bucket;
  /** HMAC key that signs alert webhooks: ingest signs with it, mcp derives subscribers' secrets. */
  readonly webhookKey: Secret;
  /** Value of the origin header CloudFront adds and the authorizers require. */
  readonly originSecret: Secret;
  /** The random string the Web Push VAPID key pair is derived from (ingest signs, api shows the public key). */
  readonly vapidKey: Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    const tables = {} as Record<TableName, TableV2>;
    for (const [key, spec] of entries(TABLES)) {
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

    // Legacy CloudFront logging writes with ACLs, hence OBJECT_WRITER. Logs expire after 90 days.
    this.logBucket = new Bucket(this, 'LogBucket', {
      ...PRIVATE_BUCKET,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    });
    Validations.of(this.logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket; logging it into itself would loop.',
    });

    const buckets = {} as Record<BucketName, Bucket>;
    for (const [key, spec] of entries(BUCKETS)) {
      // Versioning off: both buckets are derived output (views rebuilt by ingest, site by the build).
      buckets[key] = new Bucket(this, `Bucket-${spec.name}`, {
        ...PRIVATE_BUCKET,
        serverAccessLogsBucket: this.logBucket,
        serverAccessLogsPrefix: `s3/${spec.name}/`,
      });
    }
    // MCP exports are handed out as short-lived presigned URLs; the objects go a day later.
    buckets.data.addLifecycleRule({
      id: 'expire-exports',
      prefix: EXPORTS_PREFIX,
      expiration: Duration.days(1),
    });
    this.buckets = buckets;

    // Passed to functions by ARN; they read the value at run time (cached per warm function).
    this.webhookKey = this.secret(
      'WebhookSigningKey',
      'HMAC key that signs outgoing alert webhooks',
      'Every alert webhook secret derives from this key: rotating it changes them all, so it is rotated by hand with notice to subscribers (README, Deploy).',
    );
    // CloudFront sends this as the custom origin header x-origin-verify to both APIs, whose
    // authorizers refuse requests without it: only the CDN can vouch for CloudFront-Viewer-Address.
    this.originSecret = this.secret(
      'OriginVerifySecret',
      'Value of the x-origin-verify header CloudFront adds to every request to the APIs',
      'Rotated by hand in two steps (new value, then a deploy pointing CloudFront at it; the authorizers accept the current and the previous value meanwhile): README, Security.',
    );
    // Secrets Manager cannot make an EC key: it generates this random string, and the functions
    // derive the P-256 key pair from it (functions/core/alerts/push.ts, vapidKeysOf).
    this.vapidKey = this.secret(
      'VapidKey',
      'Random string the Web Push (VAPID) key pair is derived from',
      'Browsers bind each push subscription to the VAPID public key: rotating it ends every subscription, so it is rotated by hand only if it leaks (README, Deploy).',
    );
  }

  /** A generated 48-character secret, rotated by hand for `rotation` (cdk-nag SMG4). */
  private secret(id: string, description: string, rotation: string): Secret {
    const secret = new Secret(this, id, {
      description,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason: rotation });
    return secret;
  }
}
