/**
 * Alert evaluation on the real alerts table (dynalite) with real webhook receivers on loopback:
 * a reading fires once even when evaluations overlap, slow receivers cannot hold the evaluation
 * past its deadline (their retries carry over to the next one), and a deletion always wins over
 * an evaluation in flight.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAlertStore } from '../../functions/adapters/dynamo/alerts.ts';
import { createWebhookDelivery } from '../../functions/adapters/webhook/deliver.ts';
import { type Alert, type AlertStore, evaluateAlerts } from '../../functions/core/alerts/alerts.ts';
import type { LatestReading } from '../../functions/core/model.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { TABLES } from '../../infra/manifest.ts';

const NOW = Date.parse('2026-11-18T18:00:00Z');
const MINUTE = 60_000;
let nowMs = NOW;
const clock = { now: () => nowMs };

interface Received {
  path: string;
  alertId: string;
  webhookId: string;
}

let embedded: EmbeddedStores;
let dataDir: string;
let alerts: AlertStore;
let receiver: Server;
let base = '';
const received: Received[] = [];
/** Requests to /hang wait here until released (or forever). */
const hanging: ServerResponse[] = [];
let hangAnswers = false;
let onRequest: ((path: string) => void) | null = null;

const delivery = createWebhookDelivery({
  allowPrivate: true,
  timeoutMs: 5_000,
  signingKey: 'a-test-signing-key-of-at-least-32-characters',
});

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'border-waits-alerts-'));
  embedded = await startEmbeddedStores(dataDir, clock);
  alerts = createAlertStore(embedded.stores.dynamo, TABLES.alerts.name);
  receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      const parsed = JSON.parse(body) as { id: string; alert: { id: string } };
      received.push({ path, alertId: parsed.alert.id, webhookId: String(req.headers['webhook-id']) });
      onRequest?.(path);
      if (path.startsWith('/hang') && !hangAnswers) {
        hanging.push(res);
        return;
      }
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((ready) => receiver.listen(0, '127.0.0.1', () => ready()));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((done) => receiver?.close(done));
  await embedded?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  for (const alert of await alerts.all()) await alerts.delete(alert.owner, alert.id);
  received.length = 0;
  hangAnswers = false;
  onRequest = null;
  nowMs = NOW;
});

const reading = (lane: LatestReading['lane'], observedAt: string): LatestReading => ({
  portId: '250401',
  direction: 'into-us',
  mode: 'passenger',
  lane,
  status: 'open',
  delayMinutes: 20,
  lanesOpen: 5,
  maxLanes: 10,
  observedAt,
  fetchedAt: new Date(NOW).toISOString(),
  source: 'cbp',
});

async function createAlerts(
  count: number,
  webhook: (index: number) => string | null,
  prefix = 'al',
): Promise<Alert[]> {
  const created: Alert[] = [];
  for (let index = 0; index < count; index++) {
    const alert: Alert = {
      id: `${prefix}_${index}`,
      owner: `user-${index % 3}`,
      portId: '250401',
      direction: 'into-us',
      mode: 'passenger',
      lane: 'standard',
      comparison: 'below',
      thresholdMinutes: 60,
      cooldownMinutes: 0,
      webhookUrl: webhook(index),
      createdAt: new Date(NOW - 3_600_000).toISOString(),
      lastFiredAt: null,
      lastFiredObservedAt: null,
      firings: [],
    };
    await alerts.put(alert);
    created.push(alert);
  }
  return created;
}

const evaluate = (deadlineMs = 10_000, store: AlertStore = alerts) =>
  evaluateAlerts({
    alerts: store,
    latest: embedded.stores.latest,
    delivery,
    clock,
    policy: { attempts: 4, backoffMs: 1_000, concurrency: 8, deadlineMs },
  });

