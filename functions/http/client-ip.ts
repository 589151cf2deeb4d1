/**
 * The one reading of "who is the client" for the API and MCP. Behind CloudFront the viewer is in
 * `CloudFront-Viewer-Address` (`198.51.100.10:46532`, or `2001:db8::1:46532` for IPv6: the
 * address, a colon and the source port); the origin only trusts it because both APIs refuse any
 * request that lacks the CDN's secret origin header (functions/http/origin-verify.ts), so a
 * client cannot reach a handler with a header of its own choosing. Without the header (a direct
 * call in tests) the connection's source address counts.
 *
 * Limits key on the address, but an IPv6 client usually holds a whole /64 and can pick a new
 * address in it per request: IPv6 addresses are keyed on their /64, IPv4-mapped ones as IPv4.
 */
import ipaddr from 'ipaddr.js';

/** The IP address in a `CloudFront-Viewer-Address` value, or null when it holds none. */
export function viewerAddressIp(value: string | undefined | null): string | null {
  if (!value) return null;
  const text = value.trim();
  let candidate: string;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed?.[1]) candidate = bracketed[1];
  else {
    const cut = text.lastIndexOf(':');
    // CloudFront always appends the port; a bare address (no port) is taken as is.
    candidate = cut > 0 && /^\d{1,5}$/.test(text.slice(cut + 1)) ? text.slice(0, cut) : text;
    if (!ipaddr.isValid(candidate) && ipaddr.isValid(text)) candidate = text;
  }
  return ipaddr.isValid(candidate) ? candidate : null;
}

/**
 * The key a client is counted under: an IPv4 address as such, an IPv6 address as its /64
 * (`2001:db8:1:2::/64`), an IPv4-mapped IPv6 address as the IPv4 address. Anything that does not
 * parse is counted as `unknown` (all together), never as a key the client chose.
 */
export function clientKey(ip: string | undefined | null): string {
  if (!ip) return 'unknown';
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return 'unknown';
  }
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = [...v6.parts.slice(0, 4), 0, 0, 0, 0];
  return `${new ipaddr.IPv6(parts).toString()}/64`;
}

/**
 * The client's key from the viewer header when present, else from the connection's address. A
 * header that is present but holds no address counts as `unknown`, with every other such request:
 * behind CloudFront the connection's address is the edge's, shared by every viewer it serves.
 */
export function clientIpKey(viewerAddress: string | undefined | null, sourceIp: string | undefined): string {
  if (viewerAddress !== undefined && viewerAddress !== null) return clientKey(viewerAddressIp(viewerAddress));
  return clientKey(sourceIp ?? null);
}

/**
 * The viewer's address itself (not its limit key), the same for the api function (REST v1 events)
 * and the mcp function (HTTP API v2 events): from `CloudFront-Viewer-Address` when present, else
 * the address the gateway saw.
 */
export function clientIpOf(viewerAddress: string | undefined, sourceIp: string | undefined): string {
  if (viewerAddress !== undefined) return viewerAddressIp(viewerAddress) ?? 'unknown';
  return sourceIp || 'unknown';
}
