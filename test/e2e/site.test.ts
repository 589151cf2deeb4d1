/**
 * The status site in real headless Chromium against the local runtime fed by the simulator:
 * every page renders the demo data, filters work, outages show, forms report errors, no serious
 * axe violations, and each page stays within its weight budget. The traveller's features: phone
 * cards, the map, favourites, near me, offline, French, and forecasts on the port page.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { loadRollups } from '../../functions/adapters/dynamo/rollups.ts';
import { s3ClientConfig } from '../../functions/adapters/s3/sdk.ts';
import { PORTS } from '../../functions/core/catalogue/catalogue.ts';
import { regionOf } from '../../functions/core/catalogue/regions.ts';
import { contributionsOfDay, localBucketOf } from '../../functions/core/history/rollups.ts';
import type { Observation, Port } from '../../functions/core/model.ts';
import type { Current, LaneWait, PublishedPort } from '../../functions/core/views/views.ts';
import { observationsSeen } from '../../infra/local/simulator/model.ts';
import { BUCKETS, TABLES } from '../../infra/manifest.ts';
import { buildSiteIfStale as buildSite } from '../../scripts/site-build.ts';
import { STRINGS } from '../../site/src/i18n.ts';
import { openHours } from '../../site/src/lib/hours.ts';
import type { TestStack } from '../integration/stack.ts';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = new URL('../../', import.meta.url).pathname;
const SITE = join(ROOT, 'site');
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
const BUDGET = { totalBytes: 60_000, scriptBytes: 20_000 };
const SAN_YSIDRO = '250401';
/** Browser steps under a loaded machine: generous, never a measure of speed. */
const SLOW = 60_000;
/** `expect.poll` with the same generous wait (its default is one second). */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: SLOW, interval: 100 });

/** The site as `npm start` builds it: when site/dist is missing or older than its sources. */
function buildSiteIfStale(): void {
  buildSite();
}

const hasChromium = existsSync(CHROMIUM);
const hasSimulator = existsSync(join(ROOT, 'infra/local/simulator/server.ts'));
const skipReason = !hasChromium
  ? ` (skipped: ${CHROMIUM} is missing; apt-get install chromium)`
  : !hasSimulator
    ? ' (skipped: the feed simulator infra/local/simulator/server.ts is missing)'
    : '';