describe('alert evaluation', () => {
  beforeAll(async () => {
    await embedded.stores.latest.putReadings([reading('standard', new Date(NOW - 5 * MINUTE).toISOString())]);
  });

  it('creating an alert never overwrites one with the same id', async () => {
    const [alert] = await createAlerts(1, () => null);
    await expect(alerts.put({ ...(alert as Alert), thresholdMinutes: 1 })).rejects.toThrow(/conditional/i);
    expect((await alerts.get((alert as Alert).owner, 'al_0'))?.thresholdMinutes).toBe(60);
  });

  it('two overlapping evaluations fire and deliver each reading once', async () => {
    await createAlerts(6, () => `${base}/ok`);
    const [first, second] = await Promise.all([evaluate(), evaluate()]);
    expect((first?.fired.length ?? 0) + (second?.fired.length ?? 0)).toBe(6);
    expect(received.map((r) => r.alertId).sort()).toEqual(['al_0', 'al_1', 'al_2', 'al_3', 'al_4', 'al_5']);
    for (const alert of await alerts.all()) {
      expect(alert.firings).toHaveLength(1);
      expect(alert.firings[0]?.delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    }
    // Evaluated again on the same reading: nothing fires, nothing is sent.
    await evaluate();
    expect(received).toHaveLength(6);
  });

  it('two hanging webhooks stop at the deadline; the other alerts still fire; the retries carry over', async () => {
    await createAlerts(12, (index) => (index < 2 ? `${base}/hang/${index}` : `${base}/ok/${index}`));
    const started = performance.now();
    const result = await evaluate(2_500);
    const elapsed = performance.now() - started;
    // Held by the deadline, not by the receivers: one hanging attempt alone may take 5 s.
    expect(elapsed).toBeLessThan(5_000);
    expect(result.fired).toHaveLength(12);
    expect(received.filter((r) => r.path.startsWith('/ok'))).toHaveLength(10);
    const stored = await alerts.all();
    const byId = new Map(stored.map((a) => [a.id, a]));
    for (const id of ['al_0', 'al_1']) {
      expect(byId.get(id)?.firings[0]?.delivery).toMatchObject({
        status: 'pending',
        attempts: 1,
        error: 'timed out',
      });
    }
    for (let index = 2; index < 12; index++) {
      expect(byId.get(`al_${index}`)?.firings[0]?.delivery.status).toBe('delivered');
    }
    expect(result.pending).toBe(2);

    // The next cycle, once the retry is due: the receivers answer now; same firing, same id.
    hangAnswers = true;
    for (const res of hanging.splice(0)) res.destroy();
    nowMs = NOW + 2 * MINUTE;
    const next = await evaluate(5_000);
    expect(next.fired).toHaveLength(0);
    const retried = received.filter((r) => r.path.startsWith('/hang'));
    expect(retried).toHaveLength(4);
    // A retry carries the firing's webhook-id, so a receiver can tell it from a new firing.
    for (const id of ['al_0', 'al_1']) {
      const ids = retried.filter((r) => r.alertId === id).map((r) => r.webhookId);
      expect(ids).toHaveLength(2);
      expect(ids[0]).toBe(ids[1]);
    }
    for (const id of ['al_0', 'al_1']) {
      const alert = await alerts.get(byId.get(id)?.owner ?? '', id);
      expect(alert?.firings).toHaveLength(1);
      expect(alert?.firings[0]?.delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    }
  }, 30_000);

  it('a retry carried over and a new firing of the same alert are both delivered in one evaluation', async () => {
    await createAlerts(1, () => `${base}/hang/both`);
    await evaluate(2_000);
    expect((await alerts.all())[0]?.firings[0]?.delivery).toMatchObject({ status: 'pending', attempts: 1 });
    hangAnswers = true;
    for (const res of hanging.splice(0)) res.destroy();
    // A newer reading arrives and the earlier firing's retry is due: the new firing goes first in
    // the list, and the retry still lands on its own firing.
    nowMs = NOW + 5 * MINUTE;
    await embedded.stores.latest.putReadings([reading('standard', new Date(NOW - MINUTE).toISOString())]);
    try {
      const result = await evaluate(5_000);
      expect(result.fired).toHaveLength(1);
      const [alert] = await alerts.all();
      expect(alert?.firings.map((f) => [f.delivery.status, f.delivery.attempts])).toEqual([
        ['delivered', 1],
        ['delivered', 2],
      ]);
      expect(new Set(received.map((r) => r.webhookId)).size).toBe(2);
    } finally {
      await embedded.stores.latest.putReadings([
        reading('standard', new Date(NOW - 5 * MINUTE).toISOString()),
      ]);
    }
  });

  it('a deleted alert stays deleted while its delivery is in flight', async () => {
    const [alert] = await createAlerts(1, () => `${base}/hang/deleted`);
    const owner = (alert as Alert).owner;
    const arrived = new Promise<void>((done) => {
      onRequest = () => done();
    });
    const evaluation = evaluate(10_000);
    await arrived;
    expect(await alerts.delete(owner, 'al_0')).toBe(true);
    const res = hanging.pop();
    res?.writeHead(204);
    res?.end();
    const result = await evaluation;
    expect(result.fired).toHaveLength(1);
    expect(await alerts.get(owner, 'al_0')).toBeUndefined();
    expect(await alerts.all()).toHaveLength(0);
  });

  it('an alert deleted between the scan and the firing never fires', async () => {
    await createAlerts(2, () => `${base}/ok`);
    // Fault: the owner deletes al_0 just after the evaluation listed it.
    const racing: AlertStore = {
      ...alerts,
      all: async () => {
        const listed = await alerts.all();
        await alerts.delete(listed.find((a) => a.id === 'al_0')?.owner ?? '', 'al_0');
        return listed;
      },
    };
    const result = await evaluate(5_000, racing);
    expect(result.fired.map((f) => f.alertId)).toEqual(['al_1']);
    expect(received.map((r) => r.alertId)).toEqual(['al_1']);
    expect((await alerts.all()).map((a) => a.id)).toEqual(['al_1']);
  });
});
