/**
 * `npm run bench -- alerts`: the median time of one alert evaluation on the embedded stores with
 * 200 alerts whose webhooks answer at once (the default 15 s deadline), and the same with two
 * receivers that never answer (bounded by a 2 s deadline instead of the receivers' timeouts), each
 * with how many deliveries were left pending for the next cycle.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAlertStore } from '../../functions/adapters/dynamo/alerts.ts';
import { createWebhookDelivery } from '../../functions/adapters/webhook/deliver.ts';
import { type Alert, evaluateAlerts } from '../../functions/core/alerts/alerts.ts';
import { startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { TABLES } from '../../infra/manifest.ts';
import { median } from './_stats.ts';

const ALERTS = 200;
const RUNS = 5;
const DEADLINE_MS = 2_000;
let nowMs = Date.parse('2026-11-18T18:00:00Z');
const clock = { now: () => nowMs };

const dataDir = await mkdtemp(join(tmpdir(), 'bench-alerts-'));
const embedded = await startEmbeddedStores(dataDir, clock);
const receiver = createServer((req, res) => {
  req.resume();
  if (req.url?.startsWith('/hang')) return;
  req.on('end', () => {
    res.writeHead(204);
    res.end();
  });
});
await new Promise<void>((ready) => receiver.listen(0, '127.0.0.1', () => ready()));
const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const alerts = createAlertStore(embedded.stores.dynamo, TABLES.alerts.name);
const delivery = createWebhookDelivery({
  allowPrivate: true,
  timeoutMs: 5_000,
  signingKey: 'a-bench-signing-key-of-at-least-32-characters',
});

async function run(hanging: number, deadlineMs: number): Promise<{ times: number[]; pending: number[] }> {
  const times: number[] = [];
  const pending: number[] = [];
  for (let round = 0; round < RUNS; round++) {
    for (const alert of await alerts.all()) await alerts.delete(alert.owner, alert.id);
    for (let index = 0; index < ALERTS; index++) {
      const alert: Alert = {
        id: `al_${index}`,
        owner: `user-${index % 20}`,
        portId: '250401',
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        comparison: 'below',
        thresholdMinutes: 1440,
        cooldownMinutes: 0,
        webhookUrl: index < hanging ? `${base}/hang` : `${base}/ok`,
        createdAt: new Date(nowMs).toISOString(),
        lastFiredAt: null,
        lastFiredObservedAt: null,
        firings: [],
      };
      await alerts.put(alert);
    }
    nowMs += 60_000;
    await embedded.stores.latest.putReadings([
      {
        portId: '250401',
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        status: 'open',
        delayMinutes: 20,
        lanesOpen: 5,
        maxLanes: 10,
        observedAt: new Date(nowMs - 60_000).toISOString(),
        fetchedAt: new Date(nowMs).toISOString(),
        source: 'cbp',
      },
    ]);
    const started = performance.now();
    const result = await evaluateAlerts({
      alerts,
      latest: embedded.stores.latest,
      delivery,
      clock,
      policy: { deadlineMs },
    });
    times.push(performance.now() - started);
    pending.push(result.pending);
    if (result.fired.length !== ALERTS)
      throw new Error(`expected ${ALERTS} firings, got ${result.fired.length}`);
  }
  return { times, pending };
}

try {
  const fast = await run(0, 15_000);
  const hung = await run(2, DEADLINE_MS);
  console.log(
    `alert evaluation, ${ALERTS} alerts firing, webhooks answering: median ${median(fast.times).toFixed(0)} ms ` +
      `(left pending: median ${median(fast.pending)})`,
  );
  console.log(
    `same with 2 receivers that never answer (deadline ${DEADLINE_MS} ms, attempt timeout 5000 ms): ` +
      `median ${median(hung.times).toFixed(0)} ms (left pending: median ${median(hung.pending)})`,
  );
} finally {
  receiver.closeAllConnections();
  receiver.close();
  await embedded.stop();
  await rm(dataDir, { recursive: true, force: true });
}
