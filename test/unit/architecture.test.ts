/**
 * The layers point down. Every import of every file under `functions/` (and the local runtime's
 * reach into it) is read and checked against the rules below; the checker is also run on planted
 * violations, so this test proves it can fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface ImportRef {
  /** As written: `zod`, `../core/model.ts`. */
  specifier: string;
  /** `import type` / `export type`: erased at build time, so it costs nothing at run time. */
  typeOnly: boolean;
  line: number;
}

/** Removes comments (keeping line breaks), so a commented example is not taken for an import. */
function stripComments(source: string): string {
  let out = '';
  let i = 0;
  let quote: string | null = null;
  while (i < source.length) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (quote) {
      out += c;
      if (c === '\\') {
        out += next ?? '';
        i += 2;
        continue;
      }
      if (c === quote) quote = null;
      i += 1;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      quote = c;
      out += c;
      i += 1;
    } else if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i += 1;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, '');
      i = stop;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** Static imports, re-exports, side-effect imports and dynamic `import('…')` of one module. */
function importsOf(source: string): ImportRef[] {
  const code = stripComments(source);
  const refs: ImportRef[] = [];
  const lineOf = (index: number) => code.slice(0, index).split('\n').length;
  const statement = /(?:^|[;\n])\s*(import|export)(\s+type)?\b([^;'"`]*?)\bfrom\s*(['"])([^'"]+)\4/g;
  for (const match of code.matchAll(statement)) {
    const clause = match[3] ?? '';
    // `import { type A, type B } from` is type-only too.
    const named = /^\s*\{([^}]*)\}\s*$/.exec(clause)?.[1];
    const allTypes =
      named
        ?.split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .every((part) => part.startsWith('type ')) === true;
    refs.push({
      specifier: match[5] as string,
      typeOnly: Boolean(match[2]) || allTypes,
      line: lineOf((match.index ?? 0) + match[0].indexOf(match[1] as string)),
    });
  }
  for (const match of code.matchAll(/(?:^|[;\n])\s*import\s*(['"])([^'"]+)\1/g)) {
    const index = (match.index ?? 0) + match[0].indexOf('import');
    refs.push({ specifier: match[2] as string, typeOnly: false, line: lineOf(index) });
  }
  for (const match of code.matchAll(/\bimport\(\s*(['"])([^'"]+)\1\s*\)/g)) {
    refs.push({ specifier: match[2] as string, typeOnly: false, line: lineOf(match.index ?? 0) });
  }
  return refs;
}

type Layer =
  | 'core'
  | 'adapters'
  | 'http'
  | 'mcp'
  | 'handlers'
  | 'config'
  | 'contract'
  | 'infra-local'
  | 'infra'
  | 'other';

function layerOf(file: string): Layer {
  if (file === 'functions/contract.ts') return 'contract';
  if (file.startsWith('functions/core/')) return 'core';
  if (file.startsWith('functions/adapters/')) return 'adapters';
  if (file.startsWith('functions/http/')) return 'http';
  if (file.startsWith('functions/mcp/')) return 'mcp';
  if (file.startsWith('functions/handlers/')) return 'handlers';
  if (file === 'functions/config.ts') return 'config';
  if (file.startsWith('infra/local/')) return 'infra-local';
  if (file.startsWith('infra/')) return 'infra';
  return 'other';
}

/** Packages the pure domain must never load: cloud SDKs, Lambda middleware, the MCP SDK, I/O. */
const CORE_FORBIDDEN_PACKAGES = [
  /^@aws-sdk\//,
  /^@aws-lambda-powertools\//,
  /^@middy\//,
  /^@modelcontextprotocol\//,
  /^aws-lambda$/,
  /^jose$/,
  /^node:(http|https|http2|net|dns|dns\/promises|fs|fs\/promises|child_process|dgram|tls)$/,
];

/** Which layers each layer may import from (by relative path). */
const ALLOWED_TARGETS: Record<Layer, readonly Layer[]> = {
  core: ['core'],
  contract: [],
  adapters: ['core', 'adapters', 'contract'],
  http: ['core', 'http', 'config', 'contract'],
  mcp: ['core', 'mcp', 'contract'],
  config: ['core', 'contract'],
  handlers: ['core', 'adapters', 'http', 'mcp', 'config', 'contract', 'handlers'],
  infra: ['core', 'adapters', 'http', 'mcp', 'config', 'contract', 'handlers', 'infra', 'other'],
  'infra-local': [
    'core',
    'adapters',
    'http',
    'mcp',
    'config',
    'contract',
    'handlers',
    'infra',
    'infra-local',
    'other',
  ],
  other: [
    'core',
    'adapters',
    'http',
    'mcp',
    'config',
    'contract',
    'handlers',
    'infra',
    'infra-local',
    'other',
  ],
};

/**
 * The core's capabilities (one folder each under functions/core/) and the only other capabilities
 * each may import. Every capability may import the kernel (the files directly in functions/core/);
 * the kernel imports no capability. The graph is acyclic (a test below checks), so a newcomer can
 * read the core from the bottom up: catalogue and access first, ingest last.
 */
const CAPABILITY_DEPENDENCIES: Readonly<Record<string, readonly string[]>> = {
  catalogue: [],
  access: [],
  feeds: ['catalogue'],
  views: ['catalogue', 'access'],
  history: ['catalogue', 'views'],
  typical: ['feeds', 'views'],
  forecast: ['catalogue', 'history', 'views', 'typical'],
  alerts: ['catalogue', 'views'],
  trips: ['views'],
  api: ['catalogue', 'views', 'forecast'],
  ingest: ['catalogue', 'feeds', 'history', 'views', 'forecast', 'alerts', 'typical'],
};

/** The most files the kernel (directly in functions/core/) may hold. */
const KERNEL_MAX_FILES = 10;

/** `functions/core/forecast/skill.ts` -> `forecast`; a kernel file -> `kernel`; outside the core -> null. */
function capabilityOf(file: string): string | null {
  if (!file.startsWith('functions/core/')) return null;
  const parts = file.slice('functions/core/'.length).split('/');
  return parts.length === 1 ? 'kernel' : (parts[0] as string);
}

interface Manifest {
  dependencies: Record<string, string>;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/**
 * The rule each import of `file` breaks, one line each. `file` is relative to the project root,
 * with forward slashes.
 */
function violations(file: string, source: string, manifest: Manifest): string[] {
  const layer = layerOf(file);
  const out: string[] = [];
  const at = (ref: ImportRef) => `${file}:${ref.line} imports ${ref.specifier}`;
  for (const ref of importsOf(source)) {
    if (ref.specifier.startsWith('.')) {
      const target = posix.normalize(posix.join(posix.dirname(file), ref.specifier));
      const targetLayer = layerOf(target);
      if (!ALLOWED_TARGETS[layer].includes(targetLayer)) {
        out.push(`${at(ref)}: ${layer} must not depend on ${targetLayer}`);
      }
      const from = capabilityOf(file);
      const to = capabilityOf(target);
      if (from && to && to !== 'kernel' && from !== to) {
        if (from === 'kernel') {
          out.push(`${at(ref)}: the kernel must not depend on a capability (${to})`);
        } else if (!(CAPABILITY_DEPENDENCIES[from] ?? []).includes(to)) {
          out.push(
            `${at(ref)}: capability ${from} must not depend on ${to} (CAPABILITY_DEPENDENCIES lists what it may use)`,
          );
        }
      }
      if (layer === 'mcp' && file.startsWith('functions/mcp/tools/') && targetLayer === 'adapters') {
        out.push(`${at(ref)}: MCP tools use the core's interfaces, never an adapter`);
      }
      if (file.startsWith('functions/') && /^(scripts|test|site)\//.test(target)) {
        out.push(`${at(ref)}: deployed code must not load ${target.split('/')[0]}/`);
      }
      continue;
    }
    if (layer === 'core' && CORE_FORBIDDEN_PACKAGES.some((pattern) => pattern.test(ref.specifier))) {
      out.push(`${at(ref)}: the core is pure (no AWS SDK, middy, MCP SDK, HTTP or file system)`);
    }
    if (file.startsWith('functions/') && !ref.typeOnly && !ref.specifier.startsWith('node:')) {
      const name = packageName(ref.specifier);
      if (!(name in manifest.dependencies)) {
        out.push(`${at(ref)}: ${name} is not a runtime dependency (package.json "dependencies")`);
      }
    }
  }
  if (file.startsWith('functions/')) {
    // `import { z } from 'zod'` keeps every export of zod alive in the bundle (about 450 KB
    // minified, against about 90 KB for the namespace import, which esbuild tree-shakes).
    const code = stripComments(source);
    for (const match of code.matchAll(
      /(?:^|[;\n])\s*import\s+\{[^}]*\bz\b[^}]*\}\s*from\s*['"]zod(?:\/v4)?['"]/g,
    )) {
      if (/^\s*import\s+type\b/.test(match[0].replace(/^[;\n]/, ''))) continue;
      const line = code.slice(0, (match.index ?? 0) + match[0].indexOf('import')).split('\n').length;
      out.push(`${file}:${line} imports { z } from zod: write import * as z from 'zod' (tree-shaken)`);
    }
  }
  if (file.startsWith('functions/') && layer !== 'config') {
    // Handlers pass the whole environment to their factory; only config.ts reads keys from it.
    const code = stripComments(source);
    for (const match of code.matchAll(/process\.env\s*(\.|\[|\?\.)/g)) {
      const line = code.slice(0, match.index).split('\n').length;
      out.push(`${file}:${line} reads process.env: only functions/config.ts reads the environment`);
    }
    if (layer !== 'handlers' && /\bprocess\.env\b/.test(code)) {
      out.push(`${file} uses process.env: configuration reaches it through its factory`);
    }
  }
  return out;
}

/** Import cycles among `graph`'s files (each as the list of files on the cycle). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/**
 * Imports that break a rule on purpose, each with the reason and who removes it. The test above
 * fails when one is no longer needed, so the list cannot go stale.
 */
const EXCEPTIONS: { file: string; specifier: string; reason: string }[] = [];

const isException = (line: string, exception: (typeof EXCEPTIONS)[number]) =>
  line.startsWith(`${exception.file}:`) && line.includes(` imports ${exception.specifier}:`);

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const files = [...sourceFiles('functions'), ...sourceFiles('infra')];

describe('architecture', () => {
  it('finds the imports of every file it checks', () => {
    const core = files.filter((file) => file.startsWith('functions/core/'));
    expect(core.length).toBeGreaterThan(10);
    const total = files.reduce(
      (sum, file) => sum + importsOf(readFileSync(join(ROOT, file), 'utf8')).length,
      0,
    );
    expect(total).toBeGreaterThan(files.length);
  });

  it('keeps every import of functions/ and infra/ within the layering rules', () => {
    const found = files.flatMap((file) => violations(file, readFileSync(join(ROOT, file), 'utf8'), manifest));
    expect(found.filter((line) => !EXCEPTIONS.some((e) => isException(line, e)))).toEqual([]);
  });

  it.each(EXCEPTIONS)('still needs the exception for $file importing $specifier', (exception) => {
    const source = readFileSync(join(ROOT, exception.file), 'utf8');
    expect(violations(exception.file, source, manifest).some((line) => isException(line, exception))).toBe(
      true,
    );
  });

  it('lists every capability folder, and the capabilities depend on each other without a cycle', () => {
    const folders = readdirSync(join(ROOT, 'functions/core'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(Object.keys(CAPABILITY_DEPENDENCIES).sort());
    const graph = new Map(Object.entries(CAPABILITY_DEPENDENCIES).map(([cap, deps]) => [cap, [...deps]]));
    expect(cyclesOf(graph)).toEqual([]);
  });

  it(`keeps at most ${KERNEL_MAX_FILES} files in the kernel, the rest in at least 6 capability folders`, () => {
    const kernel = files.filter((file) => capabilityOf(file) === 'kernel');
    expect(kernel.length).toBeLessThanOrEqual(KERNEL_MAX_FILES);
    expect(Object.keys(CAPABILITY_DEPENDENCIES).length).toBeGreaterThanOrEqual(6);
  });

  it('has no import cycle in functions/', () => {
    const graph = new Map<string, string[]>();
    for (const file of files.filter((f) => f.startsWith('functions/'))) {
      const targets = importsOf(readFileSync(join(ROOT, file), 'utf8'))
        .filter((ref) => ref.specifier.startsWith('.'))
        .map((ref) => posix.normalize(posix.join(posix.dirname(file), ref.specifier)));
      graph.set(file, targets);
    }
    expect(cyclesOf(graph)).toEqual([]);
  });

  describe('fails on a planted violation', () => {
    const planted: [string, string, string, RegExp][] = [
      [
        'the AWS SDK in the core',
        'functions/core/planted.ts',
        "import { S3Client } from '@aws-sdk/client-s3';",
        /the core is pure/,
      ],
      [
        'middy in the core',
        'functions/core/planted.ts',
        "import middy from '@middy/core';",
        /the core is pure/,
      ],
      [
        'the MCP SDK in the core',
        'functions/core/planted.ts',
        "import { McpServer } from '@modelcontextprotocol/server';",
        /the core is pure/,
      ],
      [
        'node:http in the core, as a type',
        'functions/core/planted.ts',
        "import type { Server } from 'node:http';",
        /the core is pure/,
      ],
      [
        'node:fs in the core, dynamically',
        'functions/core/planted.ts',
        "const fs = await import('node:fs');",
        /the core is pure/,
      ],
      [
        'the manifest in the core',
        'functions/core/planted.ts',
        "import { RETENTION_HOURS } from '../../infra/manifest.ts';",
        /core must not depend on infra/,
      ],
      [
        'an adapter in the core',
        'functions/core/planted.ts',
        "export { createStores } from '../adapters/stores.ts';",
        /core must not depend on adapters/,
      ],
      [
        'config in the core',
        'functions/core/planted.ts',
        "import { parseConfig } from '../config.ts';",
        /core must not depend on config/,
      ],
      [
        'an adapter in an MCP tool, as a type',
        'functions/mcp/tools/planted.ts',
        "import { type ExportStore } from '../../adapters/s3/exports.ts';",
        /never an adapter/,
      ],
      [
        'the deployment code in a handler',
        'functions/handlers/planted.ts',
        "import { LIMITS } from '../../infra/manifest.ts';",
        /handlers must not depend on infra/,
      ],
      [
        'the deployment code in config.ts',
        'functions/config.ts',
        "import { TABLES } from '../infra/manifest.ts';",
        /config must not depend on infra/,
      ],
      [
        'a capability the dependency list does not give it',
        'functions/core/catalogue/planted.ts',
        "import { PORTS_KEY } from '../views/view-paths.ts';",
        /capability catalogue must not depend on views/,
      ],
      [
        'a capability that depends on one above it, as a type',
        'functions/core/views/planted.ts',
        "import type { IngestDeps } from '../ingest/ingest.ts';",
        /capability views must not depend on ingest/,
      ],
      [
        'a capability in the kernel',
        'functions/core/planted.ts',
        "import { PORTS } from './catalogue/catalogue.ts';",
        /the kernel must not depend on a capability/,
      ],
      [
        'the local runtime in a handler',
        'functions/handlers/planted.ts',
        "import { startLocal } from '../../infra/local/start-local.ts';",
        /handlers must not depend on infra-local/,
      ],
      [
        'a handler in an adapter',
        'functions/adapters/planted.ts',
        "import { handler } from '../handlers/api.ts';",
        /adapters must not depend on handlers/,
      ],
      [
        'a dev dependency at run time',
        'functions/core/planted.ts',
        "import rss from '@astrojs/rss';",
        /not a runtime dependency/,
      ],
      [
        'the whole of zod',
        'functions/http/planted.ts',
        "import { z } from 'zod';",
        /write import \* as z from 'zod'/,
      ],
      [
        'an environment key read outside config.ts',
        'functions/adapters/planted.ts',
        'const table = process.env.TABLE_KEYS ?? "api-keys";',
        /only functions\/config\.ts reads the environment/,
      ],
    ];
    it.each(planted)('%s', (_name, file, source, expected) => {
      const found = violations(file, `/** Planted. */\n${source}\n`, manifest);
      expect(
        found.some((line) => expected.test(line)),
        found.join('\n'),
      ).toBe(true);
    });

    it('accepts a type-only import of zod', () => {
      expect(violations('functions/core/planted.ts', "import type { z } from 'zod';\n", manifest)).toEqual(
        [],
      );
    });

    it('ignores imports inside comments', () => {
      const source =
        "// import { S3Client } from '@aws-sdk/client-s3';\n/* import middy from '@middy/core'; */\n";
      expect(violations('functions/core/planted.ts', source, manifest)).toEqual([]);
    });

    it('finds a planted import cycle', () => {
      const graph = new Map([
        ['functions/core/a.ts', ['functions/core/b.ts']],
        ['functions/core/b.ts', ['functions/core/c.ts']],
        ['functions/core/c.ts', ['functions/core/a.ts']],
      ]);
      expect(cyclesOf(graph)).toEqual([
        ['functions/core/a.ts', 'functions/core/b.ts', 'functions/core/c.ts', 'functions/core/a.ts'],
      ]);
    });
  });
});
