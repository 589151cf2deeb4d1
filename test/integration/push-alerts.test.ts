/**
 * Travellers' push alerts end to end: the local runtime (edge, gateway, api and ingest functions,
 * dynalite) against a stand-in push service on loopback over TLS with this test's own CA, which
 * checks each message's VAPID signature and decrypts its payload (infra/local/push-service.ts,
 * RFC 8291/8292 on node:crypto alone). The simulator publishes San Ysidro only; the watched lanes
 * are Otay Mesa's, whose readings the test writes into `latest` itself before each ingest, so a
 * dip is exactly what the test says it is. Every /push response is checked against the served
 * OpenAPI document.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/adapters/dynamo/client.ts';
import { createLatestStore } from '../../functions/adapters/dynamo/latest.ts';
import type { Lane, LatestReading, Mode } from '../../functions/core/model.ts';
import { type PushServiceStandIn, startPushService } from '../../infra/local/push-service.ts';
import { TABLES } from '../../infra/manifest.ts';
import { withContract } from './contract.ts';
import { startStack, type TestStack } from './stack.ts';

/** 12:10 in San Diego (PST): quiet hours 11:00-13:00 cover it, 22:00-06:00 do not. */
const AT = Date.parse('2026-11-18T20:10:00Z');
const OTAY = '250601';
const DEADLINE_MS = 2_000;

interface Created {
  id: string;
  token: string;
  expiresAt: string;
}

