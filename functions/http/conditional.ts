/**
 * RFC 9110 section 13.1 for GET and HEAD, in one place for the api function and the local edge
 * (as CloudFront answers from its copy): `If-None-Match` decides when present (weak comparison, as
 * the RFC asks for this header); otherwise `If-Modified-Since`, when it is a valid HTTP-date and
 * the representation was last modified at or before it.
 */

/** Whether a GET or HEAD with these preconditions is answered 304 for a representation with these validators. */
export function isNotModified(
  preconditions: { ifNoneMatch?: string | undefined; ifModifiedSince?: string | undefined },
  validators: { etag?: string | null | undefined; lastModified?: string | null | undefined },
): boolean {
  const { etag, lastModified } = validators;
  if (preconditions.ifNoneMatch !== undefined) {
    const weakless = (tag: string) => tag.trim().replace(/^W\//, '');
    return preconditions.ifNoneMatch
      .split(',')
      .some((tag) => tag.trim() === '*' || (etag != null && weakless(tag) === weakless(etag)));
  }
  const since = Date.parse(preconditions.ifModifiedSince ?? '');
  const modified = Date.parse(lastModified ?? '');
  return Number.isFinite(since) && Number.isFinite(modified) && modified <= since;
}