describe.skipIf(skipReason !== '')(
  `status site in headless Chromium${skipReason}`,
  { timeout: 240_000 },
  () => {
    let stack: TestStack;
    let browser: Browser;
    let ports: CurrentPort[];
    const weights: Record<string, { total: number; scripts: number; requests: number }> = {};

    beforeAll(async () => {
      buildSiteIfStale();
      mkdirSync(SHOTS, { recursive: true });
      const { startStack } = await import('../integration/stack.ts');
      // A high edge limit: one browser opens many pages from one address; no forecast time budget,
      // so a loaded machine never defers San Ysidro's forecast to a later run.
      stack = await startStack({
        atMs: AT,
        env: { EDGE_RATE_LIMIT_PER_MINUTE: '100000', FORECAST_BUDGET_MS: '600000' },
      });
      // Three weeks of San Ysidro's history, loaded before the first ingest (into the empty
      // rollups, before the service caches any summary), give the forecaster its profile.
      await seedHistory(SAN_YSIDRO, 21);
      await stack.service.ingestNow();
      await stack.service.forecastNow();
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
    async function open(path: string, ready: string, options: BrowserContextOptions = {}): Promise<Page> {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, ...options });
      page.setDefaultTimeout(SLOW);
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
      // Evaluated through the DevTools protocol: the site's Content-Security-Policy forbids an
      // injected inline script, as it should.
      await page.evaluate(readFileSync(AXE, 'utf8'));
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
      // A driver's default: the passenger standard lanes (not FAST, not the trusted-traveller lanes).
      const passenger = ports.reduce(
        (n, p) => n + p.current.lanes.filter((l) => l.mode === 'passenger' && l.lane === 'standard').length,
        0,
      );
      await poll(() => page.locator('#waits tbody tr').count()).toBe(passenger);
      expect(await page.locator('#waits tbody tr td:nth-child(3)').allTextContents()).toEqual(
        Array(passenger).fill('Passenger'),
      );
      expect(await page.locator('#waits tbody tr td:nth-child(4)').allTextContents()).toEqual(
        Array(passenger).fill('Standard'),
      );
      await page.selectOption('#f-mode', '');
      await page.selectOption('#f-lane', '');
      const lanes = ports.reduce((n, p) => n + p.current.lanes.length, 0);
      await poll(() => page.locator('#waits tbody tr').count()).toBe(lanes);
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
      const expected = ports
        .filter((p) => p.border === border)
        .reduce((n, p) => n + p.current.lanes.length, 0);
      await poll(() => page.locator('#waits tbody tr').count()).toBe(expected);
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
      await poll(() => page.locator('#lanes tbody tr').count()).toBe(port.current.lanes.length);
      // The typical week: one row per hour the port is open, one column per day.
      const openRows = openHours(PORTS.find((p) => p.id === port.id)?.hours);
      expect(await page.locator('#heatmap tbody tr').count()).toBe(openRows.length);
      expect(await page.locator('#heatmap td[data-day]').count()).toBe(7 * openRows.length);
      expect(
        await page.locator('#heatmap td[data-day="1"][data-hour="8"]').getAttribute('aria-label'),
      ).toMatch(/^Monday 8:00: /);
      // It is read only when its section comes near the screen.
      await page.locator('#heatmap').scrollIntoViewIfNeeded();
      await page.waitForSelector('#chart svg, #chart p:not(.muted)');
      // The best hours come from the published averages, with their exact medians.
      const averages = (
        await stack.json<{ medianDelayMinutes: number }[]>(`/api/v1/port-hourly-averages?port_id=${port.id}`)
      ).body;
      expect(averages.length).toBeGreaterThan(0);
      await poll(() => page.locator('#best li').first().textContent()).toMatch(/median \d/);
      await check(page, path, 'port');
      await page.close();
    });

    it('the docs page lists the endpoints and MCP tools', async () => {
      const page = await open('/docs/', 'h1');
      const text = await page.locator('main').textContent();
      for (const word of ['/api/v1/wait-observations', '/mcp', 'best_time_to_cross', 'export_observations']) {
        expect(text).toContain(word);
      }
      // The OpenAPI reference is rendered from the served document: every GET, POST, PUT and DELETE
      // operation (HEAD is noted on its GET).
      const served = (
        await stack.json<{ paths: Record<string, Record<string, unknown>> }>('/api/v1/openapi.json')
      ).body;
      const expected = Object.entries(served.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => ['get', 'post', 'put', 'delete'].includes(method))
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
      await poll(() => page.locator('#name-error').textContent()).toContain('required');
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
      expect(await page.locator('#result [role=alert]').textContent()).toContain(
        'The request looks automated',
      );
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
        (item) =>
          item.categories.includes('port-closed') && item.link.endsWith(`/ports/${closing.port.slug}/`),
      );
      expect(closed?.title).toMatch(/is closed/);
      await page.goto(`${stack.service.url}/rss.xml`);
      await page.screenshot({ path: join(SHOTS, 'rss.png'), fullPage: true });
      await page.close();
    });

    /** The published current waits now (earlier tests move the clock and ingest again). */
    const currentPorts = async () =>
      (await stack.json<{ ports: CurrentPort[] }>('/api/v1/port-current?include=ports')).body.ports;
    const waitText = (lane: LaneWait) =>
      lane.status === 'open'
        ? lane.delayMinutes === null
          ? 'open, no time given'
          : `${lane.delayMinutes} min`
        : null;
    const passengerStandard = (port: CurrentPort, direction: string) =>
      port.current.lanes.find(
        (l) => l.direction === direction && l.mode === 'passenger' && l.lane === 'standard',
      );

    it('at 390 x 844 the San Ysidro card shows its passenger wait inside the viewport, and nothing is wider', async () => {
      const ports = await currentPorts();
      const port = ports.find((p) => p.id === SAN_YSIDRO) as CurrentPort;
      const lane = passengerStandard(port, 'into-us');
      expect(lane, 'San Ysidro passenger standard lane in the demo data').toBeDefined();
      const page = await open('/', `#groups li[data-port-id="${SAN_YSIDRO}"]`, {
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
      });
      expect(await page.locator('#waits').isVisible()).toBe(false);
      const wait = page.locator(`#groups li[data-port-id="${SAN_YSIDRO}"] dd.wait[data-direction="into-us"]`);
      await wait.scrollIntoViewIfNeeded();
      expect(await wait.textContent()).toBe(waitText(lane as LaneWait) ?? (await wait.textContent()));
      const box = await wait.boundingBox();
      expect(box).not.toBeNull();
      const { x, y, width, height } = box as { x: number; y: number; width: number; height: number };
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x + width).toBeLessThanOrEqual(390);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y + height).toBeLessThanOrEqual(844);
      const widths = await page.evaluate(() => ({
        doc: document.documentElement.scrollWidth,
        body: document.body.scrollWidth,
        view: window.innerWidth,
      }));
      expect(widths.doc).toBeLessThanOrEqual(390);
      expect(widths.body).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(SHOTS, 'phone-san-ysidro.png') });
      // Every card shows the passenger standard wait of each direction of its crossing.
      for (const p of ports) {
        for (const direction of ['into-us', 'into-canada']) {
          const l = passengerStandard(p, direction);
          const expected = l && waitText(l);
          if (!expected) continue;
          expect(
            await page
              .locator(`#groups li[data-port-id="${p.id}"] dd.wait[data-direction="${direction}"]`)
              .textContent(),
            `${p.id} ${direction}`,
          ).toBe(expected);
        }
      }
      await check(page, '/', 'phone-home');
      await page.close();
    });

    const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

    /** The text of the elements matching `selector` that lie wholly within the first screen. */
    const firstScreen = (page: Page, selector: string) =>
      page.evaluate((sel) => {
        window.scrollTo(0, 0);
        return [...document.querySelectorAll<HTMLElement>(sel)]
          .filter((e) => {
            const r = e.getBoundingClientRect();
            return (
              r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
            );
          })
          .map((e) => e.textContent ?? '');
      }, selector);
    const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

    it('on a phone the home shows 3 waits or more on the first screen, and "Laredo" typed in the search shows a Laredo crossing there', async () => {
      const page = await open('/', '#groups dd.wait', PHONE);
      const waits = await firstScreen(page, '#groups dd.wait');
      expect(waits.length, waits.join(' | ')).toBeGreaterThanOrEqual(3);
      expect(await page.locator('#waits').count()).toBe(0);
      await page.fill('#q', 'Laredo');
      await poll(async () => (await firstScreen(page, '#groups li[data-port-id] .name')).join(' | ')).toMatch(
        /Laredo/,
      );
      const laredo = await page.evaluate(() =>
        [...document.querySelectorAll('#groups li[data-port-id]')].map((li) =>
          li.getAttribute('data-port-id'),
        ),
      );
      expect(laredo.length).toBeGreaterThan(0);
      expect(laredo.every((id) => PORTS.find((p) => p.id === id)?.city.includes('Laredo'))).toBe(true);
      const first = `#groups li[data-port-id="${laredo[0]}"] dd.wait`;
      expect((await firstScreen(page, first)).length).toBeGreaterThan(0);
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);
      // The twin city finds it too, and the one folded line says what is shown.
      await page.fill('#q', 'Tijuana');
      await poll(() => page.locator(`#groups li[data-port-id="${SAN_YSIDRO}"]`).count()).toBe(1);
      expect(await page.locator('#fold summary').textContent()).toContain(
        'Passenger · Standard · both directions',
      );
      await page.screenshot({ path: join(SHOTS, 'phone-search.png') });
      await page.close();
    });

    it('on a phone the San Ysidro, Blaine and Detroit pages fit 390 px and show the wait and its age on the first screen', async () => {
      for (const slug of ['san-ysidro', 'blaine-peace-arch', 'detroit-ambassador-bridge']) {
        const page = await open(`/ports/${slug}/`, '#lanes tbody tr', PHONE);
        expect(await pageWidth(page), slug).toBeLessThanOrEqual(390);
        expect((await firstScreen(page, '#lanes tbody tr:first-child td.wait')).length, slug).toBe(1);
        const age = await firstScreen(page, '#lanes tbody tr:first-child td:nth-child(6)');
        expect(age.join(''), slug).toMatch(/ago|just now/);
        await page.screenshot({ path: join(SHOTS, `phone-${slug}.png`) });
        await page.close();
      }
    });

    it('at least 90% of the map markers are touch targets of 24 x 24 px or more on a phone', async () => {
      const page = await open('/map/', '#map a[data-port-id]', PHONE);
      const sizes = await page
        .locator('#map a[data-port-id]')
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.width, r.height]));
      const big = sizes.filter(([w = 0, h = 0]) => w >= 24 && h >= 24).length;
      expect(big / sizes.length).toBeGreaterThanOrEqual(0.9);
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);
      await page.close();
    });

    const viewBox = async (page: Page) =>
      ((await page.locator('#map').getAttribute('viewBox')) ?? '').split(' ').map(Number);
    type Box = { left: number; top: number; right: number; bottom: number; width: number; height: number };

    it('the map zooms by button, keyboard, drag and region; names markers where there is room; keeps them 24 px and tappable', async () => {
      const page = await open('/map/', '#map a[data-port-id] circle.hit', PHONE);
      expect(await viewBox(page)).toEqual([0, 0, 800, 440]);
      expect(await page.locator('#labels text').count()).toBe(0);
      // A zoom step halves the view's width around its centre; the keyboard steps back.
      await page.locator('#zoom [data-zoom="in"]').click();
      await poll(async () => (await viewBox(page))[2]).toBe(400);
      expect(await viewBox(page)).toEqual([200, 110, 400, 220]);
      await page.locator('#zoom [data-zoom="in"]').focus();
      await page.keyboard.press('ArrowRight');
      await poll(async () => (await viewBox(page))[0]).toBeGreaterThan(200);
      await page.keyboard.press('-');
      await poll(() => viewBox(page)).toEqual([0, 0, 800, 440]);
      // A region's button frames its crossings; a drag moves the view.
      await page.getByRole('button', { name: 'San Diego–Tijuana' }).click();
      await poll(async () => (await viewBox(page))[2]).toBeLessThan(100);
      const region = await viewBox(page);
      await poll(() => page.locator('#labels text').count()).toBeGreaterThan(0);
      const svg = (await page.locator('#map').boundingBox()) as { x: number; y: number; width: number };
      const labels = await page.locator('#labels text').evaluateAll((els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          const id = e.getAttribute('data-port-id');
          const listed = document.querySelector(`#map-list li[data-port-id="${id}"] a`)?.textContent;
          return { id, text: e.textContent, listed, box: r.toJSON() as Box };
        }),
      );
      const names = labels.map((l) => l.text);
      expect(names).toContain('San Ysidro');
      for (const l of labels) {
        expect(l.text, 'a label is the name the list gives').toBe(l.listed);
        expect(l.box.height, `${l.text} is 12 px or more`).toBeGreaterThanOrEqual(12);
        expect(l.box.left).toBeGreaterThanOrEqual(svg.x - 1);
        expect(l.box.right).toBeLessThanOrEqual(svg.x + svg.width + 1);
      }
      for (const [i, a] of labels.entries())
        for (const b of labels.slice(i + 1)) {
          const apart =
            a.box.right <= b.box.left + 1 ||
            b.box.right <= a.box.left + 1 ||
            a.box.bottom <= b.box.top + 1 ||
            b.box.bottom <= a.box.top + 1;
          expect(apart, `"${a.text}" and "${b.text}" overlap`).toBe(true);
        }
      // Markers keep their touch size at this zoom, and a tap opens the note.
      const sizes = await page
        .locator('#map a[data-port-id]')
        .evaluateAll((els) =>
          els.map((e) => e.getBoundingClientRect()).map((r) => Math.min(r.width, r.height)),
        );
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(24);
      await page.locator(`#map a[data-port-id="${SAN_YSIDRO}"] circle.m`).tap();
      await poll(() => page.locator('#map-pop').isVisible()).toBe(true);
      expect(await page.locator('#map-pop strong').textContent()).toBe(
        await page.locator(`#map-list li[data-port-id="${SAN_YSIDRO}"] a`).textContent(),
      );
      const box = (await page.locator('#map').boundingBox()) as {
        x: number;
        y: number;
        width: number;
        height: number;
      };
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 - 60, box.y + box.height / 2, { steps: 6 });
      await page.mouse.up();
      await poll(async () => (await viewBox(page))[0]).toBeGreaterThan(region[0] as number);
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(SHOTS, 'phone-map-zoomed.png') });
      await page.close();
      // French labels are the French list's names (CBSA's French office names among them).
      const fr = await open('/fr/map/', '#map a[data-port-id] circle.hit', PHONE);
      await fr.getByRole('button', { name: 'Cascadia (Washington–Colombie-Britannique)' }).click();
      await poll(() => fr.locator('#labels text').count()).toBeGreaterThan(0);
      const pairs = await fr
        .locator('#labels text')
        .evaluateAll((els) =>
          els.map((e) => [
            e.textContent,
            document.querySelector(`#map-list li[data-port-id="${e.getAttribute('data-port-id')}"] a`)
              ?.textContent,
          ]),
        );
      for (const [text, listed] of pairs) expect(text).toBe(listed);
      await fr.close();
    });

    it('at 200% zoom on a phone no page scrolls sideways, in any language, and the first wait and its age show whole', async () => {
      // 390 x 844 at 200%: a 195 x 422 CSS viewport.
      const ZOOMED = {
        viewport: { width: 195, height: 422 },
        deviceScaleFactor: 4,
        isMobile: true,
        hasTouch: true,
      };
      for (const lang of ['', '/es', '/fr']) {
        // Each page, what it waits for, and what must show whole: the first wait (and its age).
        const pages: [string, string, string[]][] = [
          [`${lang}/`, '#groups dd.wait', ['#groups li[data-port-id] dd.wait']],
          ...['san-ysidro', 'blaine-peace-arch', 'detroit-ambassador-bridge'].map(
            (slug): [string, string, string[]] => [
              `${lang}/ports/${slug}/`,
              '#lanes tbody tr',
              ['#lanes tbody tr:first-child td.wait', '#lanes tbody tr:first-child td:nth-child(6)'],
            ],
          ),
          [`${lang}/map/`, '#map a[data-port-id]', []],
          [
            `${lang}/plan/san-diego-tijuana/`,
            '#plan li[data-port-id] .plan-hours li',
            ['#plan li[data-port-id] .plan-hours li'],
          ],
        ];
        for (const [path, ready, whole] of pages) {
          const page = await open(path, ready, ZOOMED);
          // The message names what sticks out, to say which rule to fix.
          const wide = await page.evaluate(
            (width) =>
              [...document.querySelectorAll('body *')]
                .filter((e) => e.getBoundingClientRect().right > width + 0.5)
                .slice(0, 5)
                .map(
                  (e) =>
                    `${e.tagName.toLowerCase()}#${e.id}.${[...e.classList].join('.')} ${Math.round(e.getBoundingClientRect().right)}px`,
                ),
            195,
          );
          expect(await pageWidth(page), `${path}: ${wide.join(', ')}`).toBeLessThanOrEqual(195);
          for (const selector of whole) {
            const wait = page.locator(selector).first();
            await wait.scrollIntoViewIfNeeded();
            expect(await wait.isVisible(), `${path} ${selector}`).toBe(true);
            expect((await wait.textContent())?.trim(), `${path} ${selector}`).not.toBe('');
            const box = (await wait.boundingBox()) as { x: number; width: number };
            expect(box.x, `${path} ${selector}`).toBeGreaterThanOrEqual(0);
            expect(box.x + box.width, `${path} ${selector}`).toBeLessThanOrEqual(195);
          }
          await page.screenshot({ path: join(SHOTS, `zoom200${path.replaceAll('/', '-')}.png`) });
          await page.close();
        }
      }
    });

    const LANG_PAGES = (lang: string) => [
      [`${lang}/`, '#groups dd.wait'],
      [`${lang}/ports/san-ysidro/`, '#lanes tbody tr'],
      [`${lang}/map/`, '#map a[data-port-id]'],
      [`${lang}/plan/san-diego-tijuana/`, '#plan li[data-port-id] .plan-hours li'],
    ];

    it('no page shows an IANA time zone id', async () => {
      for (const [path, ready] of ['', '/es', '/fr'].flatMap(LANG_PAGES)) {
        const page = await open(path as string, ready as string, PHONE);
        const text = await page.evaluate(() => document.body.innerText);
        expect(text, path).not.toMatch(/\b(America|Europe|Pacific|Etc)\/[A-Z][A-Za-z_]+/);
        await page.close();
      }
    });

    /** Every proper name a page may print inside a sentence, longest first. */
    const NAMES = [...new Set(PORTS.flatMap((p) => [p.name, p.crossing ?? '', ...p.cbsaOffices]))]
      .filter((n) => n.length > 2)
      .sort((a, b) => b.length - a.length);

    it('the Spanish and French pages have no English sentence', async () => {
      // Words that mark an English sentence; a run of text with two of them is English.
      const english = [
        'the',
        'and',
        'of',
        'to',
        'is',
        'are',
        'with',
        'for',
        'yet',
        'from',
        'last',
        'hours',
        'wait',
        'ago',
        'samples',
        'forecast',
        'reading',
        'this',
        'than',
        'lane',
        'lanes',
        'your',
        'you',
        'not',
        'only',
      ];
      for (const lang of ['/es', '/fr']) {
        for (const [path, ready] of LANG_PAGES(lang)) {
          const page = await open(path as string, ready as string, PHONE);
          const runs = await page.evaluate(() => {
            const out: string[] = [];
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              const parent = node.parentElement;
              if (!parent || parent.closest('script, style, code, pre, [translate="no"], [lang]:not(html)'))
                continue;
              if (parent.closest('[hidden]') || !(parent.offsetWidth || parent.offsetHeight)) continue;
              out.push(node.textContent ?? '');
            }
            // Attributes people hear or see too.
            for (const e of document.querySelectorAll('[aria-label], [title], [placeholder]'))
              if (!e.closest('[translate="no"]'))
                out.push(
                  e.getAttribute('aria-label') ?? '',
                  e.getAttribute('title') ?? '',
                  e.getAttribute('placeholder') ?? '',
                );
            return out;
          });
          for (const run of runs) {
            // Proper names (a crossing's, an office's) are not sentences: left out.
            const words =
              NAMES.reduce((text, name) => text.replaceAll(name, ' '), run)
                .toLowerCase()
                .match(/[a-z']+/g) ?? [];
            const hits = words.filter((w) => english.includes(w));
            expect(hits.length >= 2 ? run : '', `${path}: English in "${run}"`).toBe('');
          }
          if (lang === '/fr') {
            const text = await page.evaluate(() => document.body.innerText);
            // French typography: no plain space before a colon, semicolon, question or exclamation mark.
            expect(text.match(/\S {1}[:;?!](\s|$)/g) ?? [], path).toEqual([]);
          }
          await page.close();
        }
      }
    });

    it('the chosen border, direction, mode and lane are remembered', async () => {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      page.setDefaultTimeout(SLOW);
      await page.goto(`${stack.service.url}/`);
      await page.waitForSelector('#waits tbody tr');
      await page.selectOption('#f-border', 'ca');
      await page.selectOption('#f-direction', 'into-canada');
      await page.selectOption('#f-lane', 'nexus');
      await page.reload();
      await page.waitForSelector('#summary:not(:empty)');
      expect(await page.inputValue('#f-border')).toBe('ca');
      expect(await page.inputValue('#f-direction')).toBe('into-canada');
      expect(await page.inputValue('#f-mode')).toBe('passenger');
      expect(await page.inputValue('#f-lane')).toBe('nexus');
      const directions = await page.locator('#waits tbody tr td:nth-child(2)').allTextContents();
      expect(new Set(directions)).toEqual(new Set(directions.length ? ['Into Canada'] : []));
      await context.close();
    });

    it('the map draws a marker for every crossing with a location, and a marker opens its page', async () => {
      const catalogue = (await stack.json<{ ports: PublishedPort[] }>('/api/v1/ports')).body.ports;
      const located = catalogue.filter((p) => p.location !== null);
      expect(located.length).toBeGreaterThan(0);
      const page = await open('/map/', '#map a[data-port-id]');
      const markers = await page
        .locator('#map a[data-port-id]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-port-id')));
      expect([...markers].sort()).toEqual(located.map((p) => p.id).sort());
      // Each marker sits inside the drawing, and the colours follow the current waits.
      const centres = await page
        .locator('#map a[data-port-id]')
        .evaluateAll((links) =>
          links.map((a) => (a.getAttribute('transform')?.match(/-?[\d.]+/g) ?? []).slice(0, 2).map(Number)),
        );
      expect(centres.length).toBe(located.length);
      expect(centres.every(([cx = -1, cy = -1]) => cx >= 0 && cx <= 800 && cy >= 0 && cy <= 440)).toBe(true);
      // No marker's dot hides another's, even where crossings are a few hundred metres apart.
      for (const [i, [x1 = 0, y1 = 0]] of centres.entries()) {
        for (const [x2 = 0, y2 = 0] of centres.slice(i + 1)) {
          expect(Math.hypot(x2 - x1, y2 - y1)).toBeGreaterThanOrEqual(12);
        }
      }
      const sy = (await currentPorts()).find((p) => p.id === SAN_YSIDRO) as CurrentPort;
      const minutes = passengerStandard(sy, 'into-us')?.delayMinutes;
      const colour = minutes == null ? 'wx' : minutes < 15 ? 'w0' : minutes < 45 ? 'w1' : 'w2';
      await poll(() =>
        page.locator(`#map a[data-port-id="${SAN_YSIDRO}"] circle.m`).getAttribute('class'),
      ).toBe(`m ${colour}`);
      // The same choices as a list, for keyboard and screen-reader users.
      expect(await page.locator('#map-list li a').count()).toBe(catalogue.filter((p) => p.catalogued).length);
      await check(page, '/map/', 'map');
      // A tap shows the crossing's waits and a link; the link opens its page.
      await page.locator(`#map a[data-port-id="${SAN_YSIDRO}"] .m`).first().click();
      await poll(() => page.locator('#map-pop').isVisible()).toBe(true);
      expect(await page.locator('#map-pop').textContent()).toContain('San Ysidro');
      await page.locator('#map-pop a').click();
      await page.waitForURL(/\/ports\/san-ysidro\/$/);
      expect(await page.locator('h1').textContent()).toContain('San Ysidro');
      await page.close();
    });

    it('a starred crossing is in "My crossings" after a reload', async () => {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      page.setDefaultTimeout(SLOW);
      await page.goto(`${stack.service.url}/`);
      await page.waitForSelector('#waits tbody tr');
      expect(await page.locator('#mine li').count()).toBe(0);
      const star = page.locator(`#waits tbody tr[data-port-id="${SAN_YSIDRO}"] [data-star]`).first();
      expect(await star.getAttribute('aria-pressed')).toBe('false');
      await star.click();
      await page.reload();
      await page.waitForSelector(`#mine li[data-port-id="${SAN_YSIDRO}"]`);
      expect(await page.locator('#mine li').count()).toBe(1);
      expect(await page.locator('#mine-box').isHidden()).toBe(false);
      expect(
        await page.locator(`#mine li[data-port-id="${SAN_YSIDRO}"] [data-star]`).getAttribute('aria-pressed'),
      ).toBe('true');
      await page.screenshot({ path: join(SHOTS, 'my-crossings.png') });
      // Unstarring removes it again.
      await page.locator(`#mine li[data-port-id="${SAN_YSIDRO}"] [data-star]`).click();
      await poll(() => page.locator('#mine li').count()).toBe(0);
      expect(await page.locator('#mine-box').isHidden()).toBe(true);
      await context.close();
    });

    it('"near me" with a granted position puts the nearest crossing first and sends nothing', async () => {
      const catalogue = (await stack.json<{ ports: PublishedPort[] }>('/api/v1/ports')).body.ports;
      // A point 3 km off the Peace Bridge (Fort Erie side).
      const peace = catalogue.find((p) => p.slug === 'buffalo-niagara-falls-peace-bridge') as PublishedPort;
      const here = {
        latitude: (peace.location?.lat ?? 0) + 0.02,
        longitude: (peace.location?.lon ?? 0) - 0.02,
      };
      const km = (lat: number, lon: number) => {
        const r = Math.PI / 180;
        const h =
          Math.sin(((lat - here.latitude) * r) / 2) ** 2 +
          Math.cos(here.latitude * r) * Math.cos(lat * r) * Math.sin(((lon - here.longitude) * r) / 2) ** 2;
        return 2 * 6371 * Math.asin(Math.sqrt(h));
      };
      const shown = new Set(
        ports
          .filter((p) => p.current.lanes.some((l) => l.mode === 'passenger' && l.lane === 'standard'))
          .map((p) => p.id),
      );
      const nearest = catalogue
        .filter((p) => p.location && shown.has(p.id))
        .sort(
          (a, b) =>
            km(a.location?.lat ?? 0, a.location?.lon ?? 0) - km(b.location?.lat ?? 0, b.location?.lon ?? 0),
        )[0];
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        geolocation: here,
        permissions: ['geolocation'],
      });
      const page = await context.newPage();
      page.setDefaultTimeout(SLOW);
      const sent: string[] = [];
      page.on('request', (request) => {
        const url = request.url();
        if (
          url.includes(String(here.latitude).slice(0, 6)) ||
          (request.postData() ?? '').includes(String(here.latitude).slice(0, 6))
        ) {
          sent.push(url);
        }
      });
      await page.goto(`${stack.service.url}/`);
      await page.waitForSelector('#groups li');
      const before = await page.locator('#groups li').first().getAttribute('data-port-id');
      // On a phone the filters are folded into one line: a tap opens them.
      await page.click('#fold summary');
      await page.click('#near');
      await poll(() => page.inputValue('#f-sort')).toBe('near');
      expect(await page.locator('#groups li').first().getAttribute('data-port-id')).toBe(nearest?.id);
      expect(before).not.toBe(nearest?.id);
      expect(await page.locator('#groups li').first().locator('.distance').textContent()).toMatch(/^\d+ km$/);
      expect(sent).toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'near-me.png') });
      await context.close();
    });

    it('with the network cut after a first visit, a reload shows the last data and the offline note', async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      page.setDefaultTimeout(SLOW);
      await page.goto(`${stack.service.url}/`);
      await page.waitForSelector(`#groups li[data-port-id="${SAN_YSIDRO}"]`);
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      const online = await page
        .locator(`#groups li[data-port-id="${SAN_YSIDRO}"] dd.wait`)
        .first()
        .textContent();
      expect(await page.locator('#offline').textContent()).toBe('');

      await context.setOffline(true);
      try {
        await page.reload();
        await page.waitForSelector(`#groups li[data-port-id="${SAN_YSIDRO}"]`);
        const note = await page.locator('#offline').textContent();
        expect(note).toMatch(/^Offline: .* generated (just now|\d.* ago)\. These are not current waits\.$/);
        expect(
          await page.locator(`#groups li[data-port-id="${SAN_YSIDRO}"] dd.wait`).first().textContent(),
        ).toBe(online);
        // Never shown as current: every lane says it is the last known value.
        const metas = await page.locator('#groups dt .meta').allTextContents();
        expect(metas.length).toBeGreaterThan(0);
        expect(metas.every((m) => m.endsWith('last known (offline)'))).toBe(true);
        await page.screenshot({ path: join(SHOTS, 'offline.png'), fullPage: false });
      } finally {
        await context.setOffline(false);
      }
      await context.close();
    });

    it('the French pages are in French, name CBSA offices as CBSA does, and pass axe', async () => {
      let page = await open('/fr/', '#waits tbody tr');
      expect(await page.getAttribute('html', 'lang')).toBe('fr');
      expect(await page.locator('h1').textContent()).toBe('Tous les passages maintenant');
      expect(await page.locator('#waits tbody tr[data-port-id="090101"] th a').first().textContent()).toBe(
        'Buffalo/Niagara Falls (Pont Peace)',
      );
      await check(page, '/fr/', 'home-fr');
      await page.close();
      page = await open('/fr/ports/buffalo-niagara-falls-peace-bridge/', '#lanes tbody tr');
      expect(await page.locator('#office').textContent()).toBe('Bureau de l’ASFC\u202f: Pont Peace');
      await check(page, '/fr/ports/buffalo-niagara-falls-peace-bridge/', 'port-fr');
      await page.close();
      // On a phone the lanes-open count carries its label, with the French colon.
      page = await open('/fr/ports/buffalo-niagara-falls-peace-bridge/', '#lanes tbody tr', PHONE);
      expect(
        await page
          .locator('#lanes tbody tr:first-child td:nth-child(5)')
          .evaluate((td) => getComputedStyle(td, '::before').content),
      ).toBe('"Voies ouvertes\u202f: "');
      await page.close();
      for (const [path, ready] of [
        ['/fr/map/', '#map a[data-port-id]'],
        ['/fr/status/', '#sources section'],
        ['/fr/request-key/', '#key-form'],
        ['/fr/docs/', 'section.operation'],
        ['/fr/forecast-skill/', '#skill:not([hidden]), #skill-status:not(:empty)'],
      ] as const) {
        page = await open(path, ready);
        expect(await page.getAttribute('html', 'lang'), path).toBe('fr');
        await check(page, path, `fr-${path.split('/')[2]}`);
        await page.close();
      }
    });

    it('a port page says when there is no forecast yet, or why a lane has none', async () => {
      const current = await currentPorts();
      const others = current.filter((p) => p.id !== SAN_YSIDRO && p.current.lanes.length > 0);
      type Doc = {
        lanes: {
          direction: string;
          mode: string;
          lane: string;
          points: unknown[];
          reason: string | null;
          reasonCodes: string[];
        }[];
      };
      // Every ingest publishes a document per port; a lane with nothing to forecast from (no history
      // and no CBP typical wait, or no wait reported now) has no points and says why.
      let quiet: CurrentPort | undefined;
      let first: Doc['lanes'][number] | undefined;
      for (const port of others) {
        const doc = (await stack.json<Doc>(`/api/v1/port-forecast?port_id=${port.id}`)).body;
        first = doc.lanes.find((l) => l.points.length === 0);
        if (first) {
          quiet = port;
          break;
        }
      }
      expect(first, 'a lane without forecast points').toBeDefined();
      let page = await open(`/ports/${quiet?.slug}/`, '#lanes tbody tr');
      await page.waitForSelector('#forecast-lane:not([hidden])');
      await page.selectOption('#forecast-lane', `${first?.direction}|${first?.mode}|${first?.lane}`);
      // Said in the page's language from the reason's codes, not in the API's English.
      const reasons = STRINGS.en.travel.reasons as Record<string, string>;
      await poll(() => page.locator('#forecast-none').textContent()).toBe(
        `No forecast for this lane: ${(first?.reasonCodes ?? []).map((c) => reasons[c]).join('; ')}`,
      );
      expect(first?.reasonCodes?.length).toBeGreaterThan(0);
      await page.close();
      const absent = others.find((p) => p.id !== quiet?.id);
      // Before the first forecast step (no document yet), the page says so.
      await deleteData(`v1/port-forecast/${absent?.id}.json`);
      page = await open(`/ports/${absent?.slug}/`, '#lanes tbody tr');
      await poll(() => page.locator('#forecast-none').textContent()).toBe('No forecast yet for this port.');
      await page.close();
    });

    it('a port page shows the forecast band once forecasts exist', async () => {
      // With the three weeks of history loaded before the first ingest, three polls 15 minutes apart,
      // each followed by the forecast run, issue forecasts and score the first ones against the
      // readings that arrived.
      const start = stack.clock.now();
      for (const minutes of [0, 15, 30]) {
        stack.clock.set(start + minutes * 60_000);
        await stack.service.ingestNow();
        await stack.service.forecastNow();
      }
      const doc = (await stack.json<PublishedForecast>(`/api/v1/port-forecast?port_id=${SAN_YSIDRO}`)).body;
      const lane = doc.lanes.find(
        (l) => l.direction === 'into-us' && l.mode === 'passenger' && l.lane === 'standard',
      );
      expect(
        lane?.points.length,
        `published points of San Ysidro passenger standard (${lane?.reason})`,
      ).toBeGreaterThan(0);
      const sy = (await currentPorts()).find((p) => p.id === SAN_YSIDRO) as CurrentPort;
      const path = `/ports/${sy.slug}/`;
      const page = await open(path, '#forecast-chart svg');
      expect(await page.inputValue('#forecast-lane')).toBe('into-us|passenger|standard');
      const band = page.locator('#forecast-chart svg polygon.band');
      expect(await band.count()).toBe(1);
      const corners = ((await band.getAttribute('points')) ?? '').trim().split(/\s+/);
      expect(corners.length).toBe(2 * (lane?.points.length ?? 0));
      expect(await page.locator('#forecast-chart svg path.expected').count()).toBe(1);
      // The chart's text alternative carries every published point with its interval.
      const label = (await page.locator('#forecast-chart svg').getAttribute('aria-label')) ?? '';
      for (const point of lane?.points ?? [])
        expect(label).toContain(`${point.delayMinutes} (${point.low}–${point.high})`);
      expect(await page.locator('#forecast-best').textContent()).toMatch(
        /^(Best time to leave today: \d?\d:\d\d( [AP]M)? \(Pacific Time\) \(about \d+ min; 8 times in 10 between \d+ and \d+ min\)|No forecast point left today)\.$/,
      );
      const methods = STRINGS.en.travel.methods as Record<string, string>;
      expect(await page.locator('#forecast-issued').textContent()).toContain(
        `How: ${methods[lane?.method ?? 'model']}.`,
      );
      expect(await page.locator('#forecast-band').textContent()).toMatch(/^The shaded band is the 80% range/);
      // The track record in one sentence, from the lane's scored horizons.
      const scored = (lane?.skill ?? []).filter((h) => h.published.n > 0);
      const track = (await page.locator('#forecast-track').textContent()) ?? '';
      if (scored.length === 0)
        expect(track).toBe('No track record yet: too few forecasts have been checked against the readings.');
      else expect(track).toMatch(/^Track record over \d+ checked forecasts: /);
      await check(page, path, 'port-forecast');
      await page.close();
    });

    it('the forecast record page charts the published median and p90 MAE per horizon', async () => {
      const doc = (
        await stack.json<{ source: string; horizons: { horizonMinutes: number }[] }>('/api/v1/forecast-skill')
      ).body;
      expect(doc.horizons.length).toBeGreaterThan(0);
      const page = await open('/forecast-skill/', '#skill tbody tr');
      expect(await page.locator('#skill tbody tr').count()).toBe(doc.horizons.length);
      expect(
        await page
          .locator('#skill tbody tr')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-horizon'))),
      ).toEqual(doc.horizons.map((h) => String(h.horizonMinutes)));
      expect(await page.locator('#skill-source').textContent()).toBe(doc.source);
      await check(page, '/forecast-skill/', 'forecast-skill');
      await page.close();
    });

    it('at 18:00 port-local, the region page shows tomorrow 06:00-10:00 for each crossing', async () => {
      // The next 18:00 in San Diego after the test clock.
      const zone = 'America/Los_Angeles';
      const hourIn = (ms: number) =>
        Number(
          new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(ms),
        );
      let at = Math.ceil(stack.clock.now() / 3_600_000) * 3_600_000;
      while (hourIn(at) !== 18) at += 3_600_000;
      stack.clock.set(at);
      await stack.service.ingestNow();
      const page = await open(
        '/plan/san-diego-tijuana/',
        '#plan li[data-port-id] .plan-hours li[data-hour], #plan .plan-hours li.muted:not(:first-child)',
        PHONE,
      );
      await poll(() =>
        page.locator(`#plan li[data-port-id="${SAN_YSIDRO}"] .plan-hours li[data-hour]`).count(),
      ).toBe(4);
      expect(await page.locator('input[name=day][value="1"]').isChecked()).toBe(true);
      expect(await page.inputValue('#plan-from')).toBe('6');
      expect(await page.inputValue('#plan-to')).toBe('10');
      const crossings = PORTS.filter((p) => regionOf(p) === 'san-diego-tijuana');
      expect(await page.locator('#plan > li[data-port-id]').count()).toBe(crossings.length);
      for (const port of crossings) {
        const item = page.locator(`#plan > li[data-port-id="${port.id}"]`);
        const hours = await item
          .locator('.plan-hours li[data-hour]')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-hour')));
        const text = (await item.locator('.plan-hours').textContent()) ?? '';
        // Each crossing: tomorrow 06:00 to 10:00 hour by hour, or says it has nothing for that window.
        if (hours.length) expect(hours, port.id).toEqual(['6', '7', '8', '9']);
        else expect(text, port.id).toBe(STRINGS.en.travel.planNone);
      }
      // San Ysidro's values come from its typical week (three weeks of history) or the forecast.
      const sy = await page
        .locator(`#plan > li[data-port-id="${SAN_YSIDRO}"] .plan-hours li[data-hour]`)
        .allTextContents();
      expect(sy.map((x) => x.slice(0, 5))).toEqual(['06:00', '07:00', '08:00', '09:00']);
      expect(sy.every((x) => /^\d\d:00 \d+ min/.test(x))).toBe(true);
      expect(
        await page.locator(`#plan > li[data-port-id="${SAN_YSIDRO}"] .plan-source`).textContent(),
      ).toMatch(/^from /);
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);
      await check(page, '/plan/san-diego-tijuana/', 'plan');
      await page.close();
    });

    interface PublishedForecast {
      lanes: {
        direction: string;
        mode: string;
        lane: string;
        method: string | null;
        reason: string | null;
        points: { at: string; delayMinutes: number; low: number; high: number }[];
        skill: { horizonMinutes: number; published: { n: number } }[];
      }[];
    }

    async function deleteData(key: string): Promise<void> {
      const s3 = new S3Client(s3ClientConfig({ endpoint: stack.service.endpoints.s3 }));
      try {
        await s3.send(new DeleteObjectCommand({ Bucket: BUCKETS.data.name, Key: key }));
      } finally {
        s3.destroy();
      }
    }

    /**
     * Loads `days` days of the simulator's readings of a port (every 5 minutes, before the stack's
     * clock) into the hour-of-week rollups, as a service running that long would have them.
     */
    async function seedHistory(portId: string, days: number): Promise<void> {
      const port = PORTS.find((p) => p.id === portId) as Port;
      const end = stack.clock.now();
      const polls: number[] = [];
      for (let t = end - days * 86_400_000; t < end; t += 5 * 60_000) polls.push(t);
      const byDate = new Map<string, Observation[]>();
      for (const o of observationsSeen(port, polls)) {
        const { localDate } = localBucketOf(Date.parse(o.observedAt), port.timeZone);
        const list = byDate.get(localDate) ?? [];
        list.push({ ...o, maxLanes: null, fetchedAt: o.observedAt });
        byDate.set(localDate, list);
      }
      const contributions = [...byDate].flatMap(([date, list]) =>
        contributionsOfDay(port.id, date, port.timeZone, list),
      );
      const doc = createDocumentClient({ endpoint: stack.service.endpoints.dynamodb });
      try {
        await loadRollups(doc, TABLES.rollups.name, contributions);
      } finally {
        doc.destroy();
      }
    }
  },
);

