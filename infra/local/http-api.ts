/**
 * The local HTTP API (API Gateway v2, payload format 2.0) that serves `/mcp` and the OAuth
 * resource metadata. Unlike the REST gateway (gateway.ts), it passes every response header
 * through, `WWW-Authenticate` included, as the real HTTP API does.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { BodyTooLargeError, readBody, refuseTooLarge } from './gateway.ts';
import { lambdaContext } from './lambda-context.ts';
import { send } from './send.ts';

export type HttpApiHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export async function toHttpApiEvent(
  req: IncomingMessage,
  url: URL,
  routeKey: string,
): Promise<APIGatewayProxyEventV2> {
  const headers: Record<string, string> = {};
  // Payload 2.0 joins repeated headers with commas and moves cookies to `cookies`.
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const body = await readBody(req);
  const method = req.method ?? 'GET';
  const cookies = req.headers.cookie?.split(';').map((c) => c.trim());
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(cookies ? { cookies } : {}),
    ...(body.length > 0 ? { body: body.toString('utf8') } : {}),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local-http',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local-http',
      http: {
        method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

/** Invokes the handler and writes its result; a thrown error or a bad result is a 500 as in AWS. */
export async function invokeHttpApi(
  handler: HttpApiHandler,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  options: { functionName: string; timeoutSeconds: number; routeKey: string; log: (line: string) => void },
): Promise<void> {
  let result: APIGatewayProxyStructuredResultV2;
  let event: APIGatewayProxyEventV2;
  try {
    event = await toHttpApiEvent(req, url, options.routeKey);
  } catch (error: unknown) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    refuseTooLarge(req, res);
    return;
  }
  try {
    result = await handler(event, lambdaContext(options.functionName, options.timeoutSeconds));
    if (typeof result.statusCode !== 'number') throw new Error('result without statusCode');
  } catch (error: unknown) {
    options.log(
      `http api: ${options.functionName} failed: ${error instanceof Error ? error.stack : String(error)}`,
    );
    result = {
      statusCode: 500,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"Internal Server Error"}',
    };
  }
  const headers: Record<string, string | string[]> = { 'apigw-requestid': randomUUID() };
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.isBase64Encoded
    ? Buffer.from(result.body ?? '', 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  send(res, req.method, result.statusCode ?? 200, headers, body);
}
