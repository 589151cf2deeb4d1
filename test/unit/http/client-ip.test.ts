import { describe, expect, it } from 'vitest';
import { clientIpOf } from '../../../functions/http/client-ip.ts';

describe('clientIpOf (api and mcp functions alike)', () => {
  it.each([
    ['203.0.113.7:443', '198.51.100.1', '203.0.113.7'],
    // CloudFront writes IPv6 viewers unbracketed, the port after the last colon.
    ['2001:db8:85a3::8a2e:370:7334:443', '198.51.100.1', '2001:db8:85a3::8a2e:370:7334'],
    ['[2001:db8::1]:443', '198.51.100.1', '2001:db8::1'],
    ['203.0.113.7', '198.51.100.1', '203.0.113.7'],
    [undefined, '198.51.100.1', '198.51.100.1'],
    ['', '198.51.100.1', '198.51.100.1'],
    [undefined, undefined, 'unknown'],
    [undefined, '', 'unknown'],
  ])('viewer address %j, source %j -> %s', (viewer, source, expected) => {
    expect(clientIpOf(viewer, source)).toBe(expected);
  });
});