describe('page weight of every built page', { timeout: 240_000 }, () => {
  it('holds the budget on every page, map included', () => {
    buildSiteIfStale();
    const dist = join(SITE, 'dist');
    const read = (path: string) => readFileSync(join(dist, path));
    /** A script and the modules it imports, each counted once. */
    const scripts = (path: string, seen: Set<string>): number => {
      if (seen.has(path)) return 0;
      seen.add(path);
      const text = read(path).toString('utf8');
      let bytes = Buffer.byteLength(text);
      for (const [, dep] of text.matchAll(/(?:from|import)\s*["']\.\/([^"']+\.js)["']/g)) {
        bytes += scripts(join(dirname(path), dep as string), seen);
      }
      return bytes;
    };
    const pages: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(dist, dir), { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.html')) pages.push(path);
      }
    };
    walk('');
    expect(pages.length).toBeGreaterThan(3 * 83);
    const over: string[] = [];
    const report: Record<string, { total: number; scripts: number }> = {};
    for (const page of pages) {
      const html = read(page).toString('utf8');
      const seen = new Set<string>();
      let script = 0;
      for (const [, src] of html.matchAll(/<script[^>]*\ssrc="\/([^"]+)"/g))
        script += scripts(src as string, seen);
      let other = 0;
      for (const [, href] of html.matchAll(/<link[^>]*rel="icon"[^>]*href="\/([^"]+)"/g))
        other += read(href as string).length;
      const total = Buffer.byteLength(html) + script + other;
      report[page] = { total, scripts: script };
      if (total >= BUDGET.totalBytes || script >= BUDGET.scriptBytes)
        over.push(`${page}: ${total} B, ${script} B of script`);
    }
    mkdirSync(join(ROOT, 'test-output'), { recursive: true });
    const heaviest = Object.entries(report)
      .sort((a, b) => b[1].total - a[1].total)
      .slice(0, 5);
    writeFileSync(
      join(ROOT, 'test-output/page-weight-built.json'),
      `${JSON.stringify({ pages: pages.length, heaviest }, null, 2)}\n`,
    );
    expect(over).toEqual([]);
  });
});
