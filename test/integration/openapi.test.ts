/**
 * The OpenAPI document: generated from the handlers' zod schemas, lint-clean for `@redocly/cli`,
 * covering every route of the manifest; and property-based fuzzing of every query parameter and
 * request header against the running stack: never a 5xx, every answer as the document says.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VIEWS } from '../../functions/core/api/api-views.ts';
import { KEY_REQUESTS_PATH } from '../../functions/core/views/view-paths.ts';
import { ROUTES } from '../../infra/manifest.ts';
import { type Contract, withContract } from './contract.ts';
import { issueKey, revokeKey } from './keys.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T20:10:15Z');
const require = createRequire(import.meta.url);
const REDOCLY = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

type Json = Record<string, unknown>;

let stack: TestStack & { contract: Contract };
let validKey = '';
let revokedKey = '';

beforeAll(async () => {
  stack = await withContract(
    await startStack({
      atMs: AT,
      env: {
        PUBLIC_RATE_LIMIT_PER_MINUTE: '100000',
        EDGE_RATE_LIMIT_PER_MINUTE: '100000',
        KEY_REQUESTS_PER_HOUR: '100000',
      },
    }),
  );
  await stack.service.ingestNow();
  validKey = (await issueKey(stack)).key;
  const revoked = await issueKey(stack);
  revokedKey = revoked.key;
  await revokeKey(stack, revoked.record.id);
});
afterAll(() => stack?.stop());

describe('the OpenAPI document', () => {
  it('is served as OpenAPI 3.1 with the key scheme, keyless and keyed alike', async () => {
    const keyless = await stack.json<Json>('/api/v1/openapi.json');
    expect(keyless.status).toBe(200);
    expect(keyless.body.openapi).toMatch(/^3\.1\./);
    expect((keyless.body.components as Json).securitySchemes).toEqual({
      ApiKeyAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      // The delete and renewal token of a push alert.
      PushToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    const keyed = await stack.json<Json>('/api/v1/openapi.json', { headers: { 'x-api-key': validKey } });
    expect(keyed.body).toEqual(keyless.body);
  });

  it('passes @redocly/cli lint with no errors or warnings', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(stack.contract.document, null, 2));
      const result = spawnSync(process.execPath, [REDOCLY, 'lint', file], {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
      const output = `${result.stdout}${result.stderr}`;
      expect(output).toContain('Your API description is valid');
      expect(output).not.toMatch(/You have \d+ warnings?/);
      expect(result.status).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('describes every route of the manifest and every query parameter of the zod schemas', () => {
    const paths = stack.contract.document.paths as Record<
      string,
      Record<string, { parameters?: { name: string }[] }>
    >;
    for (const route of ROUTES.filter((r) => !r.path.includes('{')))
      expect(Object.keys(paths)).toContain(route.path);
    for (const { path, query } of Object.values(API_VIEWS)) {
      expect(paths[path]?.get?.parameters?.map((p) => p.name).sort()).toEqual(
        Object.keys(query.shape).sort(),
      );
    }
  });

  it('documents every error status and the limit and caching headers', () => {
    const operation = (stack.contract.document.paths as Record<string, Record<string, Json>>)[
      '/api/v1/wait-observations'
    ]?.get;
    const responses = operation?.responses as Record<string, Json>;
    for (const status of ['200', '304', '400', '401', '404', '429', '500', '502', '503'])
      expect(responses).toHaveProperty(status);
    expect(Object.keys(responses['200']?.headers as Json).sort()).toEqual(
      ['Cache-Control', 'ETag', 'Last-Modified', 'Link', 'RateLimit', 'RateLimit-Policy'].sort(),
    );
    const rateLimited = (stack.contract.document.components as { responses: Record<string, Json> }).responses
      .RateLimited;
    expect(Object.keys(rateLimited?.headers as Json)).toContain('Retry-After');
  });

  it('catches a body that breaks it', () => {
    expect(() =>
      stack.contract.check({
        method: 'GET',
        path: '/api/v1/ports',
        status: 200,
        headers: new Headers({ 'content-type': 'application/json', 'ratelimit-policy': '"ip";q=1;w=60' }),
        body: JSON.stringify({ generatedAt: 'yesterday', count: -1, ports: 'none' }),
      }),
    ).toThrow(/breaks the OpenAPI document/);
  });
});

describe('fuzzing every query parameter, header and method', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
    fc.constantFrom(
      '',
      '0',
      '-1',
      '1.5',
      '336',
      '337',
      '99999999999',
      'mx',
      'ca',
      'ports',
      '250401',
      'san-ysidro',
      'into-us',
      'sentri',
      '%00',
      '../x',
      'null',
    ),
  );
  // Header values must be visible ASCII (fetch refuses the rest, as any HTTP client would).
  const headerText = fc.oneof(
    fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 60,
    }),
    fc.constantFrom('*', '"abc"', 'W/"x"', 'Wed, 18 Nov 2026 20:00:00 GMT', 'application/json', '1.2.3.4:5'),
  );
  const PARAMETERS = ['border', 'include', 'port_id', 'hours', 'direction', 'mode', 'lane', 'utm_source'];
  const PATHS = [
    '/api/v1/ports',
    '/api/v1/port-current',
    '/api/v1/port-hourly-averages',
    '/api/v1/wait-observations',
    '/api/v1/port-forecast',
    '/api/v1/forecast-skill',
    '/api/v1/port-typical-waits',
    '/api/v1/openapi.json',
    '/api/v1/no-such-view',
    KEY_REQUESTS_PATH,
  ];
  const request = fc.record({
    path: fc.constantFrom(...PATHS),
    method: fc.constantFrom(
      'GET',
      'GET',
      'GET',
      'HEAD',
      'OPTIONS',
      'OPTIONS',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
    ),
    query: fc.array(fc.tuple(fc.constantFrom(...PARAMETERS), text), { maxLength: 4 }),
    key: fc.oneof(fc.constant<string | null>(null), fc.constant('valid'), fc.constant('revoked'), headerText),
    headers: fc.dictionary(
      fc.constantFrom(
        'if-none-match',
        'if-modified-since',
        'accept',
        'accept-encoding',
        'content-type',
        'cloudfront-viewer-address',
        'x-forwarded-for',
        'origin',
        'access-control-request-method',
        'access-control-request-headers',
        'range',
      ),
      headerText,
      { maxKeys: 3 },
    ),
  });

  it('never answers 5xx, and every answer matches the document', async () => {
    let seen = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const params = new URLSearchParams();
        for (const [name, value] of r.query) params.append(name, value);
        const headers: Record<string, string> = { ...r.headers };
        if (r.key !== null)
          headers['x-api-key'] = r.key === 'valid' ? validKey : r.key === 'revoked' ? revokedKey : r.key;
        const query = params.toString();
        const response = await stack.get(`${r.path}${query ? `?${query}` : ''}`, {
          method: r.method,
          headers,
        });
        await response.arrayBuffer();
        seen += 1;
        const where = `${r.method} ${r.path}`;
        expect(response.status, where).toBeLessThan(500);
        // Every answer, errors and preflights included, names the author and is readable cross-origin.
        expect(response.headers.get('link'), where).toContain('rel="author"');
        expect(response.headers.get('access-control-allow-origin'), where).toBe('*');
        const takes = r.path === KEY_REQUESTS_PATH ? 'POST' : 'GET, HEAD';
        if (r.method === 'OPTIONS') {
          expect(response.status, where).toBe(204);
          expect(response.headers.get('access-control-allow-methods'), where).toBe(takes);
          expect(response.headers.get('allow'), where).toBe(takes);
        } else if (!takes.split(', ').includes(r.method)) {
          expect(response.status, where).toBe(405);
          expect(response.headers.get('allow'), where).toBe(takes);
        }
      }),
      { numRuns: 300 },
    );
    expect(seen).toBe(300);
  });

  it('never answers 5xx to key requests, whatever the body', async () => {
    const field = fc.oneof(text, fc.integer(), fc.constant(null), fc.array(text, { maxLength: 2 }));
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          type: fc.constantFrom(
            'application/json',
            'application/x-www-form-urlencoded',
            'text/plain',
            'application/json; charset=utf-8',
          ),
          fields: fc.dictionary(
            fc.constantFrom('name', 'email', 'organisation', 'use', 'website', 'extra'),
            field,
            { maxKeys: 6 },
          ),
          raw: fc.option(fc.string({ maxLength: 40 })),
        }),
        async ({ type, fields, raw }) => {
          const body =
            raw ??
            (type.includes('json')
              ? JSON.stringify(fields)
              : new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString());
          const response = await stack.get('/keys/requests', {
            method: 'POST',
            headers: { 'content-type': type },
            body,
          });
          await response.arrayBuffer();
          expect(response.status).toBeLessThan(500);
          expect([202, 400, 415]).toContain(response.status);
        },
      ),
      { numRuns: 80 },
    );
  });
});
