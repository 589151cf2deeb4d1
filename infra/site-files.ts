/**
 * How the built site (site/dist) goes into the site bucket: its files in groups, each with its
 * cache lifetime and, where a file's extension does not say it, its content type. The stack deploys
 * each group with a BucketDeployment and the local runtime uploads by the same table, so a file
 * gets the same headers in both.
 */
import { extname } from 'node:path';
import { PROBLEM_CONTENT_TYPE } from '../functions/core/problems.ts';

/** The problem+json document CloudFront serves for S3 403/404 (shipped by the site build). */
export const NOT_FOUND_KEY = 'errors/not-found.json';

export interface SiteGroup {
  readonly name: string;
  /** Keys of this group (`aws s3 sync` filters: `*` matches any characters, `/` included). */
  readonly include: readonly string[];
  readonly cacheControl: string;
  /** Set where the extension alone would give another type. */
  readonly contentType?: string;
  /** Whether keys of the group that the new build lacks are deleted. */
  readonly prune: boolean;
}

/**
 * The groups, most specific first; a key belongs to the first that includes it, and every other
 * key to {@link SITE_REST}. Hashed assets are never pruned: a page cached before the deploy may
 * still ask for the files it was built with.
 */
export const SITE_GROUPS: readonly SiteGroup[] = [
  {
    name: 'Assets',
    include: ['_astro/*'],
    cacheControl: 'public, max-age=31536000, immutable',
    prune: false,
  },
  {
    // The problem documents CloudFront serves for S3's errors (404, 416).
    name: 'Errors',
    include: ['errors/*'],
    cacheControl: 'public, max-age=60',
    contentType: PROBLEM_CONTENT_TYPE,
    prune: true,
  },
  {
    name: 'Manifests',
    include: ['*.webmanifest'],
    cacheControl: 'public, max-age=300',
    contentType: 'application/manifest+json',
    prune: true,
  },
  {
    name: 'Pages',
    include: ['*.html'],
    cacheControl: 'public, max-age=300',
    contentType: 'text/html; charset=utf-8',
    prune: true,
  },
];

/** Everything else (the service worker, icons, RSS stylesheets...): types from the extension. */
export const SITE_REST: SiteGroup = {
  name: 'Files',
  include: ['*'],
  cacheControl: 'public, max-age=300',
  prune: true,
};

/** The content type of a file by its extension (the local upload; BucketDeployment guesses alike). */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** `aws s3 sync` filter matching: `*` is any run of characters, `?` one. */
export function matchesFilter(key: string, pattern: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(key);
}

/** The group a key of the built site belongs to. */
export function siteGroupOf(key: string): SiteGroup {
  return SITE_GROUPS.find((group) => group.include.some((p) => matchesFilter(key, p))) ?? SITE_REST;
}

/** The headers an object of the built site is stored with. */
export function siteObjectHeaders(key: string): { contentType: string; cacheControl: string } {
  const group = siteGroupOf(key);
  return {
    contentType: group.contentType ?? TYPES[extname(key)] ?? 'application/octet-stream',
    cacheControl: group.cacheControl,
  };
}
