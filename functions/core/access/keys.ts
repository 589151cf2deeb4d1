/**
 * API keys (DESIGN.md section 5): `bw_live_` + 32 base62 characters of randomness (190 bits) + a
 * 6-character base62 CRC32 checksum, e.g. `bw_live_4fJ0...q1Zx9a`. The checksum lets a typo or a
 * truncated paste be refused before any store lookup. Keys are shown once and stored only as their
 * SHA-256 hex digest (the key itself is the entropy, so a fast hash is enough); comparisons of
 * digests use `timingSafeEqual`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'bw_live_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

/** A stored key: never the key itself, only its digest and what an operator may see. */
export interface ApiKeyRecord {
  /** Public id (`key_...`), shown by `keys list` and used by `keys revoke`. */
  id: string;
  /** SHA-256 hex of the key. */
  hash: string;
  account: string;
  /** The prefix and last four characters, to recognise a key without storing it. */
  hint: string;
  createdAt: string;
  revokedAt: string | null;
  /** The key request this key answered, if any. */
  requestId: string | null;
}

/** Stores keys by digest; owned by the core, implemented in adapters/dynamo/keys.ts. */
export interface KeyStore {
  put(record: ApiKeyRecord): Promise<void>;
  /** The record whose digest is `hash`, or null. */
  getByHash(hash: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when no key has this id. */
  revoke(id: string, atIso: string): Promise<boolean>;
}

/** `count` characters drawn uniformly from the base62 alphabet (rejection sampling, no modulo bias). */
export function randomBase62(count: number): string {
  let out = '';
  while (out.length < count) {
    for (const byte of randomBytes(count * 2)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248 && out.length < count) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i += 1) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

/** A new key: prefix, 32 random base62 characters, checksum. */
export function generateKey(): string {
  const body = `${KEY_PREFIX}${randomBase62(RANDOM_LENGTH)}`;
  return `${body}${checksumOf(body)}`;
}

/** True when `key` has the key format and its checksum matches (no store lookup needed). */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  return timingSafeEqual(Buffer.from(checksumOf(body)), Buffer.from(key.slice(-CHECKSUM_LENGTH)));
}

/** SHA-256 hex digest of a key: the only form in which keys are stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Constant-time equality of two hex digests (false for different lengths). */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A new record for `key` (which is not kept). */
export function newKeyRecord(
  key: string,
  account: string,
  nowMs: number,
  requestId: string | null = null,
): ApiKeyRecord {
  return {
    id: `key_${randomBase62(12)}`,
    hash: hashKey(key),
    account,
    hint: `${KEY_PREFIX}...${key.slice(-4)}`,
    createdAt: new Date(nowMs).toISOString(),
    revokedAt: null,
    requestId,
  };
}

export type KeyCheck =
  | { ok: true; record: ApiKeyRecord }
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' };

/**
 * Checks a presented key: format and checksum first (a garbled key never reaches the store), then
 * the digest lookup, then a constant-time comparison of the stored digest.
 */
export async function checkKey(store: Pick<KeyStore, 'getByHash'>, key: string): Promise<KeyCheck> {
  if (!isWellFormedKey(key)) return { ok: false, reason: 'malformed' };
  const hash = hashKey(key);
  const record = await store.getByHash(hash);
  if (!record || !sameDigest(record.hash, hash)) return { ok: false, reason: 'unknown' };
  if (record.revokedAt) return { ok: false, reason: 'revoked' };
  return { ok: true, record };
}
