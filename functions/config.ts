/**
 * Configuration of each function: one zod schema, parsed once per cold start from the environment,
 * failing with every bad key listed. Adapters never read `process.env`.
 */
import { z } from 'zod';
import { BUCKETS, TABLES } from '../infra/manifest.ts';

const optionalUrl = z.url().optional();

/** Endpoints of local stand-ins; unset in AWS. The SDK also honours these names itself. */
const EndpointsSchema = z.object({
  AWS_ENDPOINT_URL_DYNAMODB: optionalUrl,
  AWS_ENDPOINT_URL_S3: optionalUrl,
  AWS_REGION: z.string().default('us-east-1'),
});

const tableNames = {
  [TABLES.observations.envVar]: z.string().min(3).default(TABLES.observations.name),
  [TABLES.latest.envVar]: z.string().min(3).default(TABLES.latest.name),
  [TABLES.rollups.envVar]: z.string().min(3).default(TABLES.rollups.name),
  [TABLES.health.envVar]: z.string().min(3).default(TABLES.health.name),
  [TABLES.keys.envVar]: z.string().min(3).default(TABLES.keys.name),
  [TABLES.limits.envVar]: z.string().min(3).default(TABLES.limits.name),
  [BUCKETS.data.envVar]: z.string().min(3).default(BUCKETS.data.name),
} as const;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const IngestConfigSchema = EndpointsSchema.extend({
  ...tableNames,
  CBP_FEED_URL: z.url().default('https://bwt.cbp.gov/xml/bwt.xml'),
  CBSA_FEED_URL: z.url().default('https://www.cbsa-asfc.gc.ca/bwt-taf/bwt-eng.csv'),
  FEED_TIMEOUT_MS: positiveInt(15_000),
  FEED_MAX_BYTES: positiveInt(5 * 1024 * 1024),
});

export const ApiConfigSchema = EndpointsSchema.extend({
  ...tableNames,
  KEY_RATE_LIMIT_PER_MINUTE: positiveInt(60),
  PUBLIC_RATE_LIMIT_PER_MINUTE: positiveInt(120),
});

export type IngestConfig = z.infer<typeof IngestConfigSchema>;
export type ApiConfig = z.infer<typeof ApiConfigSchema>;

/** Parses `env` with `schema`, or throws one error listing every bad key. */
export function parseConfig<T extends z.ZodType>(
  schema: T,
  env: Record<string, string | undefined>,
): z.infer<T> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`invalid configuration:\n${lines.join('\n')}`);
}
