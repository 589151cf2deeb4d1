/**
 * Who is calling and whether they may: the key check (defence in depth behind the REST authorizer,
 * whose verdict arrives in `requestContext.authorizer`) and the fixed-window limits counted in
 * DynamoDB. Every answer of the api function carries `RateLimit-Policy`, and `RateLimit` when a
 * counter was consulted; a refused request is 401 or 429 problem+json, never a fall-back to public.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { checkKey, type KeyStore } from '../core/keys.ts';
import { consume, type LimitPolicy, type LimitStore, limitHeaders, policyHeader } from '../core/limits.ts';
import type { Clock } from '../core/stores.ts';
import { type Problem, problem } from './problem.ts';
import { header } from './respond.ts';

export interface AccessPolicies {
  key: LimitPolicy;
  public: LimitPolicy;
  keyRequests: LimitPolicy;
}

export interface AccessDeps {
  keys: Pick<KeyStore, 'getByHash'>;
  limits: LimitStore;
  clock: Clock;
  policies: AccessPolicies;
}

export type AccessScope = 'api' | 'key-requests';

export type AccessOutcome =
  | { admitted: true; keyId: string | null; headers: Record<string, string> }
  | { admitted: false; problem: Problem; headers: Record<string, string> };

/**
 * The viewer's address: CloudFront's `CloudFront-Viewer-Address` (`ip:port`, set by CloudFront and
 * by the local edge, overwriting any a client sent) when the request came through the CDN, else
 * the address API Gateway saw.
 */
export function clientIp(event: APIGatewayProxyEvent): string {
  const viewer = header(event, 'cloudfront-viewer-address');
  if (viewer) {
    const cut = viewer.lastIndexOf(':');
    const ip = cut > 0 ? viewer.slice(0, cut) : viewer;
    if (ip) return ip.replace(/^\[|\]$/g, '');
  }
  return event.requestContext?.identity?.sourceIp || 'unknown';
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
      keyId = await keyOf(event, presented);
      if (!keyId) {
        return {
          admitted: false,
          headers: { 'ratelimit-policy': policyHeader(deps.policies.key) },
          problem: problem(
            401,
            'invalid-key',
            'Invalid or revoked API key',
            'The x-api-key header does not hold a live key; send no key for public access, or ask for a new key.',
            event.path,
          ),
        };
      }
    }
    const ip = clientIp(event);
    const decision =
      scope === 'key-requests'
        ? await consume(deps.limits, deps.policies.keyRequests, `KEYREQ#${ip}`, now)
        : keyId
          ? await consume(deps.limits, deps.policies.key, `KEY#${keyId}`, now)
          : await consume(deps.limits, deps.policies.public, `IP#${ip}`, now);
    const headers = limitHeaders(decision);
    if (decision.admitted) return { admitted: true, keyId, headers };
    const { policy } = decision;
    return {
      admitted: false,
      headers,
      problem: problem(
        429,
        'rate-limited',
        'Too many requests',
        `More than ${policy.quota} requests in ${policy.windowSeconds} seconds (${policy.name} limit); retry after ${decision.resetSeconds} s.`,
        event.path,
        { 'violated-policies': [policy.name] },
      ),
    };
  };
}

export type Access = ReturnType<typeof createAccess>;
