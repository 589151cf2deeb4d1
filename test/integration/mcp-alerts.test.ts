/**
 * Pro alerts end to end: created through MCP, evaluated by the ingest, delivered to a webhook on
 * loopback (allowed here by the test-only ALERT_WEBHOOK_ALLOW_PRIVATE) that fails first, signed
 * with HMAC-SHA256; and Business exports, inline and through a presigned S3 link.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../infra/manifest.ts';
import { callTool, structured, tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:00Z');
const MINUTE = 60_000;

interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  answered: number;
}

let stack: TestStack;
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
let failuresLeft = 0;
let proToken: string;
let businessToken: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const answered = failuresLeft > 0 ? 500 : 204;
      if (failuresLeft > 0) failuresLeft -= 1;
      deliveries.push({ headers: req.headers, body, answered });
      res.writeHead(answered);
      res.end();
    });
  });
  await new Promise<void>((ready) => receiver.listen(0, '127.0.0.1', () => ready()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  stack = await startStack({
    atMs: AT,
    env: {
      ALERT_WEBHOOK_ALLOW_PRIVATE: 'true',
      ALERT_WEBHOOK_BACKOFF_MS: '5',
      ALERT_WEBHOOK_ATTEMPTS: '3',
      EXPORT_INLINE_MAX_BYTES: '4000',
    },
  });
  await stack.service.ingestNow();
  proToken = await tokenFor(stack, 'pro');
  businessToken = await tokenFor(stack, 'business');
});
afterAll(async () => {
  await stack?.stop();
  receiver?.closeAllConnections();
  await new Promise((done) => receiver?.close(done));
});

function verifySignature(header: string, body: string, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2] ?? '', 'hex'));
}

async function listAlerts() {
  const { body } = await callTool(stack, '2026-07-28', 'list_alerts', {}, proToken);
  return structured<{
    alerts: {
      id: string;
      firings: {
        delayMinutes: number;
        observedAt: string;
        delivery: { status: string; attempts: number };
      }[];
    }[];
  }>({ body }).alerts;
}

describe('an alert on a lane', () => {
  let alertId = '';
  let neverId = '';
  let secret = '';

  it('is created with a webhook secret shown once', async () => {
    failuresLeft = 1;
    const created = await callTool(
      stack,
      '2025-11-25',
      'create_alert',
      {
        port_id: 'san-ysidro',
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        comparison: 'below',
        threshold_minutes: 1440,
        cooldown_minutes: 60,
        webhook_url: receiverUrl,
      },
      proToken,
    );
    const body = created.body?.result?.structuredContent as { alert: { id: string }; webhookSecret: string };
    expect(created.body?.result?.isError).toBeFalsy();
    alertId = body.alert.id;
    secret = body.webhookSecret;
    expect(secret).toMatch(/^whsec_/);
    const never = await callTool(
      stack,
      '2025-11-25',
      'create_alert',
      { port_id: '250401', direction: 'into-us', comparison: 'below', threshold_minutes: 0 },
      proToken,
    );
    neverId = structured<{ alert: { id: string } }>(never).alert.id;
    expect(JSON.stringify(await listAlerts())).not.toContain('whsec_');
    // The secret is derived when needed, never stored: the alerts table holds none of it.
    const scan = await new DynamoDBClient({
      endpoint: stack.service.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }).send(new ScanCommand({ TableName: TABLES.alerts.name }));
    expect(scan.Items?.length).toBeGreaterThanOrEqual(2);
    const stored = JSON.stringify(scan.Items);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(6, 20));
  });

  it.each([
    [
      { mode: 'passenger', lane: 'nexus' },
      /San Ysidro has no into-us passenger nexus lane; its into-us passenger lanes: standard, ready, sentri/,
    ],
    [{ mode: 'pedestrian', lane: 'sentri' }, /its into-us pedestrian lanes: standard, ready\./],
    [{ mode: 'commercial', lane: 'ready' }, /its into-us commercial lanes: standard, fast\./],
  ])(
    'refuses a lane the port does not publish (%j), naming the ones it has, and stores nothing',
    async (lane, message) => {
      const before = (await listAlerts()).length;
      const refused = await callTool(
        stack,
        '2025-11-25',
        'create_alert',
        { port_id: 'san-ysidro', direction: 'into-us', ...lane, threshold_minutes: 30 },
        proToken,
      );
      expect(refused.body?.result?.isError).toBe(true);
      expect(JSON.stringify(refused.body?.result?.content)).toMatch(message);
      expect((await listAlerts()).length).toBe(before);
    },
  );

  it('fires once when the threshold is crossed after an ingest, delivered signed after a retry', async () => {
    stack.clock.set(AT + 5 * MINUTE);
    await stack.service.ingestNow();
    expect(deliveries.map((d) => d.answered)).toEqual([500, 204]);
    const [first, second] = deliveries;
    expect(first?.headers['webhook-id']).toBe(second?.headers['webhook-id']);
    const delivered = second as Delivery;
    expect(verifySignature(String(delivered.headers['webhook-signature']), delivered.body, secret)).toBe(
      true,
    );
    expect(
      verifySignature(String(delivered.headers['webhook-signature']), `${delivered.body} `, secret),
    ).toBe(false);
    const payload = JSON.parse(delivered.body) as {
      type: string;
      alert: { id: string };
      firing: { delayMinutes: number };
    };
    expect(payload).toMatchObject({ type: 'alert.fired', alert: { id: alertId } });
    const alerts = await listAlerts();
    const fired = alerts.find((a) => a.id === alertId);
    expect(fired?.firings).toHaveLength(1);
    expect(fired?.firings[0]?.delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(fired?.firings[0]?.delayMinutes).toBe(payload.firing.delayMinutes);
    expect(alerts.find((a) => a.id === neverId)?.firings).toHaveLength(0);
  });

  it('does not fire again within the cooldown', async () => {
    stack.clock.set(AT + 20 * MINUTE);
    await stack.service.ingestNow();
    expect(deliveries).toHaveLength(2);
    expect((await listAlerts()).find((a) => a.id === alertId)?.firings).toHaveLength(1);
  });

  it('never fires on stale data, even after the cooldown', async () => {
    stack.simulator.setFault('cbp', { kind: 'status', status: 503 });
    try {
      stack.clock.set(AT + 20 * MINUTE + 120 * MINUTE);
      const outcomes = await stack.service.ingestNow();
      expect(outcomes.find((o) => o.source === 'cbp')?.outcome).toBe('failed');
      const current = await callTool(stack, '2026-07-28', 'get_current_waits', {
        port_id: '250401',
        mode: 'passenger',
        lane: 'standard',
      });
      const lanes = structured<{ lanes: { freshness: string }[] }>(current).lanes;
      expect(lanes[0]?.freshness).toBe('stale');
      expect(deliveries).toHaveLength(2);
      expect((await listAlerts()).find((a) => a.id === alertId)?.firings).toHaveLength(1);
    } finally {
      stack.simulator.setFault('cbp', null);
    }
  });

  it('fires again on fresh data once the cooldown is over', async () => {
    stack.clock.set(AT + 20 * MINUTE + 121 * MINUTE);
    await stack.service.ingestNow();
    expect(deliveries).toHaveLength(3);
    expect((await listAlerts()).find((a) => a.id === alertId)?.firings).toHaveLength(2);
  });

  it('a webhook that keeps failing is retried with backoff, then recorded as failed', async () => {
    failuresLeft = 10;
    const created = await callTool(
      stack,
      '2026-07-28',
      'create_alert',
      {
        port_id: '250401',
        direction: 'into-us',
        comparison: 'below',
        threshold_minutes: 1440,
        webhook_url: `${receiverUrl}?always-failing`,
      },
      proToken,
    );
    const id = structured<{ alert: { id: string } }>(created).alert.id;
    stack.clock.set(AT + 20 * MINUTE + 125 * MINUTE);
    await stack.service.ingestNow();
    expect(deliveries.filter((d) => d.answered === 500)).toHaveLength(1 + 3);
    const firing = (await listAlerts()).find((a) => a.id === id)?.firings[0];
    expect(firing?.delivery).toMatchObject({ status: 'failed', attempts: 3 });
    failuresLeft = 0;
  });
});

describe('export_observations', () => {
  it('returns a small export inline as an embedded resource', async () => {
    const { body } = await callTool(
      stack,
      '2026-07-28',
      'export_observations',
      { port_ids: ['250401'], hours: 1, mode: 'passenger', lane: 'standard', format: 'csv' },
      businessToken,
    );
    const result = body?.result;
    expect(result?.isError).toBeFalsy();
    expect(result?.structuredContent).toMatchObject({ delivery: 'inline', url: null, format: 'csv' });
    const resource = (
      (result?.content ?? []) as { type: string; resource?: { text: string; mimeType: string } }[]
    ).find((c) => c.type === 'resource');
    expect(resource?.resource?.mimeType).toBe('text/csv');
    const lines = resource?.resource?.text.trim().split('\r\n') ?? [];
    expect(lines[0]).toBe(
      'portId,direction,mode,lane,status,delayMinutes,lanesOpen,maxLanes,observedAt,source',
    );
    expect(lines.length - 1).toBe(structured<{ rows: number }>({ body }).rows);
  });

  it('returns a large export as a resource link to a short-lived S3 URL', async () => {
    const { body } = await callTool(
      stack,
      '2025-11-25',
      'export_observations',
      { port_ids: ['250401', '250601', '090101'], hours: 336, format: 'json' },
      businessToken,
    );
    const result = body?.result;
    expect(result?.isError).toBeFalsy();
    const structured = result?.structuredContent as {
      delivery: string;
      url: string;
      rows: number;
      bytes: number;
    };
    expect(structured.delivery).toBe('link');
    const link = ((result?.content ?? []) as { type: string; uri?: string }[]).find(
      (c) => c.type === 'resource_link',
    );
    expect(link?.uri).toBe(structured.url);
    expect(new URL(structured.url).searchParams.get('X-Amz-Expires')).toBe('900');
    const download = await fetch(structured.url);
    expect(download.status).toBe(200);
    const exported = (await download.json()) as { observations: unknown[]; ports: string[] };
    expect(exported.ports).toEqual(['250401', '250601', '090101']);
    expect(exported.observations).toHaveLength(structured.rows);
  });

  it('is bounded in ports', async () => {
    const { body } = await callTool(
      stack,
      '2026-07-28',
      'export_observations',
      { port_ids: Array.from({ length: 11 }, (_, i) => `25040${i}`) },
      businessToken,
    );
    expect(body?.result?.isError).toBe(true);
  });
});
