/**
 * Subscribing to and deleting a wait alert on a port page, in real headless Chromium against the
 * local runtime. The only stand-in is at `PushManager`, the boundary that needs the internet (a
 * browser's push service): its `subscribe` returns a subscription made by the stand-in push
 * service on loopback TLS, bound to the VAPID key the page passed. Everything else is real: the
 * page's script, the service worker registration, the notification permission, the edge, the api
 * function, the ingest's delivery (decrypted by the stand-in), the service worker's `push` handler
 * (a push delivered through the DevTools protocol shows the notification), and the deletion; and
 * the move of the alerts to a new subscription when the browser replaced the old one.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushServiceStandIn } from '../../infra/local/push-service.ts';
import { buildSiteIfStale } from '../../scripts/site-build.ts';
import type { TestStack } from '../integration/stack.ts';

const CHROMIUM = '/usr/bin/chromium';
const AT = Date.parse('2026-11-18T20:10:00Z');
const SLOW = 60_000;
const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-sync',
];

const skipReason = existsSync(CHROMIUM) ? '' : ` (skipped: ${CHROMIUM} is missing; apt-get install chromium)`;

describe.skipIf(skipReason !== '')(
  `push alerts on a port page in Chromium${skipReason}`,
  { timeout: 240_000 },
  () => {
    let stack: TestStack;
    let push: PushServiceStandIn;
    let browser: Browser;
    let publicKey: string;

    beforeAll(async () => {
      buildSiteIfStale();
      const { startPushService } = await import('../../infra/local/push-service.ts');
      const { startStack } = await import('../integration/stack.ts');
      push = await startPushService();
      stack = await startStack({
        atMs: AT,
        pushCa: push.ca.caPem,
        env: { PUSH_SERVICE_HOSTS: push.host, EDGE_RATE_LIMIT_PER_MINUTE: '100000' },
      });
      await stack.service.ingestNow();
      publicKey = (await stack.json<{ publicKey: string }>('/push/vapid-public-key')).body.publicKey;
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await stack?.stop();
      await push?.stop();
    });

    /**
     * A phone-sized page whose origin may notify, with the stand-in at `PushManager`: subscribe()
     * hands out the subscription sessionStorage names next (`stand-in-next`, the first by default)
     * and records the key the page asked for; getSubscription() answers the one it handed out;
     * unsubscribe() forgets it and counts.
     */
    async function pageWithStandIn(subscriptions: ReturnType<PushServiceStandIn['subscribe']>[]) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      await context.grantPermissions(['notifications'], { origin: stack.service.url });
      await context.addInitScript(
        ({ list }) => {
          const state = globalThis as unknown as { pushCalls: string[]; unsubscribed: number };
          state.pushCalls = [];
          state.unsubscribed = 0;
          const fake = (json: (typeof list)[number]) => ({
            endpoint: json.endpoint,
            expirationTime: null,
            options: { userVisibleOnly: true, applicationServerKey: null },
            toJSON: () => json,
            getKey: () => null,
            unsubscribe: async () => {
              sessionStorage.removeItem('stand-in-subscription');
              state.unsubscribed += 1;
              return true;
            },
          });
          PushManager.prototype.subscribe = async function subscribe(options?: PushSubscriptionOptionsInit) {
            state.pushCalls.push(String(options?.applicationServerKey));
            const next = sessionStorage.getItem('stand-in-next') ?? '0';
            sessionStorage.setItem('stand-in-subscription', next);
            return fake(list[Number(next)] as (typeof list)[number]) as unknown as PushSubscription;
          };
          PushManager.prototype.getSubscription = async function getSubscription() {
            const made = sessionStorage.getItem('stand-in-subscription');
            const json = made === null ? undefined : list[Number(made)];
            return (json ? fake(json) : null) as PushSubscription | null;
          };
        },
        { list: subscriptions },
      );
      const page = await context.newPage();
      page.setDefaultTimeout(SLOW);
      return { context, page };
    }

    /** On Otay Mesa's page, sets an alert: into the US, passenger standard, below 240 minutes. */
    async function setAlert(page: Page): Promise<void> {
      await page.goto(`${stack.service.url}/ports/otay-mesa-passenger/`);
      // The section is closed and its code not loaded until the traveller opens it.
      await page.getByText('Wait alerts on this device').click();
      const lane = page.locator('#push-lane');
      await expect.poll(() => lane.locator('option').count(), { timeout: SLOW }).toBeGreaterThan(3);
      expect(await lane.locator('option').allTextContents()).toContain('Into the US · Passenger · SENTRI');
      await lane.selectOption('into-us|passenger|standard');
      await page.getByLabel('Notify me when the wait is below (minutes)').fill('240');
      const posted = page.waitForResponse((r) => r.url().endsWith('/push/subscriptions'));
      await page.getByRole('button', { name: 'Notify me' }).click();
      expect((await posted).status()).toBe(201);
      await page.getByText(/^Alert set:/).waitFor();
    }

    it('subscribes, lists, receives a message, and deletes the alert', async () => {
      const subscription = push.subscribe(publicKey);
      const { context, page } = await pageWithStandIn([subscription]);
      await setAlert(page);
      const items = page.locator('#push-list li');
      await expect.poll(() => items.count()).toBe(1);
      expect(await items.first().textContent()).toContain(
        'Otay Mesa (Passenger) · Into the US · Passenger · Standard · below 240 min',
      );
      expect(await page.evaluate(() => (globalThis as unknown as { pushCalls: string[] }).pushCalls)).toEqual(
        [publicKey],
      );

      // The next ingest sends the dip to the stand-in, which checks the signature and decrypts it.
      await stack.service.ingestNow();
      const [message] = push.messages(subscription.endpoint);
      if (!message) throw new Error('no message reached the push service');
      expect(message.payload).toMatchObject({ url: '/ports/otay-mesa-passenger/', lang: 'en' });
      expect(push.refusals()).toEqual([]);

      // The service worker's push handler shows that message as a notification.
      // Once the worker is active: a push delivered to a registration without one is dropped.
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      const cdp = await context.newCDPSession(page);
      let registrationId = '';
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: list }) => {
        const live = list.find((r: { isDeleted: boolean; scopeURL: string }) => !r.isDeleted);
        if (live) registrationId = live.registrationId;
      });
      await cdp.send('ServiceWorker.enable');
      await expect.poll(() => registrationId, { timeout: SLOW }).not.toBe('');
      const shown = () =>
        page.evaluate(async () => {
          const registration = await navigator.serviceWorker.getRegistration('/');
          const list = await registration?.getNotifications();
          return (list ?? []).map((n) => ({ title: n.title, url: (n.data as { url: string }).url }));
        });
      await expect
        .poll(
          async () => {
            if ((await shown()).length === 0) {
              await cdp.send('ServiceWorker.deliverPushMessage', {
                origin: `${stack.service.url}/`,
                registrationId,
                data: JSON.stringify(message.payload),
              });
            }
            return shown();
          },
          { timeout: SLOW, interval: 500 },
        )
        .toEqual([
          { title: (message.payload as { title: string }).title, url: '/ports/otay-mesa-passenger/' },
        ]);

      // A reload lists the alert this browser holds without opening anything.
      await page.reload();
      await expect.poll(() => items.count()).toBe(1);

      const deleted = page.waitForResponse((r) => r.url().includes('/push/subscriptions/'));
      await items.first().getByRole('button').click();
      expect((await deleted).status()).toBe(204);
      await page.getByText('Alert deleted.').waitFor();
      expect(await items.count()).toBe(0);
      expect(
        await page.evaluate(() => (globalThis as unknown as { unsubscribed: number }).unsubscribed),
      ).toBe(1);
      // Deleted on the service too: nothing of this subscription is stored.
      const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
      const { createDocumentClient } = await import('../../functions/adapters/dynamo/client.ts');
      const items2 = await createDocumentClient({ endpoint: stack.service.endpoints.dynamodb }).send(
        new ScanCommand({ TableName: 'push-alerts' }),
      );
      expect((items2.Items ?? []).filter((item) => item.endpoint === subscription.endpoint)).toEqual([]);
      await context.close();
    });

    it("moves the alerts to the browser's new subscription when the old one is gone", async () => {
      const first = push.subscribe(publicKey);
      const second = push.subscribe(publicKey);
      const { context, page } = await pageWithStandIn([first, second]);
      await setAlert(page);
      type Held = { id: string; endpoint?: string; portId: string; lane: string; below: number };
      const heldNow = () =>
        page.evaluate(
          () => JSON.parse(localStorage.getItem('border-waits:push-alerts') ?? '[]') as Held[],
        ) as Promise<Held[]>;
      const [made] = await heldNow();
      expect(made?.endpoint).toBe(first.endpoint);

      // The browser dropped the subscription (its push service expired it); its next one is the second.
      await page.evaluate(() => {
        sessionStorage.removeItem('stand-in-subscription');
        sessionStorage.setItem('stand-in-next', '1');
      });
      const remade = page.waitForResponse(
        (r) => r.url().endsWith('/push/subscriptions') && r.request().method() === 'POST',
      );
      const deleted = page.waitForResponse(
        (r) => r.url().endsWith(`/push/subscriptions/${made?.id}`) && r.request().method() === 'DELETE',
      );
      // Alerts are held: the section opens by itself on the next visit and moves them.
      await page.reload();
      expect((await remade).status()).toBe(201);
      expect((await deleted).status()).toBe(204);
      await expect.poll(async () => (await heldNow())[0]?.endpoint).toBe(second.endpoint);
      const [moved] = await heldNow();
      expect(moved).toMatchObject({ portId: made?.portId, lane: 'standard', below: 240 });
      expect(moved?.id).not.toBe(made?.id);
      await expect.poll(() => page.locator('#push-list li').count()).toBe(1);

      // The service holds the alert for the second subscription only, and the next dip goes there.
      const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
      const { createDocumentClient } = await import('../../functions/adapters/dynamo/client.ts');
      const stored = await createDocumentClient({ endpoint: stack.service.endpoints.dynamodb }).send(
        new ScanCommand({ TableName: 'push-alerts' }),
      );
      const endpoints = (stored.Items ?? []).map((item) => item.endpoint);
      expect(endpoints.filter((e) => e === first.endpoint)).toEqual([]);
      expect(endpoints.filter((e) => e === second.endpoint)).toHaveLength(1);
      await stack.service.ingestNow();
      expect(push.messages(second.endpoint)).toHaveLength(1);
      expect(push.messages(first.endpoint)).toHaveLength(0);
      await context.close();
    });
  },
);
