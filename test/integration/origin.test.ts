/**
 * Only the CDN may vouch for the viewer's address. The local runtime has an origin (API Gateway's
 * execute-api URLs) behind its edge: a request sent there directly lacks the edge's secret origin
 * header and is refused by the authorizers before any handler runs, whatever
 * `CloudFront-Viewer-Address` it forges; through the edge, a forged address is overwritten on every
 * path, `/mcp` included.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN_VERIFY_HEADER } from '../../functions/http/origin-verify.ts';
import { SECRETS } from '../../infra/manifest.ts';
import { issueKey } from './keys.ts';
import { rpcRequest } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

// 20:10:15 UTC: every request of a test falls in one minute window.
const AT = Date.parse('2026-11-18T20:10:15Z');
const OBSERVATIONS = '/api/v1/wait-observations?port_id=250401&hours=1';
const forged = (i: number) => ({ 'cloudfront-viewer-address': `198.51.100.${i}:443` });
const toolCall = (headers: Record<string, string> = {}) =>
  rpcRequest(
    '2025-11-25',
    'tools/call',
    { name: 'search_crossings', arguments: { query: 'laredo' } },
    { headers },
  );

describe('the origin refuses what did not come through the edge', () => {
  let stack: TestStack;
  let secret: string;
  beforeAll(async () => {
    stack = await startStack({
      atMs: AT,
      env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '3', MCP_RATE_LIMIT_PER_MINUTE: '3' },
    });
    await stack.service.ingestNow();
    secret = (await readFile(join(stack.service.dataDir, SECRETS.originVerify.name), 'utf8')).trim();
  });
  afterAll(() => stack?.stop());

  it('a direct API request with a forged viewer address is 403 problem+json, and is not counted', async () => {
    for (let i = 1; i <= 5; i += 1) {
      const response = await fetch(`${stack.service.originUrl}${OBSERVATIONS}`, { headers: forged(i) });
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = await response.json();
      expect(body).toMatchObject({ type: 'https://border-waits.dev/problems/access-denied' });
      // A gateway response names no `instance`: `$context.path` would carry the stage.
      expect(body).not.toHaveProperty('instance');
    }
    // The api function never ran: this client's allowance is whole.
    const through = await stack.get(OBSERVATIONS);
    expect(through.status).toBe(200);
    expect(through.headers.get('ratelimit')).toMatch(/^"ip";r=2;/);
  });

  it('a direct request with a wrong secret is refused too; the right one is admitted (the reason is the secret)', async () => {
    const wrong = await fetch(`${stack.service.originUrl}/api/v1/ports`, {
      headers: { [ORIGIN_VERIFY_HEADER]: `${secret}x` },
    });
    expect(wrong.status).toBe(403);
    const right = await fetch(`${stack.service.originUrl}/api/v1/ports`, {
      headers: { [ORIGIN_VERIFY_HEADER]: secret },
    });
    expect(right.status).toBe(200);
  });

  it('a direct /mcp request is 401 without the header and 403 with a wrong one, before the mcp function', async () => {
    const missing = await fetch(`${stack.service.originUrl}/mcp`, toolCall(forged(7)));
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ message: 'Unauthorized' });
    const wrong = await fetch(
      `${stack.service.originUrl}/mcp`,
      toolCall({ [ORIGIN_VERIFY_HEADER]: 'guess' }),
    );
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ message: 'Forbidden' });
    const right = await fetch(`${stack.service.originUrl}/mcp`, toolCall({ [ORIGIN_VERIFY_HEADER]: secret }));
    expect(right.status).toBe(200);
    await right.arrayBuffer();
  });

  it('through the edge, a forged viewer address on /mcp is overwritten: three calls, then 429', async () => {
    stack.clock.set(AT + 60_000); // a fresh window
    const statuses: number[] = [];
    for (let i = 10; i < 14; i += 1) {
      const response = await fetch(stack.service.mcpUrl, toolCall(forged(i)));
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('through the edge, a forged viewer address on the API is overwritten as well', async () => {
    stack.clock.set(AT + 120_000); // a fresh window
    const statuses: number[] = [];
    for (let i = 20; i < 24; i += 1) {
      const response = await stack.get(OBSERVATIONS, { headers: forged(i) });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('a client cannot bring its own origin header through the edge', async () => {
    const response = await stack.get('/api/v1/openapi.json', { headers: { [ORIGIN_VERIFY_HEADER]: 'mine' } });
    expect(response.status).not.toBe(403);
    await response.arrayBuffer();
  });

  it('during a rotation the previous value still works, and a value never issued does not', async () => {
    stack.clock.set(AT + 180_000); // a fresh window
    const file = join(stack.service.dataDir, SECRETS.originVerify.name);
    const next = 'rotated-origin-secret-of-at-least-32-chars';
    await writeFile(`${file}.previous`, secret);
    await writeFile(file, next);
    try {
      for (const [value, status] of [
        [secret, 200],
        [next, 200],
        ['never-issued', 403],
      ] as const) {
        const response = await fetch(`${stack.service.originUrl}/api/v1/openapi.json`, {
          headers: { [ORIGIN_VERIFY_HEADER]: value },
        });
        expect(response.status, value).toBe(status);
        await response.arrayBuffer();
      }
      // The edge sends the new value at once.
      expect((await stack.get('/api/v1/openapi.json')).status).toBe(200);
    } finally {
      await writeFile(file, secret);
      await writeFile(`${file}.previous`, '');
    }
  });
});

describe('a key store outage behind the authorizer', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // The authorizer's key lookups go to a table that does not exist.
    stack = await startStack({ atMs: AT, env: { TABLE_KEYS: 'no-such-keys' } });
    await stack.service.ingestNow();
  });
  afterAll(() => stack?.stop());

  it('answers a keyed request 503 problem+json with Retry-After, not 500', async () => {
    const { key } = await issueKey(stack);
    for (const path of ['/api/v1/ports', OBSERVATIONS]) {
      const response = await stack.get(path, { headers: { 'x-api-key': key } });
      expect(response.status, path).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await response.json()).toMatchObject({
        status: 503,
        type: 'https://border-waits.dev/problems/unavailable',
      });
    }
  });

  it('keeps serving keyless readers', async () => {
    expect((await stack.get(OBSERVATIONS)).status).toBe(200);
    expect((await stack.get('/api/v1/ports')).status).toBe(200);
  });
});
