/**
 * The Web Push endpoints in the OpenAPI document: their paths, with the request body's JSON
 * Schema generated from the same zod schema the handler checks (`PushRequestSchema`).
 */
import * as z from 'zod';
import type { LimitPolicy } from '../core/access/limits.ts';
import { PUSH_LIMITS, PushRequestSchema } from '../core/alerts/push.ts';
import { PROBLEM_CONTENT_TYPE, problem } from '../core/problems.ts';
import { PUSH_PATHS } from '../core/views/view-paths.ts';

type Json = Record<string, unknown>;

const REF = '#/components/schemas/';
const refHeader = (name: string) => ({ $ref: `#/components/headers/${name}` });
const limitHeaders = { 'RateLimit-Policy': refHeader('RateLimitPolicy'), RateLimit: refHeader('RateLimit') };
const ONE = `${PUSH_PATHS.subscriptions}/{id}`;

/** The request body and answers, as named component schemas. */
export function pushSchemas(): Record<string, Json> {
  const object = (properties: Record<string, Json>): Json => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
  });
  const request = z.toJSONSchema(PushRequestSchema, { target: 'draft-2020-12', io: 'input' }) as Json;
  const { $schema: _schema, ...PushAlertRequest } = request;
  return {
    PushAlertRequest,
    VapidPublicKey: object({
      publicKey: {
        type: 'string',
        description:
          'base64url of the uncompressed P-256 point: the applicationServerKey of PushManager.subscribe',
      },
    }),
    PushAlertCreated: object({
      id: { type: 'string' },
      token: { type: 'string', description: 'Authorises DELETE and PUT; shown only now' },
      expiresAt: { type: 'string', format: 'date-time' },
    }),
    PushAlertRenewed: object({ id: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } }),
  };
}

function problemAnswer(description: string, example: Json, extra: Json = {}): Json {
  return {
    description,
    headers: { ...limitHeaders, Link: refHeader('Link'), ...extra },
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: `${REF}Problem` }, example } },
  };
}

function json(description: string, schema: string, extra: Json = {}): Json {
  return {
    description,
    headers: { ...limitHeaders, Link: refHeader('Link'), ...extra },
    content: { 'application/json': { schema: { $ref: `${REF}${schema}` } } },
  };
}

const shared = (path: string): Record<string, Json> => ({
  '405': { $ref: '#/components/responses/MethodNotAllowed' },
  '429': { $ref: '#/components/responses/RateLimited' },
  '500': problemAnswer(
    'The service failed to answer',
    problem('internal', 'The service failed to answer; try again shortly.', path),
  ),
  '502': { $ref: '#/components/responses/BadGateway' },
  '503': { $ref: '#/components/responses/Unavailable' },
});

const bearer = [{ PushToken: [] }];

export const PUSH_TOKEN_SCHEME: Json = {
  type: 'http',
  scheme: 'bearer',
  description: 'The token POST /push/subscriptions answered with (shown once).',
};

/** The paths, with the limits the function enforces. */
export function pushPaths(subscriptionsPolicy: LimitPolicy, hosts: readonly string[]): Record<string, Json> {
  const notFound = problemAnswer(
    'No push alert with this id and token (an unknown id and a wrong token answer alike)',
    problem('not-found', 'No push alert with this id and token', ONE),
  );
  const get = {
    operationId: 'getVapidPublicKey',
    summary: 'The VAPID public key',
    description:
      'The key to pass as applicationServerKey to PushManager.subscribe: messages are signed with its private half (RFC 8292).',
    tags: ['push'],
    security: [{}],
    responses: {
      '200': json('The key', 'VapidPublicKey', {
        ETag: refHeader('ETag'),
        'Cache-Control': refHeader('CacheControl'),
      }),
      ...shared(PUSH_PATHS.publicKey),
    },
  };
  return {
    [PUSH_PATHS.publicKey]: { get, head: { ...get, operationId: 'headVapidPublicKey' } },
    [PUSH_PATHS.subscriptions]: {
      post: {
        operationId: 'createPushAlert',
        summary: 'Alert a browser by Web Push when a lane drops below a threshold',
        description: `Stores one alert with the browser's push subscription: one message per dip below \`below_minutes\` (fresh readings only, never in the quiet hours, port-local time), in \`lang\`, opening the port page. The endpoint must be https:// on a push service host (${hosts.join(', ')}). At most ${PUSH_LIMITS.alertsPerSubscription} alerts per subscription (else 409) and ${subscriptionsPolicy.quota} requests per hour per client IP. Alerts expire after ${PUSH_LIMITS.keepDays} days unless renewed with PUT.`,
        tags: ['push'],
        security: [{}],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `${REF}PushAlertRequest` } } },
        },
        responses: {
          '201': json('Stored: keep the token, it is shown only now', 'PushAlertCreated', {
            Location: { schema: { type: 'string' }, description: 'The alert, for DELETE and PUT' },
          }),
          '400': problemAnswer('A field is missing or bad (each one in errors); nothing is stored', {
            ...problem(
              'invalid-body',
              'subscription.endpoint must be an https:// URL',
              PUSH_PATHS.subscriptions,
            ),
            errors: [{ name: 'subscription.endpoint', reason: 'must be an https:// URL' }],
          }),
          '409': problemAnswer(
            'The subscription already holds the most alerts it may',
            problem(
              'limit-reached',
              `This push subscription already holds ${PUSH_LIMITS.alertsPerSubscription} alerts; delete one first.`,
              PUSH_PATHS.subscriptions,
            ),
          ),
          '413': problemAnswer(
            'The body is larger than 8 KiB',
            problem('too-large', 'At most 8192 bytes', PUSH_PATHS.subscriptions),
          ),
          '415': problemAnswer(
            'Not JSON',
            problem('unsupported-media-type', 'Send application/json', PUSH_PATHS.subscriptions),
          ),
          ...shared(PUSH_PATHS.subscriptions),
        },
      },
    },
    [ONE]: {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      put: {
        operationId: 'renewPushAlert',
        summary: `Renew a push alert for ${PUSH_LIMITS.keepDays} more days`,
        tags: ['push'],
        security: bearer,
        responses: {
          '200': json('Renewed', 'PushAlertRenewed'),
          '404': notFound,
          ...shared(ONE),
        },
      },
      delete: {
        operationId: 'deletePushAlert',
        summary: 'Delete a push alert',
        tags: ['push'],
        security: bearer,
        responses: {
          '204': {
            description: 'Deleted: no more messages',
            headers: { ...limitHeaders, Link: refHeader('Link') },
          },
          '404': notFound,
          ...shared(ONE),
        },
      },
    },
  };
}
