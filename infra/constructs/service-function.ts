/**
 * One Lambda function of the service, built from a manifest entry. Defaults (documented here, asserted
 * in test/infra): Node.js 24 on arm64, ESM bundle (createRequire banner for CJS dependencies), the AWS
 * SDK left external (the runtime provides it), minified with source maps (file and line mappings,
 * without the sources' text), an explicit log group with retention, and an explicit role whose only
 * standing permission is writing to that log group (no AWSLambdaBasicExecutionRole managed policy).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CfnElement } from 'aws-cdk-lib';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Charset, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { BuildOptions } from 'esbuild';
import type { DynamoAction, FunctionSpec } from '../manifest.ts';

export type Access = 'read' | 'write' | 'readWrite';
/** A table grant: a level, or exactly these DynamoDB actions. */
export type TableAccess = Access | readonly DynamoAction[];

/** Project root: every manifest `entry` is relative to it. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The esbuild options NodejsFunction uses; scripts/bench/bundles.ts mirrors them. */
export const BUNDLE_BANNER =
  "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

/**
 * Module substitutions in every bundle (esbuild `alias`; the replacement is relative to the project
 * root). The MCP SDK's Node shim would bring Ajv as a default validator the mcp function never
 * constructs (functions/mcp/sdk-shims.ts says why).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@modelcontextprotocol/server/_shims': './functions/mcp/sdk-shims.ts',
};

/**
 * The esbuild options the bundling below amounts to: what `npm run bench -- bundles` and
 * test/infra/bundles.test.ts build with (add entryPoints and outfile).
 */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  mainFields: ['module', 'main'],
  minify: true,
  external: ['@aws-sdk/*'],
  banner: { js: BUNDLE_BANNER },
  alias: { ...BUNDLE_ALIASES },
  absWorkingDir: PROJECT_ROOT,
  // Non-ASCII text (port names, the XML parser's patterns) as UTF-8, not \u escapes: smaller.
  charset: 'utf8',
  // The functions run with --enable-source-maps, and Node reads a bundle's source map when it loads
  // the bundle: without the sources inside, the mcp map is 0.7 MB instead of 2.8 MB and a cold
  // start spends about 8 ms less on it. Stack traces still name the original files and lines.
  sourcesContent: false,
  logLevel: 'error',
} satisfies BuildOptions;

/** Every function's NODE_OPTIONS: stack traces in the logs name the original files and lines. */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

/** A log group that goes with the stack, kept a month unless said otherwise. */
export function logGroup(scope: Construct, id: string, retention = RetentionDays.ONE_MONTH): LogGroup {
  return new LogGroup(scope, id, { retention, removalPolicy: RemovalPolicy.DESTROY });
}

export interface ServiceFunctionProps {
  readonly spec: Pick<
    FunctionSpec,
    'name' | 'entry' | 'memoryMb' | 'timeoutSeconds' | 'description' | 'reservedConcurrency'
  >;
  readonly environment?: Record<string, string>;
  /** Defaults to one month: enough to debug an incident, cheap at this volume. */
  readonly logRetention?: RetentionDays;
}

export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { spec } = props;
    this.logGroup = logGroup(this, 'Logs', props.logRetention);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${spec.name} function: logs plus the manifest's grants`,
    });
    this.logGroup.grantWrite(this.role);
    this.fn = new NodejsFunction(this, 'Function', {
      entry: resolve(PROJECT_ROOT, spec.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: resolve(PROJECT_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: spec.memoryMb,
      timeout: Duration.seconds(spec.timeoutSeconds),
      ...(spec.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: spec.reservedConcurrency }),
      description: spec.description,
      role: this.role,
      logGroup: this.logGroup,
      environment: { NODE_OPTIONS: FUNCTION_NODE_OPTIONS, ...props.environment },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        banner: BUNDLE_BANNER,
        externalModules: ['@aws-sdk/*'],
        minify: true,
        charset: Charset.UTF8,
        sourceMap: true,
        sourcesContent: false,
        esbuildArgs: Object.fromEntries(
          Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to]),
        ),
      },
    });
  }

  /** Grants `access` on the table and hands its physical name to the function as `envVar`. */
  useTable(envVar: string, table: ITableV2, access: TableAccess): this {
    if (typeof access !== 'string') table.grant(this.fn, ...access.map((action) => `dynamodb:${action}`));
    else if (access === 'read') table.grantReadData(this.fn);
    else if (access === 'write') table.grantWriteData(this.fn);
    else table.grantReadWriteData(this.fn);
    this.fn.addEnvironment(envVar, table.tableName);
    return this;
  }

  /**
   * Grants PutItem on the table's items whose partition key starts with `prefix` only (IAM
   * condition `dynamodb:LeadingKeys`); other items stay read-only to this function.
   */
  putItemsUnder(table: ITableV2, prefix: string): this {
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:PutItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${prefix}*`] } },
      }),
    );
    return this;
  }

  /**
   * Grants reading and writing the table's items whose partition key starts with one of `prefixes`
   * only (IAM condition `dynamodb:LeadingKeys`), and hands its physical name to the function.
   */
  useTableItems(envVar: string, table: ITableV2, prefixes: readonly string[]): this {
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
        },
      }),
    );
    this.fn.addEnvironment(envVar, table.tableName);
    return this;
  }

  /**
   * Grants reading objects under `prefixes` of the bucket only (GetObject; no listing, so S3 answers
   * 403 for a missing key), and hands its physical name to the function.
   */
  readObjectsUnder(envVar: string, bucket: IBucket, prefixes: readonly string[]): this {
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
      }),
    );
    this.fn.addEnvironment(envVar, bucket.bucketName);
    const logicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
    for (const prefix of prefixes) {
      Validations.of(this).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/${prefix}*]`,
        reason: `Reads limited to the ${prefix} prefix of this one bucket (manifest bucketReadsUnder).`,
      });
    }
    return this;
  }

  /** Grants writing objects under `prefix` of the bucket only (PutObject and its variants). */
  putObjectsUnder(bucket: IBucket, prefix: string): this {
    bucket.grantPut(this.fn, `${prefix}*`);
    const logicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
    for (const finding of [`Resource::<${logicalId}.Arn>/${prefix}*`, 'Action::s3:Abort*']) {
      Validations.of(this).acknowledge({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason: `Writes limited to the ${prefix} prefix of this one bucket (manifest bucketWritesUnder).`,
      });
    }
    return this;
  }

  /** Grants `access` on the bucket and hands its physical name to the function as `envVar`. */
  useBucket(envVar: string, bucket: IBucket, access: Access): this {
    if (access === 'read') bucket.grantRead(this.fn);
    else if (access === 'write') bucket.grantWrite(this.fn);
    else bucket.grantReadWrite(this.fn);
    this.fn.addEnvironment(envVar, bucket.bucketName);
    // CDK's bucket grants use action wildcards (s3:GetObject* covers the version and ACL variants)
    // on objects `<bucket>/*`: the function reads or publishes any document under its prefixes.
    const logicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
    const wildcards = [`Resource::<${logicalId}.Arn>/*`];
    if (access !== 'write')
      wildcards.push('Action::s3:GetObject*', 'Action::s3:GetBucket*', 'Action::s3:List*');
    if (access !== 'read') wildcards.push('Action::s3:DeleteObject*', 'Action::s3:Abort*');
    for (const finding of wildcards) {
      Validations.of(this).acknowledge({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason: `Bucket ${access} grant from the manifest: object-level wildcard scoped to this one bucket.`,
      });
    }
    return this;
  }
}
