/**
 * A document's body is its payload with `generatedAt` first, byte for byte what serialising
 * `{ generatedAt, ...payload }` gives, and its hash ignores `generatedAt`.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildDocument } from '../../../../functions/core/views/views.ts';

const AT = '2026-11-27T14:00:00.000Z';

class WithToJson {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
  toJSON() {
    return { wrapped: this.value };
  }
}

describe('buildDocument', () => {
  it.each<[string, object]>([
    ['a plain object', { portId: '250401', lanes: [{ delayMinutes: 12, low: 8.5 }], note: 'a "quoted" é' }],
    ['an empty object', {}],
    ['fields set to undefined', { a: undefined, b: 1, c: undefined }],
    ['array-index keys, which JSON puts first', { b: 1, 10: 'ten', 2: 'two' }],
    ['its own generatedAt', { count: 1, generatedAt: 'stale' }],
    ['a toJSON of its own', new WithToJson(3)],
    ['a key that looks like a number but is no index', { '01': 1, '-1': 2, '1.5': 3 }],
  ])('%s: the body is the stamped payload, the hash that of the payload alone', (_name, payload) => {
    const built = buildDocument('k', 'max-age=60', payload, AT);
    expect(built.body).toBe(JSON.stringify({ generatedAt: AT, ...payload }));
    expect(built.contentHash).toBe(createHash('sha256').update(JSON.stringify(payload)).digest('hex'));
  });

  it.each<[string, unknown]>([
    ['an array', [1, 2]],
    ['a string', 'text'],
    ['null', null],
  ])('%s is not stamped', (_name, payload) => {
    expect(buildDocument('k', 'max-age=60', payload, AT).body).toBe(JSON.stringify(payload));
  });

  it('without generatedAt the body is the payload JSON', () => {
    expect(buildDocument('k', 'max-age=60', { a: 1 }).body).toBe('{"a":1}');
  });
});
