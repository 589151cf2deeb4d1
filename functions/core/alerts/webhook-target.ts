/**
 * Which webhook targets an alert may call (server-side request forgery). Pure policy: the address
 * ranges come from `ipaddr.js`, so every spelling of an address is judged by its value, never by
 * its text. Checked when an alert is created (the URL) and before every delivery attempt (each
 * address the name resolves to; the connection then goes to the address that passed).
 */
import ipaddr from 'ipaddr.js';

/**
 * IPv6 is reachable only in global unicast (2000::/3, RFC 4291). Besides ipaddr.js's named ranges,
 * this leaves out `::/96`, the deprecated IPv4-compatible form (`::7f00:1` is 127.0.0.1), which
 * ipaddr.js calls plain unicast.
 */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** Whether `host` is an IP literal in any spelling ipaddr.js reads (dotted, decimal, octal, hex, IPv6). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Why a webhook may not connect to `address` (an IPv4 or IPv6 literal in any spelling), or null
 * when it is a public unicast address. IPv4 is accepted only in ipaddr.js's `unicast` range (no
 * loopback, private, CGNAT, link-local, unspecified, broadcast, multicast, reserved, test or
 * benchmarking ranges). IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is judged as the
 * IPv4 address it carries. Other IPv6 must be global unicast outside every special-use range,
 * including NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo
 * (`2001::/32`), whose embedded IPv4 addresses could lead anywhere.
 */
export function addressProblem(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(stripBrackets(address));
  } catch {
    return `"${address}" is not an IP address`;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return addressProblem(v6.toIPv4Address().toString());
    const range = v6.range();
    if (range !== 'unicast') return `${v6.toString()} is a ${describe(range)} address`;
    if (!v6.match(IPV6_GLOBAL_UNICAST)) return `${v6.toString()} is not a global unicast address`;
    return null;
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `${parsed.toString()} is a ${describe(range)} address`;
}

function describe(range: string): string {
  const names: Record<string, string> = {
    unspecified: 'unspecified',
    broadcast: 'broadcast',
    multicast: 'multicast',
    linkLocal: 'link-local',
    loopback: 'loopback',
    carrierGradeNat: 'carrier-grade NAT',
    private: 'private',
    reserved: 'reserved',
    uniqueLocal: 'unique-local',
    ipv4Mapped: 'IPv4-mapped',
    rfc6145: 'IPv4-translated',
    rfc6052: 'NAT64',
    '6to4': '6to4',
    teredo: 'Teredo',
  };
  return Object.hasOwn(names, range) ? (names[range] as string) : `special-use (${range})`;
}

/** Host names that never lead to a public service, whatever DNS says. */
function isInternalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return (
    name === 'localhost' ||
    !name.includes('.') ||
    ['.localhost', '.internal', '.local', '.localdomain', '.home.arpa', '.arpa'].some((suffix) =>
      name.endsWith(suffix),
    )
  );
}

/**
 * Why a webhook URL is refused, or null when acceptable: https only, no credentials, and a host
 * that is a public address or a public-looking name (names are resolved and checked again before
 * each delivery). `allowPrivate` (tests only) also admits http and loopback targets.
 */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'webhook_url is not a URL';
  }
  if (url.username || url.password) return 'webhook_url must not carry credentials';
  if (allowPrivate) {
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'webhook_url must be https';
  }
  if (url.protocol !== 'https:') return 'webhook_url must be an https:// URL';
  const host = stripBrackets(url.hostname);
  if (isIpLiteral(host)) {
    const problem = addressProblem(host);
    return problem ? `webhook_url must not be a private or special-use address (${problem})` : null;
  }
  if (isInternalName(host)) return 'webhook_url must be a public host';
  return null;
}
