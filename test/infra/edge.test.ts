/**
 * The local edge and the CloudFront Function are the same code: the template's FunctionCode is the
 * file's text, and the file, run in node:vm by infra/edge/load.ts, maps requests as the API needs.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { PORTS } from '../../functions/core/catalogue/catalogue.ts';
import { slugDocumentNames } from '../../functions/core/views/view-paths.ts';
import {
  corsRows,
  type EdgeOutcome,
  loadViewerRequest,
  toCfRequest,
  VIEWER_REQUEST_FILE,
} from '../../infra/edge/load.ts';
import { BorderWaitsStack } from '../../infra/stack.ts';

const source = readFileSync(VIEWER_REQUEST_FILE, 'utf8');
let deployedCode: unknown;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BorderWaitsStack(app, 'Edge', { env: { account: '123456789012', region: 'us-east-1' } });
  const fns = Template.fromStack(stack).findResources('AWS::CloudFront::Function');
  deployedCode = Object.values(fns)[0]?.Properties.FunctionCode;
});

describe('one file, two hosts', () => {
  it('the deployed FunctionCode is the text of infra/edge/viewer-request.js', () => {
    expect(deployedCode).toBe(source);
  });
});

describe('viewer-request outcomes', () => {
  const run = loadViewerRequest();
  const edge = (path: string, headers: Record<string, string> = {}, method = 'GET'): EdgeOutcome =>
    run(toCfRequest(method, new URL(path, 'https://border-waits.test'), headers));

  it.each([
    ['/api/v1/ports', '/v1/ports/all.json'],
    ['/api/v1/ports?border=mx', '/v1/ports/mx.json'],
    ['/api/v1/port-current?include=ports', '/v1/port-current/ports.json'],
    ['/api/v1/port-hourly-averages?port_id=250401', '/v1/port-hourly-averages/250401.json'],
    ['/api/v1/port-forecast?port_id=san-ysidro', '/v1/port-forecast/250401.json'],
    ['/api/v1/port-hourly-averages?port_id=San-Ysidro', '/v1/port-hourly-averages/250401.json'],
    ['/api/v1/port-hourly-averages?port_id=madawaska-l01901', '/v1/port-hourly-averages/l01901.json'],
    // A port outside the catalogue: its slug is its lower-case id.
    ['/api/v1/port-forecast?port_id=999901', '/v1/port-forecast/999901.json'],
    ['/api/v1/port-forecast?port_id=L24501', '/v1/port-forecast/l24501.json'],
    ['/api/v1/port-hourly-averages?port_id=L01901', '/v1/port-hourly-averages/l01901.json'],
    ['/api/v1/forecast-skill', '/v1/forecast-skill.json'],
    ['/api/v1/port-typical-waits?port_id=san-ysidro', '/v1/port-typical-waits/250401.json'],
    ['/api/v1/port-typical-waits?port_id=L24501', '/v1/port-typical-waits/l24501.json'],
  ])('%s -> data object %s', (path, uri) => {
    const out = edge(path);
    expect(out.kind).toBe('request');
    if (out.kind !== 'request') return;
    expect(out.request.uri).toBe(uri);
    expect(out.request.querystring).toEqual({});
    expect(out.originId).toBeNull();
  });

  it.each(PORTS.map((port) => [port.slug, port.id] as const))(
    'the catalogued slug %s reads the documents of port %s, in any case',
    (slug, id) => {
      for (const path of ['port-hourly-averages', 'port-forecast', 'port-typical-waits']) {
        for (const name of [slug, slug.toUpperCase(), id, id.toUpperCase()]) {
          const out = edge(`/api/v1/${path}?port_id=${name}`);
          expect(out.kind === 'request' && out.request.uri).toBe(`/v1/${path}/${id.toLowerCase()}.json`);
        }
      }
    },
  );

  it("the slug table in the file is the catalogue's (else run npm run edge:slugs)", () => {
    const block = /\/\/ BEGIN SLUG_IDS\n([\s\S]*?)\/\/ END SLUG_IDS/.exec(source)?.[1] ?? '';
    const table = vm.runInNewContext(`${block}; SLUG_IDS`) as Record<string, string>;
    expect({ ...table }).toEqual(slugDocumentNames());
  });

  it.each([
    '/api/v1/ports?border=xx',
    '/api/v1/port-hourly-averages',
    '/api/v1/port-forecast',
    '/api/v1/port-forecast?port_id=../x',
    '/api/v1/port-typical-waits',
    // Names Object.prototype has: only the table's own entries count.
    '/api/v1/ports?border=constructor',
    '/api/v1/ports?border=__proto__',
    '/api/v1/ports?border=toString',
    '/api/v1/ports?border=hasOwnProperty',
  ])('%s -> 400 problem+json', (path) => {
    const out = edge(path);
    expect(out.kind).toBe('response');
    if (out.kind !== 'response') return;
    expect(out.response.statusCode).toBe(400);
    expect(out.response.headers?.['content-type']?.value).toBe('application/problem+json');
    expect(JSON.parse(out.response.body ?? '{}')).toMatchObject({ status: 400 });
  });

  it.each([
    ['/api/v1/wait-observations?port_id=1', {}],
    ['/api/v1/ports', { 'x-api-key': 'bw_live_abc' }],
    ['/api/v1/port-hourly-averages?port_id=250401', { 'x-api-key': 'bw_live_abc' }],
    ['/api/v1/port-forecast?port_id=250401', { 'x-api-key': 'bw_live_abc' }],
    ['/api/v1/port-typical-waits?port_id=250401', { 'x-api-key': 'bw_live_abc' }],
    ['/keys/requests', {}, 'POST'],
    ['/push/subscriptions', {}, 'POST'],
    ['/push/subscriptions/abc', {}, 'DELETE'],
    ['/push/vapid-public-key', {}, 'GET'],
  ])('%s %j -> origin api', (path, headers, method = 'GET') => {
    const out = edge(path, headers, method);
    expect(out.kind).toBe('request');
    if (out.kind === 'request') expect(out.originId).toBe('api');
  });

  it('/ stays on the default (site) origin', () => {
    const out = edge('/');
    expect(out.kind).toBe('request');
    if (out.kind !== 'request') return;
    expect(out.originId).toBeNull();
    // The site's directory index may be appended; the origin stays the default one.
    expect(['/', '/index.html']).toContain(out.request.uri);
  });
});

describe('CORS, methods and ranges at the edge', () => {
  const run = loadViewerRequest();
  const edge = (path: string, headers: Record<string, string> = {}, method = 'GET'): EdgeOutcome =>
    run(toCfRequest(method, new URL(path, 'https://border-waits.test'), headers));

  it("the CORS table in the file is the manifest's (else run npm run edge:slugs)", () => {
    const block = /\/\/ BEGIN CORS_ROUTES\n([\s\S]*?)\/\/ END CORS_ROUTES/.exec(source)?.[1] ?? '';
    const table = vm.runInNewContext(`${block}; CORS_ROUTES`) as unknown[];
    expect(JSON.parse(JSON.stringify(table))).toEqual(corsRows());
  });

  it.each([
    ['/api/v1/ports', 'GET, HEAD', ['x-api-key', 'if-none-match']],
    ['/api/v1/wait-observations', 'GET, HEAD', ['x-api-key', 'if-none-match', 'if-modified-since']],
    ['/keys/requests', 'POST', ['content-type']],
    [
      '/mcp',
      'POST',
      ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'],
    ],
    ['/push/subscriptions', 'POST', ['content-type']],
    ['/push/subscriptions/sub_1', 'PUT, DELETE', ['authorization', 'content-type']],
    ['/v1/port-current/all.json', 'GET, HEAD', ['if-none-match']],
    ['/ports/san-ysidro/', 'GET, HEAD', ['if-none-match']],
  ])('a preflight on %s is answered here: %s, and the headers it takes', (path, methods, headers) => {
    const out = edge(
      path,
      { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      'OPTIONS',
    );
    expect(out.kind).toBe('response');
    if (out.kind !== 'response') return;
    const h = (name: string) => out.response.headers?.[name]?.value;
    expect(out.response.statusCode).toBe(204);
    expect(h('access-control-allow-origin')).toBe('*');
    expect(h('access-control-allow-methods')).toBe(methods);
    expect(h('allow')).toBe(methods);
    expect(h('access-control-allow-headers')?.split(', ')).toEqual(expect.arrayContaining(headers));
    expect(Number(h('access-control-max-age'))).toBeGreaterThan(0);
    expect(h('link')).toBe('<https://border-waits.dev/>; rel="author"');
  });

  it.each([
    ['/mcp', 'POST'],
    ['/mcp', 'GET'],
    ['/mcp', 'DELETE'],
    ['/.well-known/oauth-protected-resource/mcp', 'GET'],
  ])('%s %s passes on untouched (the HTTP API behaviour)', (path, method) => {
    const out = edge(path, { authorization: 'Bearer x' }, method);
    expect(out).toMatchObject({ kind: 'request', originId: null, request: { uri: path } });
    if (out.kind === 'request') expect(out.request.headers.authorization?.value).toBe('Bearer x');
  });

  it.each([
    ['/', 'POST', 'GET, HEAD'],
    ['/v1/port-current/all.json', 'PUT', 'GET, HEAD'],
    ['/rss.xml', 'DELETE', 'GET, HEAD'],
    ['/keys/requests', 'GET', 'POST'],
  ])('%s %s -> 405 problem+json with Allow: %s', (path, method, allow) => {
    const out = edge(path, {}, method);
    expect(out.kind).toBe('response');
    if (out.kind !== 'response') return;
    expect(out.response.statusCode).toBe(405);
    expect(out.response.headers?.allow?.value).toBe(allow);
    expect(out.response.headers?.['content-type']?.value).toBe('application/problem+json');
    expect(out.response.headers?.link?.value).toMatch(/rel="author"/);
  });

  it.each([
    ['bytes=0-99', true],
    ['bytes=100-', true],
    ['bytes=-50', true],
    ['bytes=5-2', false],
    ['bytes=-', false],
    ['bytes=0-1,5-9', false],
    ['items=0-1', false],
    ['bytes=abc', false],
    ['', false],
  ])(
    'Range %j on a data document is %s kept (a malformed one is dropped: the whole document, 200)',
    (range, kept) => {
      for (const path of ['/api/v1/ports', '/v1/port-current/all.json']) {
        const out = edge(path, { range });
        expect(out.kind).toBe('request');
        if (out.kind === 'request') expect(out.request.headers.range?.value).toBe(kept ? range : undefined);
      }
    },
  );
});

describe('runtime constraints of cloudfront-js-2.0', () => {
  // Strip comments and string literals so the scan only sees code.
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''");

  it.each([
    ['optional chaining', /\?\./],
    ['nullish coalescing', /\?\?/],
    ['spread or rest', /\.\.\./],
    ['class', /\bclass\s/],
    ['for..of', /\bfor\s*\([^)]*\bof\b/],
    ['object destructuring', /\b(?:const|let|var)\s*\{/],
    ['array destructuring', /\b(?:const|let|var)\s*\[/],
    ['Map or Set', /\bnew\s+(?:Map|Set)\b/],
  ])('no %s', (_name, pattern) => {
    expect(code).not.toMatch(pattern);
  });

  it('the first line imports the cloudfront module, as the 2.0 runtime expects', () => {
    expect(source.split('\n')[0]).toBe("import cf from 'cloudfront';");
  });

  it('is under the 10 KB function size limit', () => {
    expect(Buffer.byteLength(source, 'utf8')).toBeLessThan(10 * 1024);
  });
});
