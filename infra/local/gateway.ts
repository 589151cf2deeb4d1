/**
 * The local API Gateway (REST v1 proxy integration): runs the REQUEST authorizer first (as the
 * stage's methods do), builds the event API Gateway would send, calls the handler, and validates
 * its result as API Gateway does (a malformed result is a 502). Its own errors are the stack's
 * gateway responses (problem+json, infra/stack.ts). It also reproduces REST's header remapping: a
 * Lambda's `WWW-Authenticate` reaches the client as `x-amzn-Remapped-WWW-Authenticate`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { PROBLEM_CONTENT_TYPE, PROBLEMS } from '../../functions/core/problems.ts';
import {
  API_STAGE,
  AUTHORIZER_RETRY_AFTER_SECONDS,
  GATEWAY_RESPONSE_HEADERS,
  GATEWAY_RESPONSES,
  type GatewayResponseName,
  gatewayProblemBody,
} from '../manifest.ts';
import { lambdaContext } from './lambda-context.ts';
import { send } from './send.ts';

/** What a REQUEST authorizer returns (the parts the gateway uses). */
export interface AuthorizerVerdict {
  principalId: string;
  usageIdentifierKey?: string;
  policyDocument?: { Statement: { Effect: string }[] };
  context?: Record<string, string | number | boolean>;
}

export type Authorize = (event: APIGatewayRequestAuthorizerEvent) => Promise<AuthorizerVerdict>;

/**
 * A gateway response as the stack configures it (`GATEWAY_RESPONSES`): problem+json from the
 * same mapping template, with `$context.error.messageString` filled in (and no `instance`, as there).
 * `status` is the gateway's own for the DEFAULT_4XX/5XX responses (their template fixes none).
 */
export function gatewayResponse(
  name: GatewayResponseName,
  message: string,
  status?: number,
): APIGatewayProxyResult {
  const spec = GATEWAY_RESPONSES[name];
  return {
    statusCode: spec.fixedStatus ? PROBLEMS[spec.kind].status : (status ?? PROBLEMS[spec.kind].status),
    headers: {
      'content-type': PROBLEM_CONTENT_TYPE,
      ...GATEWAY_RESPONSE_HEADERS,
      // The authorizer could not decide: try again shortly (as the stack's AUTHORIZER_FAILURE).
      ...(spec.kind === 'unavailable' ? { 'retry-after': String(AUTHORIZER_RETRY_AFTER_SECONDS) } : {}),
    },
    body: gatewayProblemBody(name, JSON.stringify(message)),
  };
}

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Headers API Gateway REST renames on the way out of a proxy integration. */
const REMAPPED = new Set([
  'www-authenticate',
  'authorization',
  'server',
  'date',
  'content-length',
  'connection',
]);

export interface GatewayRequest {
  method: string;
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  sourceIp: string;
}

/** The most a request body may hold: a synchronous Lambda invocation's payload limit (6 MB). */
export const MAX_REQUEST_BYTES = 6 * 1024 * 1024;

/** A request body over the limit: API Gateway answers 413 (REQUEST_TOO_LARGE) and calls no function. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

export async function readBody(req: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total > limit) throw new BodyTooLargeError(`request body over ${limit} bytes`);
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

/**
 * Answers a body over the limit with the gateway's 413 problem+json, and discards the rest of the
 * upload (the connection closes after the answer, so a client still sending is not left waiting).
 */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  const result = gatewayResponse(
    'RequestTooLarge',
    `The request body is larger than ${MAX_REQUEST_BYTES} bytes`,
  );
  res.shouldKeepAlive = false;
  writeResult(res, result, req.method ?? 'POST');
  req.resume();
}

/**
 * The path parameters of `pathname` under a REST resource path (`/push/subscriptions/{id}`,
 * `/api/v1/{proxy+}`), or null when it does not match: `{name}` is one segment, `{name+}` the rest.
 */
export function matchResource(resource: string, pathname: string): Record<string, string> | null {
  const names: string[] = [];
  const pattern = resource
    .split('/')
    .map((segment) => {
      const param = /^\{([A-Za-z0-9_]+)(\+?)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1] as string);
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  const match = new RegExp(`^${pattern}$`).exec(pathname);
  if (!match) return null;
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  };
  return Object.fromEntries(names.map((name, index) => [name, decode(match[index + 1] as string)]));
}

