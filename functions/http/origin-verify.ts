/**
 * The CDN vouches for a request by adding a secret origin header (CloudFront custom origin header
 * `x-origin-verify`, the value kept in Secrets Manager). Both APIs check it in their authorizers,
 * before any handler runs: a request sent to an execute-api URL directly lacks it, so its
 * `CloudFront-Viewer-Address` (which only the CDN may set) is never believed.
 */
import { timingSafeEqual } from 'node:crypto';
import type { SecretSource } from '../core/secrets.ts';

export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/** The header's value in a header map whose names may have any case. */
export function originHeaderOf(
  headers: Record<string, string | undefined> | null | undefined,
): string | undefined {
  if (!headers) return undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === ORIGIN_VERIFY_HEADER) return value;
  }
  return undefined;
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Whether `presented` is the origin secret (the current value, or the previous one while a
 * rotation reaches every CloudFront edge). Rejects when the secret cannot be read.
 */
export function createOriginCheck(secrets: SecretSource, secretId: string) {
  return async function verified(presented: string | undefined): Promise<boolean> {
    if (!presented) return false;
    const accepted = await secrets.values(secretId);
    // Compare with every value, so the time taken says nothing about which one matched.
    let match = false;
    for (const value of accepted) match = same(presented, value) || match;
    return match;
  };
}

export type OriginCheck = ReturnType<typeof createOriginCheck>;
