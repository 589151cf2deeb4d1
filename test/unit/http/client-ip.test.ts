/**
 * One reading of the client's address for the API and MCP limits: CloudFront's viewer address
 * (IPv4 or IPv6, with the source port, IPv6 with or without brackets), keyed per IPv4 address and
 * per IPv6 /64.
 */
import { describe, expect, it } from 'vitest';
import { clientIpKey, clientIpOf, clientKey, viewerAddressIp } from '../../../functions/http/client-ip.ts';

describe('viewerAddressIp', () => {
  it.each([
    ['198.51.100.10:46532', '198.51.100.10'],
    ['2001:db8::1:46532', '2001:db8::1'],
    ['2001:0db8:85a3:0000:0000:8a2e:0370:7334:46532', '2001:0db8:85a3:0000:0000:8a2e:0370:7334'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['::ffff:192.0.2.7:80', '::ffff:192.0.2.7'],
    ['203.0.113.5', '203.0.113.5'],
  ])('%s -> %s', (header, ip) => {
    expect(viewerAddressIp(header)).toBe(ip);
  });

  it.each(['', 'garbage', 'evil.example:443', '[not-an-ip]:1', '999.1.1.1:80'])(
    '%j holds no address',
    (header) => {
      expect(viewerAddressIp(header)).toBeNull();
    },
  );
});

describe('clientKey', () => {
  it('keys IPv4 on the address', () => {
    expect(clientKey('198.51.100.10')).toBe('198.51.100.10');
    expect(clientKey('198.51.100.11')).not.toBe(clientKey('198.51.100.10'));
  });

  it('keys IPv6 on its /64: every address of one /64 shares one allowance', () => {
    const keys = new Set(
      [
        '2001:db8:1:2::1',
        '2001:db8:1:2:ffff:ffff:ffff:ffff',
        '2001:0db8:0001:0002:abcd::9',
        '[2001:db8:1:2::7]',
      ].map(clientKey),
    );
    expect([...keys]).toEqual(['2001:db8:1:2::/64']);
    expect(clientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('keys an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(clientKey('::ffff:198.51.100.10')).toBe('198.51.100.10');
    expect(clientKey('::ffff:c633:640a')).toBe('198.51.100.10');
  });

  it('counts what does not parse together, never under a key the client chose', () => {
    expect(clientKey('x-chosen-by-client')).toBe('unknown');
    expect(clientKey(undefined)).toBe('unknown');
  });
});

describe('clientIpKey', () => {
  it('prefers the viewer header and falls back to the connection address', () => {
    expect(clientIpKey('[2001:db8:9:9::5]:443', '192.0.2.1')).toBe('2001:db8:9:9::/64');
    expect(clientIpKey(undefined, '192.0.2.1')).toBe('192.0.2.1');
  });

  it.each(['garbage', '', ':443', '999.1.1.1:80', '[::g]:1', 'unknown'])(
    'an unparseable viewer header %j counts in the shared unknown bucket, not as the edge address',
    (viewer) => {
      expect(clientIpKey(viewer, '192.0.2.1')).toBe('unknown');
    },
  );
});

describe('clientIpOf (api and mcp functions alike)', () => {
  it.each([
    ['203.0.113.7:443', '198.51.100.1', '203.0.113.7'],
    // CloudFront writes IPv6 viewers unbracketed, the port after the last colon.
    ['2001:db8:85a3::8a2e:370:7334:443', '198.51.100.1', '2001:db8:85a3::8a2e:370:7334'],
    ['[2001:db8::1]:443', '198.51.100.1', '2001:db8::1'],
    ['203.0.113.7', '198.51.100.1', '203.0.113.7'],
    [undefined, '198.51.100.1', '198.51.100.1'],
    ['', '198.51.100.1', 'unknown'],
    ['not an address', '198.51.100.1', 'unknown'],
    [undefined, undefined, 'unknown'],
    [undefined, '', 'unknown'],
  ])('viewer address %j, source %j -> %s', (viewer, source, expected) => {
    expect(clientIpOf(viewer, source)).toBe(expected);
  });
});
