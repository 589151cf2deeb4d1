/**
 * The status site in real headless Chromium against the local runtime fed by the simulator:
 * every page renders the demo data, filters work, outages show, forms report errors, no serious
 * axe violations, and each page stays within its weight budget.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Current, LaneWait, PublishedPort } from '../../functions/core/views.ts';
import type { TestStack } from '../integration/stack.ts';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = new URL('../../', import.meta.url).pathname;
const SITE = join(ROOT, 'site');
const DIST_INDEX = join(SITE, 'dist/index.html');
const SHOTS = join(ROOT, 'test-output/screenshots');
const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');
const AT = Date.parse('2026-11-18T20:10:00Z');
const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
type CurrentPort = PublishedPort & { current: Current };

/** Page budget: the page's own HTML+CSS+JS+icons (not the API data it fetches). */
const BUDGET = { totalBytes: 60_000, scriptBytes: 15_000 };

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['dist', 'node_modules', '.astro'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function buildSiteIfStale(): void {
  if (existsSync(DIST_INDEX) && statSync(DIST_INDEX).mtimeMs >= newestMtime(SITE)) return;
  const result = spawnSync('npx', ['astro', 'build', '--root', 'site'], {
    cwd: ROOT,
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`astro build failed:\n${result.stdout}\n${result.stderr}`);
}

const hasChromium = existsSync(CHROMIUM);
const hasSimulator = existsSync(join(ROOT, 'infra/local/simulator/server.ts'));
const skipReason = !hasChromium
  ? ` (skipped: ${CHROMIUM} is missing; apt-get install chromium)`
  : !hasSimulator
    ? ' (skipped: the feed simulator infra/local/simulator/server.ts is missing)'
    : '';

describe.skipIf(skipReason !== '')(`status site in headless Chromium${skipReason}`, () => {
  let stack: TestStack;
  let browser: Browser;
  let ports: CurrentPort[];
  const weights: Record<string, { total: number; scripts: number; requests: number }> = {};

  beforeAll(async () => {
    buildSiteIfStale();
    mkdirSync(SHOTS, { recursive: true });
    const { startStack } = await import('../integration/stack.ts');
    stack = await startStack({ atMs: AT });
    await stack.service.ingestNow();
    const { body } = await stack.json<{ ports: CurrentPort[] }>('/api/v1/port-current?include=ports');
    ports = body.ports;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    if (Object.keys(weights).length) {
      writeFileSync(join(ROOT, 'test-output/page-weight.json'), `${JSON.stringify(weights, null, 2)}\n`);
    }
  });

  /** Opens a page, records the weight of its own (non-data) responses and waits for `ready`. */
  async function open(path: string, ready: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const sizes: Promise<{ bytes: number; script: boolean }>[] = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin !== new URL(stack.service.url).origin) return;
      if (url.pathname.startsWith('/api/') || url.pathname.startsWith('/v1/')) return;
      sizes.push(
        response
          .body()
          .then((b) => ({ bytes: b.length, script: response.request().resourceType() === 'script' }))
          .catch(() => ({ bytes: 0, script: false })),
      );
    });
    const response = await page.goto(`${stack.service.url}${path}`);
    expect(response?.status(), path).toBe(200);
    await page.waitForSelector(ready);
    await page.waitForLoadState('networkidle');
    const all = await Promise.all(sizes);
    weights[path] = {
      total: all.reduce((s, x) => s + x.bytes, 0),
      scripts: all.filter((x) => x.script).reduce((s, x) => s + x.bytes, 0),
      requests: all.length,
    };
    return page;
  }

  async function check(page: Page, path: string, shot: string): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as {
          axe: {
            run: () => Promise<{
              violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
            }>;
          };
        }
      ).axe;
      const result = await axe.run();
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map(
          (v) =>
            `${v.id} (${v.impact}): ${v.nodes
              .map((n) => n.target.join(' '))
              .slice(0, 3)
              .join(', ')}`,
        );
    });
    expect(violations, `axe on ${path}`).toEqual([]);
    const weight = weights[path] ?? { total: Number.POSITIVE_INFINITY, scripts: Number.POSITIVE_INFINITY };
    expect(weight.total, `bytes of ${path}`).toBeLessThan(BUDGET.totalBytes);
    expect(weight.scripts, `script bytes of ${path}`).toBeLessThan(BUDGET.scriptBytes);
  }

  const waitOf = (lane: LaneWait) =>
    lane.status === 'open' ? (lane.delayMinutes === null ? null : `${lane.delayMinutes} min`) : null;

  it('home lists every crossing of the demo data with its wait, and a filter narrows it', async () => {
    expect(ports.length).toBeGreaterThan(0);
    const page = await open('/', '#waits tbody tr');
    const lanes = ports.reduce((n, p) => n + p.current.lanes.length, 0);
    await expect.poll(() => page.locator('#waits tbody tr').count()).toBe(lanes);
    for (const port of ports) {
      const rows = page.locator(`#waits tbody tr[data-port-id="${port.id}"]`);
      expect(await rows.count(), port.id).toBe(port.current.lanes.length);
      const waits = await rows.locator('td.wait').allTextContents();
      for (const lane of port.current.lanes) {
        const expected = waitOf(lane);
        if (expected) expect(waits, `${port.id} ${lane.mode} ${lane.lane}`).toContain(expected);
      }
      // A non-open status is never shown as 0.
      const statuses = await rows
        .locator('td.wait')
        .evaluateAll((cells) => cells.map((c) => [c.getAttribute('data-status'), c.textContent]));
      for (const [status, text] of statuses) if (status !== 'open') expect(text).not.toMatch(/^0\b/);
    }
    await check(page, '/', 'home');

    const border = ports.some((p) => p.border === 'ca') ? 'ca' : 'mx';
    await page.selectOption('#f-border', border);
    const expected = ports.filter((p) => p.border === border).reduce((n, p) => n + p.current.lanes.length, 0);
    await expect.poll(() => page.locator('#waits tbody tr').count()).toBe(expected);
    const ids = await page
      .locator('#waits tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-port-id')));
    const allowed = new Set(ports.filter((p) => p.border === border).map((p) => p.id));
    expect(ids.every((id) => id && allowed.has(id))).toBe(true);
    await page.selectOption('#f-mode', 'passenger');
    expect(await page.locator('#waits tbody tr').count()).toBeLessThanOrEqual(expected);
    await page.screenshot({ path: join(SHOTS, 'home-filtered.png'), fullPage: true });
    await page.close();
  });

  it('the Spanish home page is in Spanish', async () => {
    const page = await open('/es/', '#waits tbody tr');
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    expect(await page.locator('h1').textContent()).toContain('Todos los cruces');
    await check(page, '/es/', 'home-es');
    await page.close();
  });

  it('a port page shows its lanes and the heatmap', async () => {
    const port = ports.find((p) => p.current.lanes.length > 0) as CurrentPort;
    const path = `/ports/${port.slug}/`;
    const page = await open(path, '#lanes tbody tr');
    await expect.poll(() => page.locator('#lanes tbody tr').count()).toBe(port.current.lanes.length);
    expect(await page.locator('#heatmap tbody tr').count()).toBe(7);
    expect(await page.locator('#heatmap td[data-day]').count()).toBe(7 * 24);
    expect(await page.locator('#heatmap td[data-day="1"][data-hour="8"]').getAttribute('aria-label')).toMatch(
      /^Monday 8:00: /,
    );
    await page.waitForSelector('#chart svg, #chart p:not(.muted)');
    // The best hours come from the published averages, with their exact medians.
    const averages = (
      await stack.json<{ medianDelayMinutes: number }[]>(`/api/v1/port-hourly-averages?port_id=${port.id}`)
    ).body;
    expect(averages.length).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#best li').first().textContent()).toMatch(/median \d/);
    await check(page, path, 'port');
    await page.close();
  });

  it('the docs page lists the endpoints and MCP tools', async () => {
    const page = await open('/docs/', 'h1');
    const text = await page.locator('main').textContent();
    for (const word of ['/api/v1/wait-observations', '/mcp', 'best_time_to_cross', 'export_observations']) {
      expect(text).toContain(word);
    }
    // The OpenAPI reference is rendered from the served document: every GET and POST operation.
    const served = (
      await stack.json<{ paths: Record<string, Record<string, unknown>> }>('/api/v1/openapi.json')
    ).body;
    const expected = Object.entries(served.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => method === 'get' || method === 'post')
        .map(() => path),
    );
    expect(
      await page
        .locator('section.operation')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-path'))),
    ).toEqual(expected);
    expect(
      await page.locator('section.operation[data-path="/api/v1/wait-observations"]').textContent(),
    ).toContain('port_id');
    await check(page, '/docs/', 'docs');
    await page.close();
  });

  it('the request form shows client-side and server errors', async () => {
    const page = await open('/request-key/', '#key-form');
    await page.click('#key-form button[type=submit]');
    await expect.poll(() => page.locator('#name-error').textContent()).toContain('required');
    expect(await page.locator('#email-error').textContent()).toContain('required');
    expect(await page.locator('#result [role=alert]').count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'request-key-errors.png'), fullPage: true });

    await page.fill('#name', 'Ana Test');
    await page.fill('#email', 'ana@example.com');
    await page.fill('#organisation', 'Example Freight');
    await page.fill('#use', 'Planning truck departures at Laredo.');
    const submit = async (): Promise<number> => {
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/keys/requests')),
        page.click('#key-form button[type=submit]'),
      ]);
      await page.waitForSelector('#result [role=alert], #result [role=status]');
      return response.status();
    };
    // A server-side refusal the browser cannot foresee: the hidden honeypot filled, as a bot would.
    await page.evaluate(() => {
      (document.getElementById('website') as HTMLInputElement).value = 'https://spam.example';
    });
    expect(await submit()).toBe(400);
    expect(await page.locator('#result [role=alert]').textContent()).toContain('The request looks automated');
    await page.screenshot({ path: join(SHOTS, 'request-key-server-error.png'), fullPage: true });
    await page.evaluate(() => {
      (document.getElementById('website') as HTMLInputElement).value = '';
    });
    expect(await submit()).toBe(202);
    expect(await page.locator('#result [role=status]').textContent()).toContain('Thank you');
    await check(page, '/request-key/', 'request-key');
    await page.close();
  });

  it('the status page shows feed health, then an outage after a failed ingest', async () => {
    let page = await open('/status/', '#sources section[data-source="cbp"]');
    const card = await page.locator('#sources section[data-source="cbp"]').textContent();
    expect(card).toContain('Last success');
    expect(await page.locator('#outages .alert').count()).toBe(0);
    await check(page, '/status/', 'status');
    await page.close();

    stack.simulator.setFault('cbp', { kind: 'status', status: 500 });
    try {
      await stack.service.ingestNow();
    } finally {
      stack.simulator.setFault('cbp', null);
    }
    page = await open('/es/status/', '#outages .alert[data-source="cbp"]');
    expect(await page.locator('#outages .alert[data-source="cbp"]').textContent()).toContain('Falla');
    await check(page, '/es/status/', 'status-outage');
    await page.close();
  });

  it('/rss.xml parses as RSS 2.0 in the browser and carries an item for a port that closed', async () => {
    const { nextPortClosing } = await import('../../infra/local/simulator/model.ts');
    const closing = nextPortClosing(stack.clock.now());
    stack.clock.set(closing.openAt);
    await stack.service.ingestNow();
    stack.clock.set(closing.closedAt);
    await stack.service.ingestNow();
    const page = await browser.newPage();
    await page.goto(`${stack.service.url}/`);
    const feed = await page.evaluate(async () => {
      const response = await fetch('/rss.xml');
      const doc = new DOMParser().parseFromString(await response.text(), 'application/xml');
      return {
        type: response.headers.get('content-type'),
        parseError: doc.querySelector('parsererror') !== null,
        root: doc.documentElement.nodeName,
        version: doc.documentElement.getAttribute('version'),
        channelTitle: doc.querySelector('channel > title')?.textContent ?? null,
        items: [...doc.querySelectorAll('channel > item')].map((item) => ({
          title: item.querySelector('title')?.textContent ?? '',
          link: item.querySelector('link')?.textContent ?? '',
          categories: [...item.querySelectorAll('category')].map((c) => c.textContent),
        })),
      };
    });
    expect(feed).toMatchObject({ parseError: false, root: 'rss', version: '2.0' });
    expect(feed.type).toMatch(/^application\/rss\+xml/);
    expect(feed.channelTitle).toBeTruthy();
    const closed = feed.items.find(
      (item) => item.categories.includes('port-closed') && item.link.endsWith(`/ports/${closing.port.slug}/`),
    );
    expect(closed?.title).toMatch(/is closed/);
    await page.goto(`${stack.service.url}/rss.xml`);
    await page.screenshot({ path: join(SHOTS, 'rss.png'), fullPage: true });
    await page.close();
  });
});
