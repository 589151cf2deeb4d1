/**
 * The OpenAPI document as a test oracle: every response a test sees is checked against the
 * document the running service serves (`/api/v1/openapi.json`): the status is documented for the
 * path and method, required headers are present, documented headers match their schemas, and the
 * body validates (ajv, JSON Schema 2020-12) against the media type's schema.
 */

import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { TestStack } from './stack.ts';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;
const DOC_ID = 'https://border-waits.dev/api/v1/openapi.json';

export interface SeenResponse {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  body: string;
}

export interface Contract {
  document: Json;
  /** Throws, naming every mismatch, when `response` breaks the document. */
  check(response: SeenResponse): void;
  /** How many responses were checked. */
  checked: number;
}

function absolute(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`));
}

export function createContract(document: Json): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOC_ID });
  const cache = new Map<string, ValidateFunction>();
  const components = document.components as { responses: Json; headers: Json };

  function resolve<T>(value: T): T {
    const ref = (value as { $ref?: string } | undefined)?.$ref;
    if (!ref) return value;
    const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
    return ((components as unknown as Record<string, Json>)[kind ?? '']?.[name ?? ''] ?? value) as T;
  }

  function validator(key: string, schema: unknown): ValidateFunction {
    let fn = cache.get(key);
    if (!fn) {
      fn = ajv.compile(absolute(schema) as Json);
      cache.set(key, fn);
    }
    return fn;
  }

  const contract: Contract = {
    document,
    checked: 0,
    check(response) {
      const url = new URL(response.path, 'http://local');
      // The document covers the API; the site's pages and data files (feed health, RSS) are not in it.
      if (!/^\/(api|keys|push)\//.test(url.pathname)) return;
      contract.checked += 1;
      const problems: string[] = [];
      const paths = document.paths as Record<string, Record<string, Json>>;
      // An exact path, else a templated one (`/push/subscriptions/{id}`).
      const item =
        paths[url.pathname] ??
        Object.entries(paths).find(
          ([template]) =>
            template.includes('{') &&
            new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(url.pathname),
        )?.[1];
      const method = response.method.toLowerCase();
      // The CDN answers a preflight on any path, described or not, as it does on described ones.
      const operation =
        item?.[method] ??
        (method === 'options' ? Object.values(paths).find((other) => other.options)?.options : undefined);
      const where = `${response.method} ${response.path} -> ${response.status}`;
      let spec: Json | undefined;
      if (operation) {
        spec = resolve((operation.responses as Json)[String(response.status)] as Json | undefined);
        if (!spec) problems.push(`status ${response.status} is not documented`);
      } else if (response.status < 400) {
        problems.push('a success on a path or method the document does not describe');
      } else {
        // Undocumented paths and methods: any error, but still a problem+json.
        spec = {
          headers: { 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' } },
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        };
      }
      if (spec) {
        for (const [name, raw] of Object.entries((spec.headers ?? {}) as Json)) {
          const header = resolve(raw as Json) as { required?: boolean; schema?: Json };
          const value = response.headers.get(name);
          if (value === null) {
            if (header.required) problems.push(`required header ${name} is missing`);
            continue;
          }
          const check = validator(`header:${name}`, header.schema ?? {});
          if (!check(value))
            problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(check.errors)}`);
        }
        const content = spec.content as Record<string, { schema: Json }> | undefined;
        const empty = response.method === 'HEAD' || response.status === 304;
        if (empty || !content) {
          if (response.body !== '') problems.push('a body where the document describes none');
        } else {
          const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
          const media = content[type];
          if (!media) {
            problems.push(`content type "${type}" is not documented (${Object.keys(content).join(', ')})`);
          } else {
            let body: unknown;
            try {
              body = JSON.parse(response.body);
            } catch {
              problems.push('the body is not JSON');
            }
            const check = validator(`${url.pathname}:${method}:${response.status}:${type}`, media.schema);
            if (body !== undefined && !check(body)) {
              problems.push(`body: ${ajv.errorsText(check.errors?.slice(0, 5))}`);
            }
          }
        }
      }
      if (problems.length > 0)
        throw new Error(`${where} breaks the OpenAPI document:\n  ${problems.join('\n  ')}`);
    },
  };
  return contract;
}

/** Fetches the served document and makes every `stack.get` / `stack.json` check its response. */
export async function withContract(stack: TestStack): Promise<TestStack & { contract: Contract }> {
  const response = await fetch(`${stack.service.url}/api/v1/openapi.json`);
  if (!response.ok) throw new Error(`openapi.json answered ${response.status}`);
  const contract = createContract((await response.json()) as Json);
  const rawGet = stack.get;
  const get = async (path: string, init?: RequestInit): Promise<Response> => {
    const answer = await rawGet(path, init);
    contract.check({
      method: init?.method ?? 'GET',
      path,
      status: answer.status,
      headers: answer.headers,
      body: await answer.clone().text(),
    });
    return answer;
  };
  const json = async <T>(path: string, init?: RequestInit) => {
    const answer = await get(path, init);
    const text = await answer.text();
    return {
      status: answer.status,
      headers: answer.headers,
      body: (text ? JSON.parse(text) : undefined) as T,
    };
  };
  return Object.assign(stack, { get, json, contract });
}
