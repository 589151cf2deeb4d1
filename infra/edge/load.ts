/**
 * Loads the CloudFront Function file in `node:vm` so the local edge runs the very code CloudFront
 * runs. Line 1 (`import cf from 'cloudfront'`) becomes a binding to a stub of the runtime module;
 * code generation from strings is off, as at the edge.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { CORS_ROUTES } from '../manifest.ts';

export const VIEWER_REQUEST_FILE = new URL('./viewer-request.js', import.meta.url).pathname;

/** The manifest's CORS rows as the function holds them: `[path, "GET, HEAD", "x-api-key, ..."]`. */
export function corsRows(): [string, string, string][] {
  return CORS_ROUTES.map((route) => [route.path, route.methods.join(', '), route.requestHeaders.join(', ')]);
}

export interface CfValue {
  value: string;
  multiValue?: { value: string }[];
}

export interface CfRequest {
  method: string;
  uri: string;
  querystring: Record<string, CfValue>;
  headers: Record<string, CfValue>;
  cookies: Record<string, CfValue>;
}

export interface CfResponse {
  statusCode: number;
  statusDescription?: string;
  headers?: Record<string, { value: string }>;
  body?: string;
}

export type EdgeOutcome =
  | { kind: 'request'; request: CfRequest; originId: string | null }
  | { kind: 'response'; response: CfResponse };

/** The CloudFront event's request object for a URL, method and headers. */
export function toCfRequest(
  method: string,
  url: URL,
  headers: Record<string, string | string[] | undefined>,
): CfRequest {
  const querystring: Record<string, CfValue> = {};
  for (const [name, value] of url.searchParams) {
    const existing = querystring[name];
    if (existing) {
      existing.multiValue = [...(existing.multiValue ?? [{ value: existing.value }]), { value }];
    } else {
      querystring[name] = { value };
    }
  }
  const cfHeaders: Record<string, CfValue> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? (value[0] ?? '') : value;
    cfHeaders[name.toLowerCase()] = { value: first };
  }
  return { method, uri: url.pathname, querystring, headers: cfHeaders, cookies: {} };
}

export function loadViewerRequest(
  file = VIEWER_REQUEST_FILE,
): (request: CfRequest, viewerIp?: string) => EdgeOutcome {
  let originId: string | null = null;
  const cloudfront = {
    selectRequestOriginById(id: string) {
      originId = id;
    },
    updateRequestOrigin() {
      throw new Error('updateRequestOrigin is not used by this service');
    },
  };
  const source = readFileSync(file, 'utf8').replace(
    /^\s*import\s+(\w+)\s+from\s+['"]cloudfront['"];?/m,
    (_match, name: string) => `var ${name} = __cloudfront;`,
  );
  const context = vm.createContext(
    { __cloudfront: cloudfront, console: { log: (_message: unknown) => {} } },
    { codeGeneration: { strings: false, wasm: false } },
  );
  new vm.Script(source, { filename: file }).runInContext(context);
  const handler = context.handler as (event: unknown) => CfRequest | CfResponse;
  return (request, viewerIp = '127.0.0.1') => {
    originId = null;
    const out = handler({
      version: '1.0',
      context: { eventType: 'viewer-request' },
      viewer: { ip: viewerIp },
      request: structuredClone(request),
    });
    if ('statusCode' in out) return { kind: 'response', response: out };
    return { kind: 'request', request: out, originId };
  };
}
