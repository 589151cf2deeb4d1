/**
 * The viewer's address, the same for the api function (REST v1 events) and the mcp function
 * (HTTP API v2 events): CloudFront's `CloudFront-Viewer-Address` (`ip:port`, set by CloudFront and
 * by the local edge, overwriting any a client sent; an IPv6 address may come bracketed,
 * `[2001:db8::1]:443`) when the request came through the CDN, else the address the gateway saw.
 */
export function clientIpOf(viewerAddress: string | undefined, sourceIp: string | undefined): string {
  if (viewerAddress) {
    const cut = viewerAddress.lastIndexOf(':');
    const ip = cut > 0 ? viewerAddress.slice(0, cut) : viewerAddress;
    if (ip) return ip.replace(/^\[|\]$/g, '');
  }
  return sourceIp || 'unknown';
}
