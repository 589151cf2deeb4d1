/**
 * The security headers of every response the CDN gives, by behaviour: the site (its
 * Content-Security-Policy computed from the built site), the published documents, and the APIs
 * (REST, MCP, OAuth metadata). The CDK stack turns them into CloudFront response headers policies
 * and the local edge adds the same headers, so the two cannot drift.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { API_PATTERNS, DATA_PATH_PREFIXES, isHttpRoutePath, PUSH_PATTERNS, ROUTES } from './manifest.ts';

/** Which kind of behaviour serves a path: the status site, a published document, or an API. */
export type BehaviourKind = 'site' | 'data' | 'api';

/** On every response, whatever the behaviour. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  // For browsers without CSP's frame-ancestors.
  'x-frame-options': 'DENY',
};

/**
 * The policy of everything but the site (JSON, RSS, problem documents, MCP): nothing in them may
 * run, load or be framed.
 */
export const DOCUMENT_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** CloudFront refuses a response headers policy whose Content-Security-Policy is longer. */
export const CLOUDFRONT_CSP_MAX_LENGTH = 1783;

/**
 * The site's policy for the built site in `dist` (none: a site without inline scripts): scripts only from the site itself and the inline
 * scripts it ships, each allowed by its SHA-256 (never `'unsafe-inline'`), data only from its own
 * origin, no plugins, no framing. Styles allow inline: the pages draw their charts with `style`
 * attributes and `<style>` elements in markup they build at run time, which no hash can name.
 *
 * Fails, naming the file, on what no hash can allow (an inline event handler or a `javascript:`
 * URL) and when the policy would not fit in CloudFront's limit (move inline scripts to files).
 */
export function siteContentSecurityPolicy(dist: string | undefined): string {
  const hashes = new Set<string>();
  for (const file of dist === undefined ? [] : htmlFiles(dist)) {
    const html = readFileSync(file, 'utf8');
    const where = relative(dist ?? '', file);
    for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
      const attributes = match[1] ?? '';
      if (/\bsrc\s*=/i.test(attributes) || !executable(attributes)) continue;
      hashes.add(
        `'sha256-${createHash('sha256')
          .update(match[2] ?? '', 'utf8')
          .digest('base64')}'`,
      );
    }
    const handler = /<[a-z][^>]*\s(on[a-z]+)\s*=/i.exec(html);
    if (handler)
      throw new Error(
        `${where}: an inline event handler (${handler[1]}) cannot run under the site's Content-Security-Policy; attach it in a script`,
      );
    if (/\s(?:href|src|action)\s*=\s*["']?\s*javascript:/i.test(html))
      throw new Error(
        `${where}: a javascript: URL cannot run under the site's Content-Security-Policy; use a script`,
      );
  }
  const policy = [
    "default-src 'self'",
    `script-src ${["'self'", ...[...hashes].sort()].join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  if (policy.length > CLOUDFRONT_CSP_MAX_LENGTH)
    throw new Error(
      `the site's Content-Security-Policy is ${policy.length} characters (${hashes.size} inline scripts); CloudFront allows ${CLOUDFRONT_CSP_MAX_LENGTH}: move inline scripts into files`,
    );
  return policy;
}

/** Whether a `<script>` with these attributes runs (data blocks such as JSON do not). */
function executable(attributes: string): boolean {
  const type = /\btype\s*=\s*["']?([^"'\s>]+)/i.exec(attributes)?.[1]?.toLowerCase();
  return (
    type === undefined || type === 'module' || type === 'text/javascript' || type === 'application/javascript'
  );
}

function htmlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...htmlFiles(path));
    else if (entry.endsWith('.html')) out.push(path);
  }
  return out;
}

/**
 * The headers a behaviour adds to every response: the security headers, and the site's policy or
 * the documents' one.
 */
export function securityHeadersOf(kind: BehaviourKind, sitePolicy: string): Record<string, string> {
  return {
    ...SECURITY_HEADERS,
    'content-security-policy': kind === 'site' ? sitePolicy : DOCUMENT_CONTENT_SECURITY_POLICY,
  };
}

/** CloudFront path-pattern matching (`*` is any run of characters). */
const matches = (pathname: string, pattern: string) =>
  pattern.endsWith('*') ? pathname.startsWith(pattern.slice(0, -1)) : pathname === pattern;

/**
 * The kind of behaviour that serves `pathname`, in the distribution's order: the static views and
 * the published documents, the HTTP API's paths, the REST API's, then the site (the default).
 */
export function behaviourKindOf(pathname: string): BehaviourKind {
  const views = ROUTES.filter((route) => route.static).map((route) => `${route.path}*`);
  const documents = DATA_PATH_PREFIXES.map((prefix) => (prefix.endsWith('/') ? `${prefix}*` : prefix));
  if ([...views, ...documents].some((pattern) => matches(pathname, pattern))) return 'data';
  if (
    isHttpRoutePath(pathname) ||
    [...API_PATTERNS, ...PUSH_PATTERNS].some((pattern) => matches(pathname, pattern))
  )
    return 'api';
  return 'site';
}
