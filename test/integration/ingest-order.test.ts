/**
 * One ingest at a time, and no going back: two concurrent ingest functions give the data of one
 * (the second exits at once and says why) and deliver each firing once; an older or replayed
 * feed document moves nothing back; feed health refuses a write over a version it did not read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertStore } from '../../functions/adapters/dynamo/alerts.ts';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createHealthStore } from '../../functions/adapters/dynamo/health.ts';
import { createFileSecretSource } from '../../functions/adapters/secrets/files.ts';
import type { Alert } from '../../functions/core/alerts/alerts.ts';
import { ConcurrentUpdateError } from '../../functions/core/errors.ts';
import type { SourceOutcome } from '../../functions/core/ingest/ingest.ts';
import { createIngestHandler } from '../../functions/handlers/ingest.ts';
import { lambdaContext } from '../../infra/local/lambda-context.ts';
import { FUNCTIONS, TABLES } from '../../infra/manifest.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');
const MINUTE = 60_000;
/** An automated port: its passenger lanes publish every 5 minutes. */
const PORT = '090101';

let receiver: Server;
let receiverUrl = '';
const deliveries: string[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      deliveries.push(body);
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((ready) => receiver.listen(0, '127.0.0.1', () => ready()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((done) => receiver?.close(done));
});

const ENV = { ALERT_WEBHOOK_ALLOW_PRIVATE: 'true', ALERT_WEBHOOK_BACKOFF_MS: '5' };

/** Every document a user reads after a cycle (feed health aside: it records durations). */
async function published(stack: TestStack): Promise<Record<string, string>> {
  const paths = [
    '/api/v1/ports',
    '/api/v1/port-current',
    '/api/v1/port-current?include=ports',
    `/api/v1/port-hourly-averages?port_id=${PORT}`,
    '/api/v1/port-hourly-averages?port_id=250401',
    '/v1/events.json',
    '/rss.xml',
  ];
  const result: Record<string, string> = {};
  for (const path of paths) {
    const response = await stack.get(path);
    result[path] = `${response.status} ${await response.text()}`;
  }
  const observations = await stack.json<{ count: number }>(
    `/api/v1/wait-observations?port_id=${PORT}&hours=336`,
  );
  result.observations = String(observations.body.count);
  return result;
}

async function addAlert(stack: TestStack, id: string, webhookUrl = `${receiverUrl}?${id}`): Promise<Alert> {
  const doc = createDocumentClient({ endpoint: stack.service.endpoints.dynamodb });
  try {
    const alert: Alert = {
      id,
      owner: 'user-1',
      portId: PORT,
      direction: 'into-us',
      mode: 'passenger',
      lane: 'standard',
      comparison: 'below',
      thresholdMinutes: 1440,
      cooldownMinutes: 0,
      webhookUrl,
      createdAt: new Date(AT - 3_600_000).toISOString(),
      lastFiredAt: null,
      lastFiredObservedAt: null,
      firings: [],
    };
    await createAlertStore(doc, TABLES.alerts.name).put(alert);
    return alert;
  } finally {
    doc.destroy();
  }
}

/** A second, independent ingest function on the same stores (another Lambda instance). */
function anotherInstance(stack: TestStack, log: (line: string) => void) {
  const handler = createIngestHandler(
    {
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_DYNAMODB: stack.service.endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: stack.service.endpoints.s3,
      CBP_FEED_URL: stack.simulator.cbpXmlUrl,
      CBSA_FEED_URL: stack.simulator.cbsaEnUrl,
      FEED_TIMEOUT_MS: '1500',
      ...ENV,
    },
    { clock: stack.clock, log, secrets: createFileSecretSource(stack.service.dataDir) },
  );
  return (): Promise<SourceOutcome[]> =>
    handler({} as never, lambdaContext(FUNCTIONS.ingest.name, FUNCTIONS.ingest.timeoutSeconds));
}

describe('one ingest at a time', () => {
  let single: Record<string, string>;

  beforeAll(async () => {
    const stack = await startStack({ atMs: AT, env: ENV });
    try {
      await stack.service.ingestNow();
      single = await published(stack);
    } finally {
      await stack.stop();
    }
  }, 120_000);

  it('two concurrent ingests give the data of one, and deliver each firing once', async () => {
    const stack = await startStack({ atMs: AT, env: ENV });
    try {
      await addAlert(stack, 'al_concurrent');
      deliveries.length = 0;
      const logs: string[] = [];
      const [first, second] = await Promise.all([
        anotherInstance(stack, (line) => logs.push(`A ${line}`))(),
        anotherInstance(stack, (line) => logs.push(`B ${line}`))(),
      ]);
      // One ran both sources; the other exited at once and said why.
      expect([first?.length, second?.length].sort()).toEqual([0, 2]);
      expect(
        logs.filter((line) => /ingest: skipped: another ingest cycle .* holds the lease until/.test(line)),
      ).toHaveLength(1);
      expect(await published(stack)).toEqual(single);
      expect(deliveries.filter((body) => body.includes('al_concurrent'))).toHaveLength(1);
      // The lease was given back: the next cycle runs.
      stack.clock.set(AT + 5 * MINUTE);
      expect(await anotherInstance(stack, () => {})()).toHaveLength(2);
    } finally {
      await stack.stop();
    }
  }, 120_000);

  it('feed health refuses a write over a version it did not read', async () => {
    const stack = await startStack({ atMs: AT, env: ENV });
    const doc = createDocumentClient({ endpoint: stack.service.endpoints.dynamodb });
    try {
      await stack.service.ingestNow();
      const health = createHealthStore(doc, TABLES.health.name);
      const mine = await health.get('cbp');
      const theirs = await health.get('cbp');
      if (!mine || !theirs) throw new Error('feed health expected after a cycle');
      expect(await health.put({ ...theirs, lastError: null })).toBe((theirs.version ?? 0) + 1);
      await expect(health.put({ ...mine, pendingEvents: [] })).rejects.toBeInstanceOf(ConcurrentUpdateError);
      expect((await health.get('cbp'))?.version).toBe((theirs.version ?? 0) + 1);
    } finally {
      doc.destroy();
      await stack.stop();
    }
  }, 120_000);
});

describe('update pending', () => {
  it('a lane with a timed reading keeps it while CBP says "update pending", and moves on with the next reading', async () => {
    // The simulator's CBP page says "Update Pending" for some lanes in the second half of each
    // minute of these hours, and gives their timed reading again in the first half.
    const stack = await startStack({ atMs: Date.parse('2026-11-26T05:01:00Z'), ports: ['010401', '070101'] });
    try {
      type Lane = {
        portId: string;
        direction: string;
        mode: string;
        lane: string;
        status: string;
        observedAt: string | null;
      };
      const lanes = async () =>
        (await stack.json<{ current: Lane[] }>('/api/v1/port-current')).body.current.filter(
          (l) => l.direction === 'into-us' && l.status !== 'not-applicable',
        );
      await stack.service.ingestNow();
      const timed = (await lanes()).filter((l) => l.observedAt !== null);
      expect(timed.length).toBeGreaterThan(0);
      stack.clock.set(Date.parse('2026-11-26T05:01:30Z'));
      const pending = await stack.service.ingestNow();
      expect(pending.find((o) => o.source === 'cbp')?.outcome).toBe('stored');
      const after = await lanes();
      for (const lane of timed) {
        const now = after.find(
          (l) => l.portId === lane.portId && l.mode === lane.mode && l.lane === lane.lane,
        );
        expect(now?.observedAt, `${lane.portId} ${lane.mode} ${lane.lane}`).toBe(lane.observedAt);
      }
      stack.clock.set(Date.parse('2026-11-26T06:05:00Z'));
      await stack.service.ingestNow();
      const next = (await lanes()).filter((l) => l.observedAt !== null);
      expect(next.some((l) => (l.observedAt ?? '') > (timed[0]?.observedAt ?? ''))).toBe(true);
    } finally {
      await stack.stop();
    }
  }, 120_000);
});

describe('no going back', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack({ atMs: AT, env: ENV });
  }, 60_000);
  afterAll(() => stack?.stop());

  interface Lanes {
    ports: {
      id: string;
      current: {
        status: string;
        lanes: {
          direction: string;
          lane: string;
          mode: string;
          observedAt: string | null;
          delayMinutes: number | null;
        }[];
      };
    }[];
  }
  const lanes = async () => {
    const { body } = await stack.json<Lanes>('/api/v1/port-current?include=ports');
    return body.ports.map((p) => ({
      id: p.id,
      status: p.current.status,
      lanes: p.current.lanes.map((l) => [l.direction, l.mode, l.lane, l.observedAt, l.delayMinutes]),
    }));
  };
  const events = async () => (await stack.json<{ count: number }>('/v1/events.json')).body.count;

  it('an older document, then a replayed one, move nothing back and fire nothing', async () => {
    await addAlert(stack, 'al_forward');
    deliveries.length = 0;
    await stack.service.ingestNow();
    expect(deliveries).toHaveLength(1);
    const before = await lanes();
    const eventsBefore = await events();
    const latest = before
      .find((p) => p.id === PORT)
      ?.lanes.find((l) => l[0] === 'into-us' && l[1] === 'passenger' && l[2] === 'standard');
    expect(latest?.[3]).toBeTruthy();

    // The feed serves a document ten minutes older (a stale cache), then one from 13:00.
    for (const documentAt of [AT - 10 * MINUTE, Date.parse('2026-11-18T13:00:00Z')]) {
      stack.simulator.setClock(documentAt);
      const outcomes = await stack.service.ingestNow();
      expect(outcomes.find((o) => o.source === 'cbp')?.outcome).toBe('stored');
      expect(await lanes()).toEqual(before);
      expect(await events()).toBe(eventsBefore);
      expect(deliveries).toHaveLength(1);
    }
    expect(stack.logs.some((line) => /is older than the last one .* latest left as it was/.test(line))).toBe(
      true,
    );

    // The observations those documents carried are kept: history gains, latest does not move.
    const observations = await stack.json<{ observations: { observedAt: string }[] }>(
      `/api/v1/wait-observations?port_id=${PORT}&hours=24&mode=passenger&lane=standard`,
    );
    expect(observations.body.observations.some((o) => o.observedAt < String(latest?.[3]))).toBe(true);

    // The feed moves on again: latest follows, and the alert fires on the new reading.
    stack.clock.set(AT + 10 * MINUTE);
    await stack.service.ingestNow();
    const after = (await lanes())
      .find((p) => p.id === PORT)
      ?.lanes.find((l) => l[0] === 'into-us' && l[1] === 'passenger' && l[2] === 'standard');
    expect(String(after?.[3]) > String(latest?.[3])).toBe(true);
    expect(deliveries).toHaveLength(2);
  }, 120_000);
});

