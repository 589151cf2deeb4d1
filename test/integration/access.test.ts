/**
 * Keys and limits on the local runtime (real dynalite and s3rver, the gateway running the REST
 * authorizer, the edge). The clock is fixed, so every request of a test falls in one window.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/handlers/api.ts';
import { toRestEvent } from '../../infra/local/gateway.ts';
import { TABLES } from '../../infra/manifest.ts';
import { type Contract, withContract } from './contract.ts';
import { issueKey, keyStoreOf, revokeKey } from './keys.ts';
import { startStack, type TestStack } from './stack.ts';

// 20:10:15 UTC: 45 seconds left in the minute window.
const AT = Date.parse('2026-11-18T20:10:15Z');
const VIEW = '/api/v1/port-current?include=ports';

async function problemOf(response: Response, status: number) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await response.json()) as Record<string, unknown>;
}

describe('keyed limits', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await withContract(await startStack({ atMs: AT }));
    await stack.service.ingestNow();
  });
  afterAll(() => stack?.stop());

  it('admits 60 sequential requests with one key and answers the 61st with 429 and Retry-After', async () => {
    const { key } = await issueKey(stack);
    const headers = { 'x-api-key': key };
    for (let i = 1; i <= 60; i += 1) {
      const response = await stack.get(VIEW, { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toBe(`"key";r=${60 - i};t=45`);
      await response.arrayBuffer();
    }
    const refused = await stack.get(VIEW, { headers });
    const body = await problemOf(refused, 429);
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(refused.headers.get('ratelimit-policy')).toBe('"key";q=60;w=60');
    expect(refused.headers.get('ratelimit')).toBe('"key";r=0;t=45');
    expect(body).toMatchObject({ type: 'https://border-waits.dev/problems/rate-limited', status: 429 });
    expect(body['violated-policies']).toEqual(['key']);
    // Other keys and keyless readers are not affected.
    const other = await issueKey(stack, 'Other Account');
    expect((await stack.get(VIEW, { headers: { 'x-api-key': other.key } })).status).toBe(200);
    expect((await stack.get(VIEW)).status).toBe(200);
  });

  it('starts a new window at the next full minute', async () => {
    const { key } = await issueKey(stack);
    const headers = { 'x-api-key': key };
    for (let i = 0; i < 61; i += 1)
      await (await stack.get('/api/v1/ports?border=mx', { headers })).arrayBuffer();
    expect((await stack.get('/api/v1/ports?border=mx', { headers })).status).toBe(429);
    stack.clock.set(AT + 45_000);
    const next = await stack.get('/api/v1/ports?border=mx', { headers });
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit')).toBe('"key";r=59;t=60');
    stack.clock.set(AT);
  });

  it('admits exactly 60 of 200 concurrent requests with one fresh key', async () => {
    const { key } = await issueKey(stack);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const response = await stack.get('/api/v1/wait-observations?port_id=250401&hours=1', {
          headers: { 'x-api-key': key },
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(140);
  });

  it('answers a revoked key with 401, never the public view', async () => {
    const { key, record } = await issueKey(stack);
    expect((await stack.get(VIEW, { headers: { 'x-api-key': key } })).status).toBe(200);
    await revokeKey(stack, record.id);
    const response = await stack.get(VIEW, { headers: { 'x-api-key': key } });
    const body = await problemOf(response, 401);
    expect(body.type).toBe('https://border-waits.dev/problems/invalid-key');
    expect(response.headers.get('ratelimit-policy')).toBeTruthy();
    // Also on the paths the CDN would serve without a key.
    expect((await stack.get('/api/v1/ports', { headers: { 'x-api-key': key } })).status).toBe(401);
  });

  it('answers garbled keys with 401: a typo, a truncated key, another prefix', async () => {
    const { key } = await issueKey(stack);
    const typo = `${key.slice(0, 12)}${key[12] === 'a' ? 'b' : 'a'}${key.slice(13)}`;
    for (const bad of [typo, key.slice(0, -1), key.replace('bw_live_', 'bw_test_'), `${key}x`]) {
      await problemOf(
        await stack.get('/api/v1/wait-observations?port_id=250401', { headers: { 'x-api-key': bad } }),
        401,
      );
    }
  });

  it('checks the key in the api function too when no authorizer verdict reached it', async () => {
    const handler = createApiHandler(
      {
        AWS_ENDPOINT_URL_DYNAMODB: stack.service.endpoints.dynamodb,
        AWS_ENDPOINT_URL_S3: stack.service.endpoints.s3,
      },
      stack.clock,
    );
    const call = (key: string) =>
      handler(
        toRestEvent(
          {
            method: 'GET',
            url: new URL('http://api.local/api/v1/ports'),
            headers: { 'x-api-key': key },
            body: Buffer.alloc(0),
            sourceIp: '203.0.113.9',
          },
          '/api/v1/ports',
          null,
        ),
        {} as never,
      );
    const { key, record } = await issueKey(stack);
    const ok = await call(key);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers?.ratelimit).toMatch(/^"key";r=59;t=\d+$/);
    await revokeKey(stack, record.id);
    for (const bad of [key, 'bw_live_0000000000000000000000000000000000000000', '']) {
      const refused = await call(bad);
      expect(refused.statusCode).toBe(401);
      expect(refused.headers?.['content-type']).toBe('application/problem+json');
      expect(JSON.parse(refused.body).type).toBe('https://border-waits.dev/problems/invalid-key');
    }
  });

  it('keeps no plaintext key in the key table', async () => {
    const issued = await Promise.all([issueKey(stack, 'Scan A'), issueKey(stack, 'Scan B')]);
    const { doc } = keyStoreOf(stack);
    try {
      const scan = await doc.send(new ScanCommand({ TableName: TABLES.keys.name }));
      const text = JSON.stringify(scan.Items);
      expect(scan.Items?.length).toBeGreaterThanOrEqual(2);
      for (const { key, record } of issued) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(key.slice(8, 30));
        expect(text).toContain(`KEY#${record.hash}`);
      }
    } finally {
      doc.destroy();
    }
  });

  it('carries RateLimit-Policy on every response, static ones included', async () => {
    for (const path of [
      '/api/v1/ports',
      '/api/v1/port-hourly-averages?port_id=250401',
      '/api/v1/ports?border=xx',
    ]) {
      const response = await stack.get(path);
      expect(response.headers.get('ratelimit-policy')).toBe('"edge";q=300;w=60');
      expect(response.headers.get('ratelimit')).toMatch(/^"edge";r=\d+;t=45$/);
    }
    const dynamic = await stack.get('/api/v1/wait-observations?port_id=250401');
    expect(dynamic.headers.get('ratelimit-policy')).toBe('"ip";q=120;w=60');
    expect((await stack.get('/api/v1/openapi.json')).headers.get('ratelimit-policy')).toBe('"ip";q=120;w=60');
  });
});

describe('per-IP limits for keyless requests', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await withContract(
      await startStack({
        atMs: AT,
        env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '5', EDGE_RATE_LIMIT_PER_MINUTE: '7' },
      }),
    );
    await stack.service.ingestNow();
  });
  afterAll(() => stack?.stop());

  it('limits keyless dynamic requests per client IP in the service', async () => {
    const path = '/api/v1/wait-observations?port_id=250401';
    // The first of the five was the contract's fetch of /api/v1/openapi.json (also dynamic).
    for (let i = 2; i <= 5; i += 1) {
      const response = await stack.get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toBe(`"ip";r=${5 - i};t=45`);
    }
    const refused = await stack.get(path);
    await problemOf(refused, 429);
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(refused.headers.get('ratelimit-policy')).toBe('"ip";q=5;w=60');
    // A key holder from the same address is counted by key, not by address.
    const { key } = await issueKey(stack);
    expect((await stack.get(path, { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('limits keyless static views per client IP at the edge', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      const response = await stack.get('/api/v1/ports');
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get('retry-after')).toBe('45');
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 429]);
    stack.clock.set(AT + 60_000);
    expect((await stack.get('/api/v1/ports')).status).toBe(200);
    stack.clock.set(AT);
  });
});

describe('POST /keys/requests', () => {
  let stack: TestStack;
  const valid = {
    name: 'Ana Test',
    email: 'ana@example.com',
    organisation: 'Example Freight',
    use: 'Planning truck departures at Laredo.',
    website: '',
  };
  const post = (body: string, type = 'application/json') =>
    stack.get('/keys/requests', { method: 'POST', headers: { 'content-type': type }, body });
  const stored = async () => {
    const { doc, store } = keyStoreOf(stack);
    try {
      return await store.listRequests();
    } finally {
      doc.destroy();
    }
  };

  beforeAll(async () => {
    stack = await withContract(await startStack({ atMs: AT, env: { KEY_REQUESTS_PER_HOUR: '8' } }));
  });
  afterAll(() => stack?.stop());

  it('stores a valid JSON request and answers 202 with its id', async () => {
    const response = await post(JSON.stringify(valid));
    expect(response.status).toBe(202);
    const body = (await response.json()) as { id: string; status: string };
    expect(body).toMatchObject({ id: expect.stringMatching(/^req_/), status: 'pending' });
    expect(response.headers.get('ratelimit-policy')).toBe('"key-requests";q=8;w=3600');
    const requests = await stored();
    expect(requests).toContainEqual(
      expect.objectContaining({ id: body.id, email: valid.email, status: 'pending' }),
    );
  });

  it('accepts the form-encoded body a browser sends without script', async () => {
    const response = await post(
      new URLSearchParams({ ...valid, email: 'form@example.com' }).toString(),
      'application/x-www-form-urlencoded',
    );
    expect(response.status).toBe(202);
    expect((await stored()).map((r) => r.email)).toContain('form@example.com');
  });

  it('refuses invalid fields with 400 naming each one', async () => {
    const before = (await stored()).length;
    const body = await problemOf(
      await post(JSON.stringify({ ...valid, email: 'nope', use: 'short', name: undefined })),
      400,
    );
    const errors = body.errors as { name: string; reason: string }[];
    expect(errors.map((e) => e.name).sort()).toEqual(['email', 'name', 'use']);
    expect(errors.find((e) => e.name === 'name')?.reason).toBe('is required');
    expect((await stored()).length).toBe(before);
  });

  it('refuses control characters in every field with 400 naming each one, and stores nothing', async () => {
    const before = (await stored()).length;
    const body = await problemOf(
      await post(
        JSON.stringify({
          ...valid,
          name: 'Eve\u001b]0;pwned\u0007',
          organisation: 'Evil\u202eCorp',
          email: 'eve\u0085@example.com',
          use: 'Planning departures\u001b[2J at Laredo.',
        }),
      ),
      400,
    );
    const errors = body.errors as { name: string; reason: string }[];
    expect(errors.map((e) => e.name).sort()).toEqual(['email', 'name', 'organisation', 'use']);
    for (const error of errors) expect(error.reason).toBe('must not contain control characters');
    expect((await stored()).length).toBe(before);
    // Line breaks and tabs in the free text are fine.
    const ok = await post(
      JSON.stringify({ ...valid, email: 'lines@example.com', use: 'Line one\nline\ttwo, Laredo.' }),
    );
    expect(ok.status).toBe(202);
  });

  it('refuses a filled honeypot as automated and stores nothing', async () => {
    const before = await stored();
    const body = await problemOf(
      await post(JSON.stringify({ ...valid, email: 'bot@example.com', website: 'http://spam.example' })),
      400,
    );
    expect(body.errors).toEqual([{ name: 'website', reason: 'must be empty' }]);
    const after = await stored();
    expect(after).toHaveLength(before.length);
    expect(after.map((r) => r.email)).not.toContain('bot@example.com');
  });

  it('refuses other media types, bad JSON and other methods', async () => {
    await problemOf(await post('name=x', 'text/plain'), 415);
    await problemOf(await post('{not json'), 400);
    const get = await stack.get('/keys/requests');
    expect(get.headers.get('allow')).toBe('POST');
    await problemOf(get, 405);
  });

  it('limits requests per client IP', async () => {
    // Eight this hour so far (the limit): the next is refused, and not stored.
    const before = (await stored()).length;
    const refused = await post(JSON.stringify({ ...valid, email: 'late@example.com' }));
    await problemOf(refused, 429);
    expect(Number(refused.headers.get('retry-after'))).toBe(3600 - (10 * 60 + 15));
    expect((await stored()).length).toBe(before);
  });
});

describe('when a store fails', () => {
  let stack: TestStack & { contract: Contract };
  beforeAll(async () => {
    // The api function is pointed at a counter table that does not exist: every UpdateItem fails.
    stack = await withContract(await startStack({ atMs: AT, env: { TABLE_LIMITS: 'no-such-limits' } }));
    await stack.service.ingestNow();
  });
  afterAll(() => stack?.stop());

  it('keeps answering when the counters cannot be reached, with the policy and no RateLimit', async () => {
    const { key } = await issueKey(stack);
    for (const headers of [{}, { 'x-api-key': key }] as Record<string, string>[]) {
      const response = await stack.get('/api/v1/wait-observations?port_id=250401', { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toMatch(/^"(ip|key)";q=\d+;w=60$/);
      expect(response.headers.get('ratelimit')).toBeNull();
    }
    expect(stack.logs.join('\n')).not.toContain('api unhandled');
  });

  it('answers 503 with Retry-After, not 401 or 500, when a key cannot be checked', async () => {
    const handler = createApiHandler(
      {
        AWS_ENDPOINT_URL_DYNAMODB: stack.service.endpoints.dynamodb,
        AWS_ENDPOINT_URL_S3: stack.service.endpoints.s3,
        TABLE_KEYS: 'no-such-keys',
      },
      stack.clock,
    );
    const { key } = await issueKey(stack);
    const result = await handler(
      toRestEvent(
        {
          method: 'GET',
          url: new URL('http://api.local/api/v1/ports'),
          headers: { 'x-api-key': key },
          body: Buffer.alloc(0),
          sourceIp: '203.0.113.9',
        },
        '/api/v1/ports',
        null,
      ),
      {} as never,
    );
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['retry-after']).toBe('5');
    expect(JSON.parse(result.body)).toMatchObject({
      status: 503,
      type: 'https://border-waits.dev/problems/unavailable',
    });
    stack.contract.check({
      method: 'GET',
      path: '/api/v1/ports',
      status: result.statusCode,
      headers: new Headers(result.headers as Record<string, string>),
      body: result.body,
    });
  });
});
