/**
 * The environment contract: defaults for everything optional, and one error that names every bad
 * key with what it must be (the operator's fix), never a partial configuration.
 */
import { describe, expect, it } from 'vitest';
import {
  ApiConfigSchema,
  AuthorizerConfigSchema,
  IngestWithAlertsConfigSchema,
  McpConfigSchema,
  parseConfig,
  StoreConfigSchema,
  storeSettingsOf,
} from '../../functions/config.ts';
import { BUCKETS, LIMITS, TABLES } from '../../infra/manifest.ts';

describe('configuration', () => {
  it('fills every default from the manifest', () => {
    const settings = storeSettingsOf(parseConfig(StoreConfigSchema, {}));
    expect(settings.tables).toEqual(
      Object.fromEntries(Object.entries(TABLES).map(([key, spec]) => [key, spec.name])),
    );
    expect(settings.buckets).toEqual({ data: BUCKETS.data.name });
    expect(settings.region).toBe('us-east-1');
    expect(settings.dynamodbEndpoint).toBeUndefined();
    const api = parseConfig(ApiConfigSchema, {});
    expect(api.KEY_RATE_LIMIT_PER_MINUTE).toBe(LIMITS.keyPerMinute);
    expect(api.PUBLIC_RATE_LIMIT_PER_MINUTE).toBe(LIMITS.publicPerMinute);
  });

  it('hands out the physical names the stack sets, by table', () => {
    const env = Object.fromEntries(Object.values(TABLES).map((spec) => [spec.envVar, `prod-${spec.name}`]));
    const settings = storeSettingsOf(parseConfig(StoreConfigSchema, { ...env, BUCKET_DATA: 'prod-data' }));
    expect(settings.tables.keys).toBe('prod-api-keys');
    expect(settings.tables.observations).toBe('prod-observations');
    expect(settings.buckets.data).toBe('prod-data');
  });

  it('reads numbers, flags and lists from their strings', () => {
    const ingest = parseConfig(IngestWithAlertsConfigSchema, {
      FEED_TIMEOUT_MS: '2500',
      ALERT_WEBHOOK_BACKOFF_MS: '0',
      ALERT_WEBHOOK_ALLOW_PRIVATE: '1',
    });
    expect(ingest.FEED_TIMEOUT_MS).toBe(2500);
    expect(ingest.ALERT_WEBHOOK_BACKOFF_MS).toBe(0);
    expect(ingest.ALERT_WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(parseConfig(IngestWithAlertsConfigSchema, {}).ALERT_WEBHOOK_ALLOW_PRIVATE).toBe(false);
    const mcp = parseConfig(McpConfigSchema, { MCP_ALLOWED_HOSTS: ' a.example, ,b.example ' });
    expect(mcp.MCP_ALLOWED_HOSTS).toEqual(['a.example', 'b.example']);
  });

  it.each([
    ['FEED_TIMEOUT_MS', 'soon', 'must be a whole number >= 1'],
    ['FEED_TIMEOUT_MS', '1.5', 'must be a whole number >= 1'],
    ['FEED_MAX_BYTES', '0', 'must be a whole number >= 1'],
    ['ALERT_WEBHOOK_BACKOFF_MS', '-1', 'must be a whole number >= 0'],
    ['CBP_FEED_URL', 'bwt.cbp.gov/xml/bwt.xml', 'must be a URL'],
    ['ALERT_WEBHOOK_ALLOW_PRIVATE', 'yes', 'must be true, false, 1 or 0'],
    ['TABLE_KEYS', 'ab', 'must be at least 3 characters'],
  ])('refuses %s=%j: %s', (key, value, message) => {
    expect(() => parseConfig(IngestWithAlertsConfigSchema, { [key]: value })).toThrow(`  ${key}: ${message}`);
  });

  it('lists every bad key in one error', () => {
    let error: unknown;
    try {
      parseConfig(AuthorizerConfigSchema, { AWS_ENDPOINT_URL_DYNAMODB: 'nowhere', KEYED_USAGE_KEY: '' });
    } catch (caught: unknown) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message.split('\n')).toEqual([
      'invalid configuration:',
      '  AWS_ENDPOINT_URL_DYNAMODB: must be a URL',
      '  PUBLIC_USAGE_KEY: is required',
      '  KEYED_USAGE_KEY: must not be empty',
    ]);
  });
});