describe('alerts off the critical path', () => {
  it('two hanging webhooks keep the ingest inside its budget, and the other alerts still fire', async () => {
    // A receiver that takes every request and never answers.
    const hanging = createServer(() => {});
    await new Promise<void>((ready) => hanging.listen(0, '127.0.0.1', () => ready()));
    const hangUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`;
    // The production retry settings (5 s per attempt, 4 attempts, 1 s doubling): one hanging
    // receiver delivered in line would cost 27 s, two of them more than the 50 s budget.
    const stack = await startStack({
      atMs: AT,
      env: { ALERT_WEBHOOK_ALLOW_PRIVATE: 'true', ALERT_DELIVERY_DEADLINE_MS: '2000' },
    });
    try {
      await addAlert(stack, 'al_hang_1', hangUrl);
      await addAlert(stack, 'al_hang_2', hangUrl);
      for (const id of ['al_ok_1', 'al_ok_2', 'al_ok_3']) await addAlert(stack, id);
      deliveries.length = 0;
      const started = performance.now();
      const outcomes = await stack.service.ingestNow();
      const elapsed = performance.now() - started;
      expect(outcomes.map((o) => o.outcome)).toEqual(['stored', 'stored']);
      expect(elapsed).toBeLessThan(FUNCTIONS.ingest.timeoutSeconds * 1000);
      for (const id of ['al_ok_1', 'al_ok_2', 'al_ok_3']) {
        expect(deliveries.filter((body) => body.includes(id))).toHaveLength(1);
      }
      expect(stack.logs.filter((line) => /al_hang_\d fired .*webhook pending/.test(line))).toHaveLength(2);
    } finally {
      await stack.stop();
      hanging.closeAllConnections();
      await new Promise((done) => hanging.close(done));
    }
  }, 180_000);
});
