/**
 * Headers every answer of the HTTP API's paths carries (`/mcp`, the OAuth resource metadata): CORS
 * for browser clients and the attribution link. The mcp function sets them on each answer it gives;
 * the CDN adds the same to the answers the HTTP API gives itself (its origin authorizer's 401 and
 * 403, a throttle's 429, a 413), which no gateway response can shape (infra/constructs/
 * edge-distribution.ts, infra/local/edge.ts). A file of its own, so the stack reads it without the
 * MCP SDK.
 */
import { SITE_URL } from '../core/site.ts';

/** Headers a browser page may read from an answer (CORS), and the attribution link. */
export const MCP_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, RateLimit, RateLimit-Policy, Retry-After, Link',
  link: `<${SITE_URL}>; rel="author"`,
};
