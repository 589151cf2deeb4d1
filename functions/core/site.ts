/**
 * Where the service's site lives: the attribution `Link` of every response, the problem type URIs,
 * the links of the RSS feeds and the OpenAPI contact all start here. (The CloudFront function
 * cannot import it and keeps its own copy of the problem base: a test checks the two agree.)
 */
export const SITE_ORIGIN = 'https://border-waits.dev';

/** The site's root page, as the `Link: <...>; rel="author"` header names it. */
export const SITE_URL = `${SITE_ORIGIN}/`;
