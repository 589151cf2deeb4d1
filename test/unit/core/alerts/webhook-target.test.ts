import { describe, expect, it } from 'vitest';
import { addressProblem, webhookUrlProblem } from '../../../../functions/core/alerts/webhook-target.ts';

// Every spelling of a refused address, with the range it must be recognised as.
const REFUSED: [string, RegExp][] = [
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['2130706433', /loopback/], // decimal
  ['0177.0.0.1', /loopback/], // octal
  ['0x7f.0.0.1', /loopback/], // hex
  ['127.1', /loopback/], // short form
  ['0.0.0.0', /unspecified/],
  ['0', /unspecified/],
  ['10.1.2.3', /private/],
  ['172.16.0.1', /private/],
  ['192.168.1.1', /private/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['169.254.169.254', /link-local/], // the metadata service
  ['0251.0376.0251.0376', /link-local/], // the metadata service in octal
  ['2852039166', /link-local/], // the metadata service in decimal
  ['224.0.0.1', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['192.0.2.1', /reserved/],
  ['198.18.0.1', /reserved/],
  ['240.0.0.1', /reserved/],
  ['::1', /loopback/],
  ['::', /unspecified/],
  ['::ffff:127.0.0.1', /loopback/], // IPv4-mapped, dotted
  ['::ffff:7f00:1', /loopback/], // IPv4-mapped, hex (what new URL() writes)
  ['::ffff:a9fe:a9fe', /link-local/], // the metadata address, mapped
  ['::ffff:10.0.0.1', /private/],
  ['::ffff:0:7f00:1', /IPv4-translated/],
  ['::7f00:1', /global unicast/], // IPv4-compatible (deprecated ::/96)
  ['::127.0.0.1', /loopback|global unicast/],
  ['64:ff9b::7f00:1', /NAT64/],
  ['64:ff9b::a9fe:a9fe', /NAT64/],
  ['64:ff9b:1::1', /NAT64/],
  ['2002:7f00:1::', /6to4/],
  ['2002:a9fe:a9fe::1', /6to4/],
  ['2001::1', /Teredo|reserved|special/],
  ['2001:db8::1', /reserved/],
  ['fc00::1', /unique-local/],
  ['fd12:3456::1', /unique-local/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['fec0::1', /special-use/],
  ['ff02::1', /multicast/],
  ['100::1', /special-use/],
];

const ACCEPTED = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e'];

describe('webhook target addresses', () => {
  it.each(REFUSED)('refuses %s', (address, range) => {
    expect(addressProblem(address)).toMatch(range);
  });

  it.each(ACCEPTED)('accepts the public address %s', (address) => {
    expect(addressProblem(address)).toBeNull();
  });

  it('says when the text is not an address at all', () => {
    expect(addressProblem('hooks.example.com')).toMatch(/not an IP address/);
  });
});

describe('webhook URLs', () => {
  it.each([
    ['https://[::ffff:127.0.0.1]/x', /loopback/],
    ['https://[::ffff:7f00:1]/x', /loopback/],
    ['https://[::ffff:a9fe:a9fe]/latest/meta-data', /link-local/],
    ['https://[64:ff9b::7f00:1]/x', /NAT64/],
    ['https://[2002:7f00:1::]/x', /6to4/],
    ['https://[::7f00:1]/x', /global unicast/],
    ['https://2130706433/x', /loopback/],
    ['https://0177.0.0.1/x', /loopback/],
    ['https://0x7f.1/x', /loopback/],
    ['https://0.0.0.0/x', /unspecified/],
    ['https://[fd00::1]/x', /unique-local/],
    ['https://[fe80::1]/x', /link-local/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://10.1.2.3/x', /private/],
    ['https://localhost/x', /public host/],
    ['https://metadata.google.internal/x', /public host/],
    ['https://printer.local/x', /public host/],
    ['https://intranet/x', /public host/],
    ['http://hooks.example.com/x', /https/],
    ['ftp://hooks.example.com/x', /https/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['not a url', /not a URL/],
  ])('refuses %s', (url, problem) => {
    expect(webhookUrlProblem(url, false)).toMatch(problem);
  });

  it.each(['https://hooks.example.com/x', 'https://8.8.8.8/x', 'https://[2606:4700:4700::1111]:8443/x'])(
    'accepts %s',
    (url) => {
      expect(webhookUrlProblem(url, false)).toBeNull();
    },
  );

  it('admits loopback over http only with the test-only setting', () => {
    expect(webhookUrlProblem('http://127.0.0.1:9/x', true)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:9/x', false)).toMatch(/https/);
  });
});
