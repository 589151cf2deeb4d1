import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { siteIsStale } from '../../../scripts/site-build.ts';

describe('the site build before npm start', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  /** A project folder with a page source, a core file and (optionally) a build at `builtAt`. */
  function project(builtAt: number | null): string {
    const root = mkdtempSync(join(tmpdir(), 'site-build-'));
    roots.push(root);
    mkdirSync(join(root, 'site/src/pages'), { recursive: true });
    mkdirSync(join(root, 'functions/core'), { recursive: true });
    const at = new Date('2026-11-20T10:00:00Z');
    for (const file of ['site/src/pages/index.astro', 'functions/core/model.ts']) {
      writeFileSync(join(root, file), 'x');
      utimesSync(join(root, file), at, at);
    }
    if (builtAt !== null) {
      mkdirSync(join(root, 'site/dist'), { recursive: true });
      writeFileSync(join(root, 'site/dist/index.html'), '<!doctype html>');
      utimesSync(join(root, 'site/dist/index.html'), new Date(builtAt), new Date(builtAt));
    }
    return root;
  }

  it('builds a fresh clone, which has no site/dist', () => {
    expect(siteIsStale(project(null))).toBe(true);
  });

  it('keeps a build newer than every source', () => {
    expect(siteIsStale(project(Date.parse('2026-11-20T11:00:00Z')))).toBe(false);
  });

  it('rebuilds when a page or a core file the pages import changed after the build', () => {
    const root = project(Date.parse('2026-11-20T11:00:00Z'));
    const later = new Date('2026-11-20T12:00:00Z');
    utimesSync(join(root, 'functions/core/model.ts'), later, later);
    expect(siteIsStale(root)).toBe(true);
  });
});
