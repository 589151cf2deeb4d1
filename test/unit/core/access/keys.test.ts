import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ApiKeyRecord,
  checkKey,
  generateKey,
  hashKey,
  isWellFormedKey,
  KEY_PREFIX,
  newKeyRecord,
  sameDigest,
} from '../../../../functions/core/access/keys.ts';
import {
  consume,
  type LimitStore,
  limitHeaders,
  policyHeader,
  secondsToReset,
  windowStart,
} from '../../../../functions/core/access/limits.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API keys', () => {
  it('have the readable prefix, 38 base62 characters and a valid checksum', () => {
    const key = generateKey();
    expect(key).toMatch(/^bw_live_[0-9A-Za-z]{38}$/);
    expect(isWellFormedKey(key)).toBe(true);
  });

  it('carry at least 128 bits of randomness: no repeats, every character in use', () => {
    const keys = Array.from({ length: 2000 }, generateKey);
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set(keys.flatMap((key) => [...key.slice(KEY_PREFIX.length, -6)]));
    expect(seen.size).toBe(62);
    // 32 random base62 characters: 32 * log2(62) bits.
    expect(32 * Math.log2(62)).toBeGreaterThan(128);
  });

  it('rejects any single-character typo by the checksum, before any lookup', () => {
    const key = generateKey();
    fc.assert(
      fc.property(
        fc.integer({ min: KEY_PREFIX.length, max: key.length - 1 }),
        fc.constantFrom(...ALPHABET),
        (position, char) => {
          fc.pre(key[position] !== char);
          const typo = `${key.slice(0, position)}${char}${key.slice(position + 1)}`;
          expect(isWellFormedKey(typo)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each(['', 'bw_live_', 'bw_test_0000', `${generateKey()}x`, generateKey().slice(0, -1), ' '])(
    'refuses the malformed %j without touching the store',
    async (key) => {
      let lookups = 0;
      const result = await checkKey(
        {
          getByHash: async () => {
            lookups += 1;
            return null;
          },
        },
        key,
      );
      expect(result).toEqual({ ok: false, reason: 'malformed' });
      expect(lookups).toBe(0);
    },
  );

  it('stores only the digest and a hint, never the key', () => {
    const key = generateKey();
    const record = newKeyRecord(key, 'Example Freight', Date.parse('2026-11-18T20:00:00Z'));
    expect(record.hash).toBe(hashKey(key));
    expect(record.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(record)).not.toContain(key.slice(KEY_PREFIX.length, -4));
    expect(record.hint).toBe(`bw_live_...${key.slice(-4)}`);
  });

  it('finds live keys by digest and refuses unknown and revoked ones', async () => {
    const key = generateKey();
    const record = newKeyRecord(key, 'A', 0);
    const records = new Map<string, ApiKeyRecord>([[record.hash, record]]);
    const store = { getByHash: async (hash: string) => records.get(hash) ?? null };
    expect(await checkKey(store, key)).toEqual({ ok: true, record });
    expect(await checkKey(store, generateKey())).toEqual({ ok: false, reason: 'unknown' });
    records.set(record.hash, { ...record, revokedAt: '2026-11-18T20:00:00.000Z' });
    expect(await checkKey(store, key)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('compares digests in constant time and only at equal length', () => {
    const a = hashKey('a');
    expect(sameDigest(a, hashKey('a'))).toBe(true);
    expect(sameDigest(a, hashKey('b'))).toBe(false);
    expect(sameDigest(a, a.slice(1))).toBe(false);
  });
});

describe('fixed windows', () => {
  const policy = { name: 'key', quota: 3, windowSeconds: 60 };
  const memory = (): LimitStore => {
    const counts = new Map<string, number>();
    return {
      async hit(subject, start, _expires, amount) {
        const count = (counts.get(`${subject}#${start}`) ?? 0) + amount;
        counts.set(`${subject}#${start}`, count);
        return count;
      },
    };
  };

  it('align to the minute and count the seconds left', () => {
    const at = Date.parse('2026-11-18T20:10:17.250Z');
    expect(windowStart(at, 60)).toBe(Date.parse('2026-11-18T20:10:00Z') / 1000);
    expect(secondsToReset(at, 60)).toBe(43);
    expect(secondsToReset(Date.parse('2026-11-18T20:10:59.999Z'), 60)).toBe(1);
  });

  it('admit the quota, refuse the next with Retry-After, and start over in the next window', async () => {
    const store = memory();
    const at = Date.parse('2026-11-18T20:10:30Z');
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await consume(store, policy, 'KEY#k', at));
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, true, false]);
    expect(limitHeaders(decisions[2] as (typeof decisions)[number])).toEqual({
      'ratelimit-policy': '"key";q=3;w=60',
      ratelimit: '"key";r=0;t=30',
    });
    expect(limitHeaders(decisions[3] as (typeof decisions)[number])['retry-after']).toBe('30');
    expect((await consume(store, policy, 'KEY#k', at + 30_000)).admitted).toBe(true);
  });

  it('count a batch as many requests: admitted only when all of it fits', async () => {
    const store = memory();
    const at = Date.parse('2026-11-18T20:10:30Z');
    const two = await consume(store, policy, 'MCPIP#a', at, 2);
    expect(two).toMatchObject({ admitted: true, remaining: 1 });
    expect((await consume(store, policy, 'MCPIP#a', at, 2)).admitted).toBe(false);
    expect((await consume(store, policy, 'MCPIP#b', at, 60)).admitted).toBe(false);
    await expect(consume(store, policy, 'MCPIP#c', at, 0)).rejects.toThrow(RangeError);
  });

  it('write several policies in one RateLimit-Policy field', () => {
    expect(policyHeader(policy, { name: 'ip', quota: 120, windowSeconds: 60 })).toBe(
      '"key";q=3;w=60, "ip";q=120;w=60',
    );
  });
});
