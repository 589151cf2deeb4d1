import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createWebhookDelivery,
  isPrivateAddress,
  signPayload,
  webhookUrlProblem,
} from '../../../functions/adapters/webhook/deliver.ts';
import { type Alert, webhookSecretOf } from '../../../functions/core/alerts.ts';

describe('webhook URLs', () => {
  it.each([
    ['https://hooks.example.com/x', null],
    ['http://hooks.example.com/x', /https/],
    ['https://127.0.0.1/x', /private or loopback/],
    ['https://10.1.2.3/x', /private/],
    ['https://169.254.169.254/latest/meta-data', /private/],
    ['https://[::1]/x', /private/],
    ['https://[fd00::1]/x', /private/],
    ['https://localhost/x', /public host/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['not a url', /not a URL/],
  ])('%s', (url, problem) => {
    const found = webhookUrlProblem(url, false);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('loopback over http only with the test-only setting', () => {
    expect(webhookUrlProblem('http://127.0.0.1:9/x', true)).toBeNull();
  });

  it.each([
    ['8.8.8.8', false],
    ['100.64.0.1', true],
    ['172.16.0.1', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['::ffff:127.0.0.1', true],
    ['2606:4700::1111', false],
  ])('%s private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('delivery', () => {
  const alert = {
    id: 'al_1',
    portId: '250401',
    direction: 'into-us',
    mode: 'passenger',
    lane: 'standard',
    comparison: 'below',
    thresholdMinutes: 20,
    webhookUrl: 'https://10.0.0.5/hook',
  } as Alert;
  const signingKey = 'a-test-signing-key-of-at-least-32-characters';
  const firing = { firedAt: '2026-11-18T18:00:00Z', delayMinutes: 10, observedAt: '2026-11-18T17:55:00Z' };

  it('never calls a private address outside tests', async () => {
    let calls = 0;
    const delivery = createWebhookDelivery({
      allowPrivate: false,
      attempts: 3,
      backoffMs: 0,
      timeoutMs: 1000,
      signingKey,
      fetch: async () => {
        calls += 1;
        return new Response(null, { status: 204 });
      },
    });
    expect(await delivery.deliver(alert, firing)).toMatchObject({ status: 'failed', attempts: 0 });
    expect(calls).toBe(0);
  });

  it('backs off exponentially and stops at the first success; a 4xx is final', async () => {
    const sleeps: number[] = [];
    const answers = [503, 502, 204];
    const delivery = createWebhookDelivery({
      allowPrivate: true,
      attempts: 4,
      backoffMs: 100,
      timeoutMs: 1000,
      signingKey,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      fetch: async () => new Response(null, { status: answers.shift() ?? 500 }),
    });
    expect(await delivery.deliver(alert, firing)).toEqual({ status: 'delivered', attempts: 3, error: null });
    expect(sleeps).toEqual([100, 200]);
    const refused = createWebhookDelivery({
      allowPrivate: true,
      attempts: 4,
      backoffMs: 0,
      timeoutMs: 1000,
      signingKey,
      fetch: async () => new Response(null, { status: 410 }),
    });
    expect(await refused.deliver(alert, firing)).toEqual({
      status: 'failed',
      attempts: 1,
      error: 'HTTP 410',
    });
  });

  it('signs "<t>.<body>" with HMAC-SHA256', () => {
    const expected = createHmac('sha256', 'k').update('1700000000.{"a":1}').digest('hex');
    expect(signPayload('k', '{"a":1}', 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('signs each alert with its own secret, derived from the signing key and the alert id', async () => {
    const seen: { signature: string; body: string }[] = [];
    const delivery = createWebhookDelivery({
      allowPrivate: true,
      attempts: 1,
      backoffMs: 0,
      timeoutMs: 1000,
      signingKey,
      now: () => 1_700_000_000_000,
      fetch: async (_url, init) => {
        const headers = new Headers(init?.headers);
        seen.push({ signature: headers.get('webhook-signature') ?? '', body: String(init?.body) });
        return new Response(null, { status: 204 });
      },
    });
    await delivery.deliver(alert, firing);
    await delivery.deliver({ ...alert, id: 'al_2' }, firing);
    const [first, second] = seen;
    if (!first || !second) throw new Error('two deliveries expected');
    expect(first.signature).toBe(signPayload(webhookSecretOf(signingKey, 'al_1'), first.body, 1_700_000_000));
    expect(second.signature).toBe(
      signPayload(webhookSecretOf(signingKey, 'al_2'), second.body, 1_700_000_000),
    );
    expect(webhookSecretOf(signingKey, 'al_1')).not.toBe(webhookSecretOf(signingKey, 'al_2'));
    expect(webhookSecretOf(`${signingKey}x`, 'al_1')).not.toBe(webhookSecretOf(signingKey, 'al_1'));
  });
});