describe('push alerts against a stand-in push service over TLS', { timeout: 120_000 }, () => {
  let push: PushServiceStandIn;
  let stack: TestStack;
  let publicKey: string;
  const doc = () => createDocumentClient({ endpoint: stack.service.endpoints.dynamodb });

  beforeAll(async () => {
    push = await startPushService();
    stack = await withContract(
      await startStack({
        atMs: AT,
        ports: ['250401'],
        pushCa: push.ca.caPem,
        env: {
          PUSH_SERVICE_HOSTS: push.host,
          PUSH_TIMEOUT_MS: '1500',
          ALERT_DELIVERY_DEADLINE_MS: String(DEADLINE_MS),
          EDGE_RATE_LIMIT_PER_MINUTE: '100000',
          PUBLIC_RATE_LIMIT_PER_MINUTE: '100000',
          PUSH_SUBSCRIPTIONS_PER_HOUR: '60',
        },
      }),
    );
    await stack.service.ingestNow();
    const key = await stack.json<{ publicKey: string }>('/push/vapid-public-key');
    expect(key.status).toBe(200);
    publicKey = key.body.publicKey;
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    await push?.stop();
  });

  async function subscribe(
    alert: { mode?: Mode; lane?: Lane; below?: number; quiet?: { from: string; to: string } },
    lang = 'en',
    subscription = push.subscribe(publicKey),
  ) {
    const response = await stack.json<Created>('/push/subscriptions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        subscription,
        alert: {
          port_id: OTAY,
          direction: 'into-us',
          mode: alert.mode ?? 'passenger',
          lane: alert.lane ?? 'standard',
          below_minutes: alert.below ?? 30,
          ...(alert.quiet ? { quiet: alert.quiet } : {}),
        },
        lang,
      }),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return { ...response.body, endpoint: subscription.endpoint, subscription };
  }

  /** Five minutes on, a new Otay Mesa reading of `delay` minutes on the lane, then one ingest. */
  async function cycle(lane: { mode: Mode; lane: Lane }, delay: number, ageMinutes = 0) {
    stack.clock.set(stack.clock.now() + 5 * 60_000);
    const now = stack.clock.now();
    const reading: LatestReading = {
      portId: OTAY,
      direction: 'into-us',
      mode: lane.mode,
      lane: lane.lane,
      status: 'open',
      delayMinutes: delay,
      lanesOpen: 4,
      maxLanes: 10,
      observedAt: new Date(now - ageMinutes * 60_000).toISOString(),
      source: 'cbp',
      fetchedAt: new Date(now).toISOString(),
    };
    await createLatestStore(doc(), TABLES.latest.name).putReadings([reading]);
    await stack.service.ingestNow();
  }

  const deleteAlert = (id: string, token: string) =>
    stack.get(`/push/subscriptions/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });

  it('serves the VAPID public key as an uncompressed P-256 point, and every message verifies against it', () => {
    const point = Buffer.from(publicKey, 'base64url');
    expect(point).toHaveLength(65);
    expect(point[0]).toBe(4);
  });

  it('sends exactly one message per dip over several new readings, in the subscription language', async () => {
    const lane = { mode: 'passenger', lane: 'standard' } as const;
    const alert = await subscribe({ ...lane, below: 30 }, 'es');
    await cycle(lane, 45);
    expect(push.messages(alert.endpoint)).toHaveLength(0);
    for (const delay of [25, 20, 12]) await cycle(lane, delay);
    expect(push.messages(alert.endpoint)).toHaveLength(1);
    // Back to the threshold re-arms it; the next dip is a new message.
    await cycle(lane, 30);
    await cycle(lane, 28);
    await cycle(lane, 22);
    const messages = push.messages(alert.endpoint);
    expect(messages).toHaveLength(2);
    expect(messages[0]?.payload).toEqual({
      title: 'Otay Mesa (Passenger): 25 min',
      body: expect.stringMatching(/^Hacia EE\. UU\., vehículos estándar: 25 min, menos de sus 30 min/),
      url: '/es/ports/otay-mesa-passenger/',
      tag: alert.id,
      lang: 'es',
    });
    expect(messages[1]?.payload).toMatchObject({ title: 'Otay Mesa (Passenger): 28 min' });
    expect(messages[0]?.ttl).toBeGreaterThan(0);
    expect(push.refusals()).toEqual([]);
    expect((await deleteAlert(alert.id, alert.token)).status).toBe(204);
  });

  it('never sends for a stale reading', async () => {
    const lane = { mode: 'passenger', lane: 'ready' } as const;
    const alert = await subscribe({ ...lane, below: 30 });
    await cycle(lane, 10, 120);
    expect(push.messages(alert.endpoint)).toHaveLength(0);
    await cycle(lane, 10);
    expect(push.messages(alert.endpoint)).toHaveLength(1);
    expect((await deleteAlert(alert.id, alert.token)).status).toBe(204);
  });

  it('sends nothing in quiet hours (port-local time)', async () => {
    const lane = { mode: 'passenger', lane: 'sentri' } as const;
    const quiet = await subscribe({ ...lane, below: 30, quiet: { from: '11:00', to: '13:30' } });
    const night = await subscribe({ ...lane, below: 30, quiet: { from: '22:00', to: '06:00' } });
    await cycle(lane, 10);
    await cycle(lane, 9);
    expect(push.messages(quiet.endpoint)).toHaveLength(0);
    expect(push.messages(night.endpoint)).toHaveLength(1);
    for (const alert of [quiet, night]) expect((await deleteAlert(alert.id, alert.token)).status).toBe(204);
  });

  it('forgets a subscription its push service answers 410 for', async () => {
    const lane = { mode: 'pedestrian', lane: 'standard' } as const;
    const alert = await subscribe({ ...lane, below: 30 });
    const second = await subscribe({ ...lane, below: 40 }, 'fr', alert.subscription);
    push.answer(alert.endpoint, 'gone');
    await cycle(lane, 10);
    // Both alerts dipped in one evaluation: each send may have met the 410 before the first removal.
    const refused = push.refusals().filter((r) => r.endpoint === alert.endpoint);
    expect(refused.length).toBeGreaterThan(0);
    for (const refusal of refused) expect(refusal.status).toBe(410);
    await cycle(lane, 30);
    await cycle(lane, 9);
    expect(push.refusals().filter((r) => r.endpoint === alert.endpoint)).toHaveLength(refused.length);
    // Both alerts of that subscription are gone: their delete tokens find nothing.
    expect((await deleteAlert(alert.id, alert.token)).status).toBe(404);
    expect((await deleteAlert(second.id, second.token)).status).toBe(404);
    const left = await doc().send(new ScanCommand({ TableName: TABLES.pushAlerts.name }));
    expect((left.Items ?? []).filter((item) => item.endpoint === alert.endpoint)).toEqual([]);
  });

  it('stops deliveries once deleted', async () => {
    const lane = { mode: 'pedestrian', lane: 'ready' } as const;
    const alert = await subscribe({ ...lane, below: 30 });
    expect((await deleteAlert(alert.id, alert.token)).status).toBe(204);
    await cycle(lane, 5);
    expect(push.messages(alert.endpoint)).toHaveLength(0);
    expect(push.refusals().filter((r) => r.endpoint === alert.endpoint)).toEqual([]);
  });

  it('keeps the ingest inside its delivery deadline while a push service hangs', async () => {
    const lane = { mode: 'commercial', lane: 'standard' } as const;
    const hanging = await subscribe({ ...lane, below: 30 });
    const healthy = await subscribe({ ...lane, below: 30 });
    push.answer(hanging.endpoint, 'hang');
    const started = performance.now();
    await cycle(lane, 10);
    const elapsed = performance.now() - started;
    // Without the deadline the hanging request would hold the cycle forever; the bound is the
    // deadline plus a whole ordinary cycle, never a measure of speed.
    expect(elapsed).toBeLessThan(DEADLINE_MS + 20_000);
    expect(push.held()).toBe(0);
    expect(push.messages(healthy.endpoint)).toHaveLength(1);
    expect(stack.logs.some((line) => line.includes(`push alert ${hanging.id}: timed out`))).toBe(true);
    for (const alert of [hanging, healthy])
      expect((await deleteAlert(alert.id, alert.token)).status).toBe(204);
  });

  it('tries a dip again after a passing failure, three sends at most; a refusal that would repeat is not tried again', async () => {
    // The lane of the 410 test, whose alerts are gone.
    const lane = { mode: 'pedestrian', lane: 'standard' } as const;
    const recovering = await subscribe({ ...lane, below: 30 });
    const down = await subscribe({ ...lane, below: 30 });
    const refusing = await subscribe({ ...lane, below: 30 });
    push.answer(recovering.endpoint, 503);
    push.answer(down.endpoint, 503);
    push.answer(refusing.endpoint, 403);
    const refusalsOf = (alert: { endpoint: string }) =>
      push.refusals().filter((r) => r.endpoint === alert.endpoint).length;
    await cycle(lane, 10);
    expect([recovering, down, refusing].map(refusalsOf)).toEqual([1, 1, 1]);
    push.answer(recovering.endpoint, 'accept');
    // The dip lasts four more cycles.
    for (const delay of [11, 12, 11, 10]) await cycle(lane, delay);
    expect(push.messages(recovering.endpoint)).toHaveLength(1);
    expect(refusalsOf(recovering)).toBe(1);
    expect(refusalsOf(down)).toBe(3);
    expect(refusalsOf(refusing)).toBe(1);
    // The next dip, after the wait came back above the threshold, is tried afresh.
    push.answer(down.endpoint, 'accept');
    await cycle(lane, 40);
    await cycle(lane, 10);
    expect(push.messages(down.endpoint)).toHaveLength(1);
    for (const alert of [recovering, down, refusing])
      expect((await deleteAlert(alert.id, alert.token)).status).toBe(204);
  });

  it('renews an alert with its token for 90 more days; a wrong token renews nothing', async () => {
    const alert = await subscribe({ mode: 'commercial', lane: 'fast', below: 30 });
    stack.clock.set(stack.clock.now() + 86_400_000);
    const wrong = await stack.get(`/push/subscriptions/${alert.id}`, {
      method: 'PUT',
      headers: { authorization: 'Bearer pt_not-the-token' },
    });
    expect(wrong.status).toBe(404);
    const renewed = await stack.json<{ id: string; expiresAt: string }>(`/push/subscriptions/${alert.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${alert.token}` },
    });
    expect(renewed.status).toBe(200);
    expect(Date.parse(renewed.body.expiresAt) - Date.parse(alert.expiresAt)).toBe(86_400_000);
    expect((await deleteAlert(alert.id, alert.token)).status).toBe(204);
  });
  describe('refusals: the right status, a problem+json naming the field, nothing stored', () => {
    const stored = async () =>
      ((await doc().send(new ScanCommand({ TableName: TABLES.pushAlerts.name }))).Items ?? []).length;
    const post = (body: unknown, type = 'application/json') =>
      stack.json<{ type: string; status: number; errors?: { name: string; reason: string }[] }>(
        '/push/subscriptions',
        {
          method: 'POST',
          headers: { 'content-type': type },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        },
      );
    const good = () => ({
      subscription: push.subscribe(publicKey),
      alert: {
        port_id: 'otay-mesa-passenger',
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        below_minutes: 30,
      },
    });
    // Bodies are made when a case runs (the push service starts after collection).
    const withSubscription = (change: (s: ReturnType<PushServiceStandIn['subscribe']>) => unknown) => () => {
      const body = good();
      return { ...body, subscription: change(body.subscription) };
    };
    const withAlert = (change: Record<string, unknown>) => () => {
      const body = good();
      return { ...body, alert: { ...body.alert, ...change } };
    };
    const key = (p256dh: string) => (s: ReturnType<PushServiceStandIn['subscribe']>) => ({
      ...s,
      keys: { ...s.keys, p256dh },
    });

    it.each([
      [
        'a host off the list',
        withSubscription((s) => ({ ...s, endpoint: 'https://push.example.net/wpush/abc' })),
        'subscription.endpoint',
      ],
      [
        'plain http',
        withSubscription((s) => ({ ...s, endpoint: s.endpoint.replace('https:', 'http:') })),
        'subscription.endpoint',
      ],
      [
        'the right host on another port',
        withSubscription((s) => ({ ...s, endpoint: 'https://127.0.0.1:1/wpush/abc' })),
        'subscription.endpoint',
      ],
      [
        'our own network',
        withSubscription((s) => ({ ...s, endpoint: 'https://169.254.169.254/latest/meta-data' })),
        'subscription.endpoint',
      ],
      [
        'a user name in the endpoint',
        withSubscription((s) => ({ ...s, endpoint: s.endpoint.replace('https://', 'https://me@') })),
        'subscription.endpoint',
      ],
      ['a p256dh that is not base64url', withSubscription(key('not base64!')), 'subscription.keys.p256dh'],
      [
        'a p256dh of the wrong length',
        withSubscription(key(Buffer.alloc(33, 4).toString('base64url'))),
        'subscription.keys.p256dh',
      ],
      [
        'a p256dh off the curve',
        withSubscription(key(Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url'))),
        'subscription.keys.p256dh',
      ],
      [
        'an auth secret of 8 bytes',
        withSubscription((s) => ({ ...s, keys: { ...s.keys, auth: Buffer.alloc(8).toString('base64url') } })),
        'subscription.keys.auth',
      ],
      [
        'a missing key',
        withSubscription((s) => ({ endpoint: s.endpoint, keys: { auth: s.keys.auth } })),
        'subscription.keys.p256dh',
      ],
      ['no subscription', () => ({ alert: good().alert }), 'subscription'],
      ['an unknown port', withAlert({ port_id: '999999' }), 'alert.port_id'],
      ['a lane the port does not have', withAlert({ lane: 'nexus' }), 'alert.lane'],
      ['a direction the port does not have', withAlert({ direction: 'into-canada' }), 'alert.lane'],
      ['a threshold of 0', withAlert({ below_minutes: 0 }), 'alert.below_minutes'],
      ['a threshold over 240', withAlert({ below_minutes: 241 }), 'alert.below_minutes'],
      ['a threshold that is not whole', withAlert({ below_minutes: 12.5 }), 'alert.below_minutes'],
      ['quiet hours not HH:MM', withAlert({ quiet: { from: '10pm', to: '06:00' } }), 'alert.quiet.from'],
      ['an unknown language', () => ({ ...good(), lang: 'de' }), 'lang'],
    ])('refuses %s (400)', async (_what, body, field) => {
      const before = await stored();
      const response = await post(body());
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.body.type).toMatch(/problems\/invalid-body$/);
      expect(response.body.errors?.map((e) => e.name)).toContain(field);
      expect(await stored()).toBe(before);
    });

    it('refuses a body that is not JSON (415, 400)', async () => {
      const before = await stored();
      expect((await post('subscription=x', 'application/x-www-form-urlencoded')).status).toBe(415);
      expect((await post('{not json')).status).toBe(400);
      expect((await post('[]')).status).toBe(400);
      expect(await stored()).toBe(before);
    });

    it('answers a wrong delete token and an unknown id alike (404, no oracle), and deletes nothing', async () => {
      const alert = await subscribe({ mode: 'commercial', lane: 'fast' });
      const before = await stored();
      const answers = await Promise.all(
        [
          [alert.id, 'Bearer pt_wrong'],
          [alert.id, `Basic ${alert.token}`],
          [alert.id, ''],
          [alert.id.replace(/_[0-9a-f]{12}$/, '_000000000000'), `Bearer ${alert.token}`],
          ['ps_nothing', `Bearer ${alert.token}`],
        ].map(async ([id, authorization]) => {
          const response = await stack.json<{ detail: string; status: number }>(`/push/subscriptions/${id}`, {
            method: 'DELETE',
            headers: authorization ? { authorization } : {},
          });
          return [response.status, response.body.detail];
        }),
      );
      expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(
        new Set([JSON.stringify([404, 'No push alert with this id and token'])]),
      );
      expect(await stored()).toBe(before);
      expect((await deleteAlert(alert.id, alert.token)).status).toBe(204);
      expect((await deleteAlert(alert.id, alert.token)).status).toBe(404);
    });

    it('holds at most 10 alerts per subscription (409), whatever the concurrency', async () => {
      const subscription = push.subscribe(publicKey);
      const body = { ...good(), subscription };
      const answers = await Promise.all(Array.from({ length: 14 }, () => post(body)));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
      const refused = answers.filter((a) => a.status !== 201);
      expect(refused.map((a) => a.status)).toEqual([409, 409, 409, 409]);
      expect(refused[0]?.body.type).toMatch(/problems\/limit-reached$/);
      const items = (await doc().send(new ScanCommand({ TableName: TABLES.pushAlerts.name }))).Items ?? [];
      expect(items.filter((item) => item.endpoint === subscription.endpoint)).toHaveLength(10);
    });

    it('counts POST /push/subscriptions per client IP and hour (429 with Retry-After)', async () => {
      let response = await post(good());
      expect(response.headers.get('ratelimit-policy')).toBe('"push-subscriptions";q=60;w=3600');
      for (let i = 0; i < 60 && response.status !== 429; i++) response = await post(good());
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      // Deleting and reading the key are not counted by that limit.
      expect((await stack.get('/push/vapid-public-key')).status).toBe(200);
    });
  });
});
