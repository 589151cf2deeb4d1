/**
 * The site under its own Content-Security-Policy, in real headless Chromium: the local edge sends
 * the policy the stack derives from the built site (infra/security-headers.ts), and every kind of
 * page renders its data (so its scripts ran) with no violation reported, the service worker
 * included. A page that gained an inline script or handler the policy does not name fails here.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSiteIfStale } from '../../scripts/site-build.ts';
import type { TestStack } from '../integration/stack.ts';

const CHROMIUM = '/usr/bin/chromium';
const AT = Date.parse('2026-11-18T20:10:00Z');
const SLOW = 60_000;

const skipReason = existsSync(CHROMIUM) ? '' : ` (skipped: ${CHROMIUM} is missing; apt-get install chromium)`;

describe.skipIf(skipReason !== '')(
  `the site under its Content-Security-Policy${skipReason}`,
  { timeout: 240_000 },
  () => {
    let stack: TestStack;
    let browser: Browser;

    beforeAll(async () => {
      buildSiteIfStale();
      const { startStack } = await import('../integration/stack.ts');
      stack = await startStack({ atMs: AT, env: { EDGE_RATE_LIMIT_PER_MINUTE: '100000' } });
      await stack.service.ingestNow();
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
        ],
      });
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await stack?.stop();
    });

    it.each([
      ['/', '#waits tbody tr'],
      ['/map/', '#map a[data-port-id]'],
      ['/ports/san-ysidro/', '#lanes tbody tr'],
      ['/status/', '#sources section[data-source="cbp"]'],
      ['/request-key/', '#key-form'],
      ['/forecast-skill/', '#skill'],
      ['/docs/', 'h1'],
      ['/fr/', '#waits tbody tr'],
    ])('%s renders with no violation', async (path, ready) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(SLOW);
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`);
        });
      });
      try {
        const response = await page.goto(`${stack.service.url}${path}`);
        const policy = response?.headers()['content-security-policy'] ?? '';
        expect(policy).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*;/);
        expect(policy).not.toMatch(/script-src[^;]*unsafe/);
        await page.waitForSelector(ready, { state: 'attached' });
        // The service worker registers (from the page's scripts) and installs from /sw.js.
        if (path === '/') await page.waitForFunction(() => navigator.serviceWorker.ready.then(() => true));
        await page.waitForLoadState('networkidle');
        expect(violations).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
);
