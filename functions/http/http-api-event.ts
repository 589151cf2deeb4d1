/**
 * HTTP API (payload format 2.0) events <-> web `Request`/`Response`. Unlike REST proxy
 * integrations, an HTTP API passes `WWW-Authenticate` through untouched, which the MCP OAuth
 * challenge needs. The URL is built from the configured public origin, never from `Host`.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export function httpApiEventToRequest(event: APIGatewayProxyEventV2, publicOrigin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value !== undefined) headers.set(name, value);
  if (event.cookies?.length) headers.set('cookie', event.cookies.join('; '));
  const url = new URL(event.rawPath, publicOrigin);
  url.search = event.rawQueryString ?? '';
  const method = event.requestContext.http.method.toUpperCase();
  const body =
    method === 'GET' || method === 'HEAD' || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(url, { method, headers, body });
}

/** Buffers the response: never hand this a stream that does not end. */
export async function responseToHttpApiResult(
  response: Response,
): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { statusCode: response.status, headers, body: await response.text(), isBase64Encoded: false };
}
