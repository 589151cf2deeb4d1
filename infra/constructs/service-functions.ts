/**
 * The manifest's functions (ingest, api, mcp) with the grants and environment variables of their
 * access maps, and the manifest's schedules. The APIs that front api and mcp add their own settings.
 */
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { BUCKETS, FUNCTION_SPECS, type FUNCTIONS, SCHEDULES, SECRETS, TABLES } from '../manifest.ts';
import { Section } from './logical-ids.ts';
import { type Access, ServiceFunction, type TableAccess } from './service-function.ts';
import type { BucketName, Storage, TableName } from './storage.ts';

export type FunctionName = keyof typeof FUNCTIONS;

const entries = <K extends string, V>(record: Readonly<Partial<Record<K, V>>>) =>
  Object.entries(record) as [K, V][];

/** `make` called at most once per function: one integration serves all of a function's routes. */
export function oncePerFunction<T>(make: (name: FunctionName) => T): (name: FunctionName) => T {
  const made = new Map<FunctionName, T>();
  return (name) => {
    const found = made.get(name) ?? make(name);
    made.set(name, found);
    return found;
  };
}

export class ServiceFunctions extends Section {
  readonly functions: Record<FunctionName, ServiceFunction>;

  constructor(scope: Construct, id: string, storage: Storage) {
    super(scope, id);
    const functions = {} as Record<FunctionName, ServiceFunction>;
    for (const [key, spec] of entries<FunctionName, (typeof FUNCTION_SPECS)[FunctionName]>(FUNCTION_SPECS)) {
      const fn = new ServiceFunction(this, `Fn-${spec.name}`, { spec });
      for (const [table, access] of entries<TableName, TableAccess>(spec.tables))
        fn.useTable(TABLES[table].envVar, storage.tables[table], access);
      for (const [bucket, access] of entries<BucketName, Access>(spec.buckets))
        fn.useBucket(BUCKETS[bucket].envVar, storage.buckets[bucket], access);
      for (const [table, prefix] of entries<TableName, string>(spec.tableWritesUnder ?? {}))
        fn.putItemsUnder(storage.tables[table], prefix);
      for (const [bucket, prefix] of entries<BucketName, string>(spec.bucketWritesUnder ?? {}))
        fn.putObjectsUnder(storage.buckets[bucket], prefix);
      for (const [table, prefixes] of entries<TableName, readonly string[]>(spec.tableItemsUnder ?? {}))
        fn.useTableItems(TABLES[table].envVar, storage.tables[table], prefixes);
      for (const [bucket, prefixes] of entries<BucketName, readonly string[]>(spec.bucketReadsUnder ?? {}))
        fn.readObjectsUnder(BUCKETS[bucket].envVar, storage.buckets[bucket], prefixes);
      functions[key] = fn;
    }
    this.functions = functions;

    // The functions that sign (ingest) or hand out (mcp) webhook secrets read the signing key from
    // Secrets Manager at run time (cached per warm function): their environment holds only its ARN.
    for (const fn of [functions.ingest, functions.mcp]) {
      fn.fn.addEnvironment(SECRETS.webhookSigningKey.envVar, storage.webhookKey.secretArn);
      storage.webhookKey.grantRead(fn.fn);
    }

    // The VAPID key: the ingest signs push messages with it, the api function serves its public half.
    for (const fn of [functions.ingest, functions.api]) {
      fn.fn.addEnvironment(SECRETS.vapidKey.envVar, storage.vapidKey.secretArn);
      storage.vapidKey.grantRead(fn.fn);
    }

    for (const spec of Object.values(SCHEDULES)) {
      if (spec.rateSeconds % 60 !== 0)
        throw new Error(`schedule ${spec.name}: EventBridge rates are whole minutes`);
      new Rule(this, `Schedule-${spec.name}`, {
        description: spec.description,
        schedule: Schedule.rate(Duration.minutes(spec.rateSeconds / 60)),
        targets: [new LambdaFunction(functions[spec.function].fn, { retryAttempts: 0 })],
      });
    }
  }
}
