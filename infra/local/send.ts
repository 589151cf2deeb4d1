/**
 * Writes a whole answer as the HTTP servers in front of the functions do (CloudFront, API
 * Gateway): with the body's `Content-Length`, and for HEAD the very headers a GET gets, without
 * the body (RFC 9110 section 9.3.2). A 204 or 304 has no body.
 */
import type { ServerResponse } from 'node:http';

export function send(
  res: ServerResponse,
  method: string | undefined,
  status: number,
  headers: Record<string, string | string[]>,
  body?: string | Buffer,
): void {
  const bytes =
    body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const bodiless = status === 204 || status === 304;
  const out = { ...headers };
  if (!bodiless && !Object.keys(out).some((name) => name.toLowerCase() === 'content-length')) {
    out['content-length'] = String(bytes.length);
  }
  res.writeHead(status, out);
  res.end(method === 'HEAD' || bodiless ? undefined : bytes);
}
