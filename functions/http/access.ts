/**
 * Who is calling and whether they may: the key check (defence in depth behind the REST authorizer,
 * whose verdict arrives in `requestContext.authorizer`) and the fixed-window limits counted in
 * DynamoDB. Every answer of the api function carries `RateLimit-Policy`, and `RateLimit` when a
 * counter was consulted; a refused request is 401 or 429 problem+json, never a fall-back to public.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ApiConfig } from '../config.ts';
import { COUNTER_PREFIXES } from '../contract.ts';
import { checkKey, type KeyStore } from '../core/access/keys.ts';
import {
  consume,
  type LimitPolicy,
  type LimitStore,
  limitHeaders,
  policyHeader,
} from '../core/access/limits.ts';
import { type Problem, problem } from '../core/problems.ts';
import type { Clock } from '../core/stores.ts';
import { clientIpKey } from './client-ip.ts';
import { header } from './respond.ts';

export interface AccessPolicies {
  key: LimitPolicy;
  public: LimitPolicy;
  keyRequests: LimitPolicy;
  pushSubscriptions: LimitPolicy;
}

/** The limit policies a configuration sets (the api function, and the docs built from the same). */
export function accessPoliciesOf(
  config: Pick<
    ApiConfig,
    | 'KEY_RATE_LIMIT_PER_MINUTE'
    | 'PUBLIC_RATE_LIMIT_PER_MINUTE'
    | 'KEY_REQUESTS_PER_HOUR'
    | 'PUSH_SUBSCRIPTIONS_PER_HOUR'
  >,
): AccessPolicies {
  return {
    key: { name: 'key', quota: config.KEY_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 },
    public: { name: 'ip', quota: config.PUBLIC_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 },
    keyRequests: { name: 'key-requests', quota: config.KEY_REQUESTS_PER_HOUR, windowSeconds: 3600 },
    pushSubscriptions: {
      name: 'push-subscriptions',
      quota: config.PUSH_SUBSCRIPTIONS_PER_HOUR,
      windowSeconds: 3600,
    },
  };
}

export interface AccessDeps {
  keys: Pick<KeyStore, 'getByHash'>;
  limits: LimitStore;
  clock: Clock;
  policies: AccessPolicies;
  log?: (line: string) => void;
}

export type AccessScope = 'api' | 'key-requests' | 'push-subscriptions';

export type AccessOutcome =
  | { admitted: true; keyId: string | null; headers: Record<string, string> }
  | { admitted: false; problem: Problem; headers: Record<string, string> };

/**
 * The client's key for per-IP limits (functions/http/client-ip.ts): CloudFront's
 * `CloudFront-Viewer-Address`, believed because the REST authorizer refused every request without
 * the CDN's origin secret; else the address API Gateway saw. IPv6 counts per /64.
 */
export function clientIp(event: APIGatewayProxyEvent): string {
  return clientIpKey(header(event, 'cloudfront-viewer-address'), event.requestContext?.identity?.sourceIp);
}

export function createAccess(deps: AccessDeps) {
  /** Finds the caller's key id: the authorizer's verdict when it ran, else our own check. */
  async function keyOf(event: APIGatewayProxyEvent, presented: string): Promise<string | null> {
    const fromAuthorizer = event.requestContext?.authorizer?.keyId;
    if (typeof fromAuthorizer === 'string' && fromAuthorizer) return fromAuthorizer;
    const check = await checkKey(deps.keys, presented);
    return check.ok ? check.record.id : null;
  }

  return async function access(event: APIGatewayProxyEvent, scope: AccessScope): Promise<AccessOutcome> {
    const now = deps.clock.now();
    const presented = header(event, 'x-api-key');
    let keyId: string | null = null;
    if (presented !== undefined) {
      try {
        keyId = await keyOf(event, presented);
      } catch (error: unknown) {
        // A key that cannot be checked is neither admitted nor refused as invalid: try again soon.
        deps.log?.(`access: key lookup failed: ${error instanceof Error ? error.message : String(error)}`);
        return {
          admitted: false,
          headers: { 'ratelimit-policy': policyHeader(deps.policies.key), 'retry-after': '5' },
          problem: problem(
            'unavailable',
            'The API key could not be checked just now; retry in a few seconds.',
            event.path,
          ),
        };
      }
      if (!keyId) {
        return {
          admitted: false,
          headers: { 'ratelimit-policy': policyHeader(deps.policies.key) },
          problem: problem(
            'invalid-key',
            'The x-api-key header does not hold a live key; send no key for public access, or ask for a new key.',
            event.path,
          ),
        };
      }
    }
    const ip = clientIp(event);
    const [policy, subject] =
      scope === 'key-requests'
        ? [deps.policies.keyRequests, `${COUNTER_PREFIXES.api.keyRequests}${ip}`]
        : scope === 'push-subscriptions'
          ? [deps.policies.pushSubscriptions, `${COUNTER_PREFIXES.api.pushSubscriptions}${ip}`]
          : keyId
            ? [deps.policies.key, `${COUNTER_PREFIXES.api.key}${keyId}`]
            : [deps.policies.public, `${COUNTER_PREFIXES.api.ip}${ip}`];
    let decision: Awaited<ReturnType<typeof consume>>;
    try {
      decision = await consume(deps.limits, policy, subject, now);
    } catch (error: unknown) {
      // Fail open: an unreachable counter store must not take the read API down. No counter was
      // consulted, so the answer carries the policy but no RateLimit field.
      deps.log?.(`access: limiter failed: ${error instanceof Error ? error.message : String(error)}`);
      return { admitted: true, keyId, headers: { 'ratelimit-policy': policyHeader(policy) } };
    }
    const headers = limitHeaders(decision);
    if (decision.admitted) return { admitted: true, keyId, headers };
    return {
      admitted: false,
      headers,
      problem: problem(
        'rate-limited',
        `More than ${policy.quota} requests in ${policy.windowSeconds} seconds (${policy.name} limit); retry after ${decision.resetSeconds} s.`,
        event.path,
        { 'violated-policies': [policy.name] },
      ),
    };
  };
}

export type Access = ReturnType<typeof createAccess>;