export function toRestEvent(
  request: GatewayRequest,
  resource: string,
  verdict: AuthorizerVerdict | null,
): APIGatewayProxyEvent {
  // With apiKeySourceType AUTHORIZER, identity.apiKey is the usage key the authorizer returned.
  const apiKey = verdict?.usageIdentifierKey ?? null;
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    multiValueHeaders[name] = values;
    headers[name] = values[values.length - 1] as string;
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of request.url.searchParams) {
    const values = multiQuery[name] ?? [];
    values.push(value);
    multiQuery[name] = values;
    query[name] = value; // REST v1 keeps the last value here
  }
  const hasQuery = Object.keys(query).length > 0;
  const text = request.body.length > 0 ? request.body.toString('utf8') : null;
  const path = request.url.pathname;
  return {
    resource,
    path,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: resource.includes('{') ? matchResource(resource, path) : null,
    stageVariables: null,
    body: text,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: verdict
        ? { principalId: verdict.principalId, integrationLatency: 0, ...verdict.context }
        : null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp,
        user: null,
        userAgent: headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${API_STAGE}${path}`,
      stage: API_STAGE,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: resource,
    },
  };
}

/**
 * Runs the REQUEST authorizer on the request as API Gateway would (caching off, no identity
 * sources): its verdict, or the gateway response that ends the request: `Unauthorized` is 401
 * (UNAUTHORIZED), an explicit Deny 403 (ACCESS_DENIED), any other failure 503 with Retry-After
 * (AUTHORIZER_FAILURE, as the stack configures it).
 */
export async function runAuthorizer(
  authorize: Authorize,
  event: APIGatewayProxyEvent,
  log: (line: string) => void,
): Promise<{ verdict: AuthorizerVerdict } | { result: APIGatewayProxyResult }> {
  const authorizerEvent = {
    ...event,
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:us-east-1:000000000000:local/${API_STAGE}/${event.httpMethod}${event.path}`,
  } as unknown as APIGatewayRequestAuthorizerEvent;
  let verdict: AuthorizerVerdict;
  try {
    verdict = await authorize(authorizerEvent);
  } catch (error: unknown) {
    if (error instanceof Error && error.message === 'Unauthorized') {
      return {
        result: gatewayResponse('Unauthorized', 'Unauthorized'),
      };
    }
    log(`gateway: authorizer failed: ${error instanceof Error ? error.stack : String(error)}`);
    return {
      result: gatewayResponse(
        'AuthorizerFailure',
        'The request could not be authorized just now; retry in a few seconds.',
      ),
    };
  }
  if (verdict.policyDocument?.Statement.some((statement) => statement.Effect === 'Deny')) {
    return {
      result: gatewayResponse(
        'AccessDenied',
        'User is not authorized to access this resource with an explicit deny',
      ),
    };
  }
  return { verdict };
}

/** Checks a proxy result the way API Gateway does; null when it is malformed. */
export function validateResult(result: unknown): APIGatewayProxyResult | null {
  if (!result || typeof result !== 'object') return null;
  const r = result as Record<string, unknown>;
  if (
    typeof r.statusCode !== 'number' ||
    !Number.isInteger(r.statusCode) ||
    r.statusCode < 100 ||
    r.statusCode > 599
  ) {
    return null;
  }
  if (r.body !== undefined && typeof r.body !== 'string') return null;
  for (const field of ['headers', 'multiValueHeaders'] as const) {
    const value = r[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'object') return null;
    for (const v of Object.values(value)) {
      const ok = field === 'headers' ? ['string', 'number', 'boolean'].includes(typeof v) : Array.isArray(v);
      if (!ok) return null;
    }
  }
  return result as APIGatewayProxyResult;
}

/** Writes a proxy result to a node response, applying REST's header remapping. */
export function writeResult(res: ServerResponse, result: APIGatewayProxyResult, method: string): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    const lower = name.toLowerCase();
    headers[REMAPPED.has(lower) ? `x-amzn-remapped-${lower}` : lower] = String(value);
  }
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    const lower = name.toLowerCase();
    headers[REMAPPED.has(lower) ? `x-amzn-remapped-${lower}` : lower] = values.map(String);
  }
  const body = result.isBase64Encoded
    ? Buffer.from(result.body ?? '', 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  headers['x-amzn-requestid'] = randomUUID();
  send(res, method, result.statusCode, headers, body);
}

/** Invokes `handler` with a REST v1 event and a real-shaped context; a bad result is a 502. */
export async function invokeProxy(
  handler: ProxyHandler,
  event: APIGatewayProxyEvent,
  functionName: string,
  timeoutSeconds: number,
  log: (line: string) => void,
): Promise<APIGatewayProxyResult> {
  // DEFAULT_5XX in the stack: no status member in its template.
  const internalError = gatewayResponse('Default5xx', 'Internal server error', 502);
  try {
    const result = validateResult(await handler(event, lambdaContext(functionName, timeoutSeconds)));
    if (!result) {
      log(`gateway: ${functionName} returned a malformed proxy result (502)`);
      return internalError;
    }
    return result;
  } catch (error: unknown) {
    log(`gateway: ${functionName} failed: ${error instanceof Error ? error.stack : String(error)}`);
    return internalError;
  }
}
