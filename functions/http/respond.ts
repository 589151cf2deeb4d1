/**
 * API Gateway REST (v1) proxy results for JSON and problem+json, with the caching contract:
 * strong ETag, Last-Modified, Cache-Control, 304 on a matching If-None-Match (or, without one, an
 * If-Modified-Since at or after Last-Modified), HEAD with the same headers as GET and no body,
 * CORS for browsers, and the attribution Link.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { PublishedDocument } from '../core/model.ts';
import { PROBLEM_CONTENT_TYPE, type Problem } from '../core/problems.ts';
import { SITE_URL } from '../core/site.ts';
import { isNotModified } from './conditional.ts';

const EXPOSED = ['ETag', 'Last-Modified', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'Link', 'Location'];

export function baseHeaders(): Record<string, string> {
  return {
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSED.join(', '),
    link: `<${SITE_URL}>; rel="author"`,
    'x-content-type-options': 'nosniff',
    vary: 'Accept-Encoding',
  };
}

/** Case-insensitive header lookup on a REST v1 event. */
export function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

export function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** A 200 (or 304) JSON response for `body` with its validators. */
export function jsonResponse(
  event: APIGatewayProxyEvent,
  document: Pick<PublishedDocument, 'body' | 'etag' | 'lastModified' | 'cacheControl'> & {
    contentType?: string;
  },
  extraHeaders: Record<string, string> = {},
): APIGatewayProxyResult {
  const headers: Record<string, string> = {
    ...baseHeaders(),
    'content-type': document.contentType ?? 'application/json; charset=utf-8',
    'cache-control': document.cacheControl,
    etag: document.etag,
    'last-modified': document.lastModified,
    ...extraHeaders,
  };
  const read = event.httpMethod === 'GET' || event.httpMethod === 'HEAD';
  if (
    read &&
    isNotModified(
      { ifNoneMatch: header(event, 'if-none-match'), ifModifiedSince: header(event, 'if-modified-since') },
      document,
    )
  ) {
    const { 'content-type': _ct, ...rest } = headers;
    return { statusCode: 304, headers: rest, body: '' };
  }
  // HEAD too gets the body: the gateway sends its Content-Length and not the body, so HEAD's
  // headers are GET's (RFC 9110 9.3.2).
  return { statusCode: 200, headers, body: document.body };
}

export function problemResponse(
  _event: APIGatewayProxyEvent,
  value: Problem,
  extraHeaders: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode: value.status,
    headers: {
      ...baseHeaders(),
      'content-type': PROBLEM_CONTENT_TYPE,
      'cache-control': value.status >= 500 || value.status === 429 ? 'no-store' : 'public, max-age=60',
      ...extraHeaders,
    },
    body: JSON.stringify(value),
  };
}

/** First value of each query parameter (API Gateway keeps the last in `queryStringParameters`). */
export function queryParams(event: APIGatewayProxyEvent): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 0 && values[0] !== undefined) out[name] = values[0];
  }
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (!(name in out) && value !== undefined) out[name] = value;
  }
  return out;
}
