/**
 * What the local edge adds as CloudFront's behaviours do: the security headers on every answer
 * (site pages, published documents, the APIs, MCP, errors), with the site's Content-Security-Policy
 * on the site and a policy that lets nothing run on everything else. And the per-/64 counting that
 * stands behind the WAF's per-address rule: every address of one IPv6 /64 shares one allowance on
 * the paths the service counts (the API and MCP), as the CDN would send them to the origin.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN_VERIFY_HEADER } from '../../functions/http/origin-verify.ts';
import { SECRETS } from '../../infra/manifest.ts';
import { DOCUMENT_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../../infra/security-headers.ts';
import { rpcRequest } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

// 20:10:15 UTC: every request of a test falls in one minute window.
const AT = Date.parse('2026-11-18T20:10:15Z');

describe('security headers at the local edge', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ atMs: AT, ports: ['250401'] });
    await stack.service.ingestNow();
  }, 60_000);
  afterAll(() => stack?.stop());

  it.each([
    ['GET', '/api/v1/ports', 200],
    ['GET', '/api/v1/ports?border=xx', 400],
    ['GET', '/v1/feed-health.json', 200],
    ['GET', '/rss.xml', 200],
    ['GET', '/v1/nope.json', 404],
    ['GET', '/api/v1/wait-observations?port_id=250401&hours=1', 200],
    ['GET', '/api/v1/openapi.json', 200],
    ['GET', '/api/v1/nope', 404],
    ['POST', '/keys/requests', 400],
    ['GET', '/.well-known/oauth-protected-resource/mcp', 200],
    ['GET', '/mcp', 405],
    ['GET', '/push/vapid-public-key', 200],
  ])(
    '%s %s (%i): the security headers, and a policy that lets nothing run or frame',
    async (method, path, status) => {
      const response = await stack.get(path, {
        method,
        ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      });
      await response.arrayBuffer();
      expect(response.status).toBe(status);
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect(response.headers.get(name), name).toBe(value);
      expect(response.headers.get('content-security-policy')).toBe(DOCUMENT_CONTENT_SECURITY_POLICY);
    },
  );

  it('an MCP call answers with them too', async () => {
    const response = await fetch(
      stack.service.mcpUrl,
      rpcRequest('2025-11-25', 'tools/call', {
        name: 'search_crossings',
        arguments: { query: 'san ysidro' },
      }),
    );
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    expect(response.headers.get('strict-transport-security')).toBe(
      SECURITY_HEADERS['strict-transport-security'],
    );
    expect(response.headers.get('content-security-policy')).toBe(DOCUMENT_CONTENT_SECURITY_POLICY);
  });

  it("site paths carry the site's policy: scripts from the site and its hashed inline scripts only", async () => {
    const response = await stack.get('/no-such-page/');
    await response.arrayBuffer();
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/^default-src 'self'; script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*;/);
    expect(policy).not.toMatch(/script-src[^;]*unsafe/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the service counts IPv6 clients per /64 (what the WAF cannot)', () => {
  let stack: TestStack;
  let secret: string;
  beforeAll(async () => {
    stack = await startStack({
      atMs: AT,
      ports: ['250401'],
      env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '4', MCP_RATE_LIMIT_PER_MINUTE: '4' },
    });
    await stack.service.ingestNow();
    secret = (await readFile(join(stack.service.dataDir, SECRETS.originVerify.name), 'utf8')).trim();
  }, 60_000);
  afterAll(() => stack?.stop());

  /** As CloudFront sends a request from `address` (the origin secret, the viewer's address). */
  const fromViewer = (address: string) => ({
    [ORIGIN_VERIFY_HEADER]: secret,
    'cloudfront-viewer-address': `[${address}]:443`,
  });
  const inOne64 = (i: number) => `2001:db8:1:2:${(i * 7919).toString(16)}:${i.toString(16)}:ab:${i}`;

  it('the API: four addresses of one /64 use its allowance, a fifth is refused, another /64 is not', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i += 1) {
      const response = await fetch(
        `${stack.service.originUrl}/api/v1/wait-observations?port_id=250401&hours=1`,
        {
          headers: fromViewer(inOne64(i)),
        },
      );
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const other = await fetch(`${stack.service.originUrl}/api/v1/wait-observations?port_id=250401&hours=1`, {
      headers: fromViewer('2001:db8:1:3::1'),
    });
    await other.arrayBuffer();
    expect(other.status).toBe(200);
  });

  it('MCP: the same, per tool call', async () => {
    stack.clock.set(AT + 60_000);
    const call = (address: string) =>
      fetch(
        `${stack.service.originUrl}/mcp`,
        rpcRequest(
          '2025-11-25',
          'tools/call',
          { name: 'search_crossings', arguments: { query: 'tijuana' } },
          { headers: fromViewer(address) },
        ),
      );
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i += 1) {
      const response = await call(inOne64(i + 10));
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const other = await call('2001:db8:1:3::2');
    await other.arrayBuffer();
    expect(other.status).toBe(200);
  });
});
