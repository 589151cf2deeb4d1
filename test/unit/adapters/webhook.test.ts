/**
 * The webhook adapter against real servers on loopback: plain HTTP for signing and status
 * handling, and HTTPS with a certificate from a CA generated here (openssl, into a temporary
 * directory) for the pinned connection: the request must reach the address that passed the check,
 * carrying the original Host and TLS server name, whatever DNS answers afterwards.
 */
import { createHmac } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhookDelivery,
  type ResolvedAddress,
  signPayload,
} from '../../../functions/adapters/webhook/deliver.ts';
import { type Alert, type AlertFiring, webhookSecretOf } from '../../../functions/core/alerts/alerts.ts';
import { addressProblem } from '../../../functions/core/alerts/webhook-target.ts';
import { makeLoopbackCa } from '../../../infra/local/push-service.ts';

const signingKey = 'a-test-signing-key-of-at-least-32-characters';
const firing: AlertFiring = {
  id: 'wh_1',
  firedAt: '2026-11-18T18:00:00Z',
  delayMinutes: 10,
  observedAt: '2026-11-18T17:55:00Z',
  delivery: { status: 'pending', attempts: 0, error: null },
};
const alertTo = (webhookUrl: string, id = 'al_1') =>
  ({
    id,
    portId: '250401',
    direction: 'into-us',
    mode: 'passenger',
    lane: 'standard',
    comparison: 'below',
    thresholdMinutes: 20,
    webhookUrl,
  }) as Alert;

interface Seen {
  host: string | undefined;
  servername: string | false | null | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((ready) =>
    server.listen(0, '127.0.0.1', () => ready((server.address() as AddressInfo).port)),
  );
}

function recorder(seen: Seen[], answer: (res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({
        host: req.headers.host,
        servername: (req.socket as TLSSocket).servername,
        headers: req.headers,
        body,
      });
      answer(res);
    });
  };
}

describe('delivery over HTTPS to the checked address', () => {
  let dir = '';
  const seen: Seen[] = [];
  let server: Server;
  let port = 0;
  let ca = '';

  beforeAll(async () => {
    const tls = makeLoopbackCa({ caName: 'Webhook test CA', host: 'hooks.test' });
    dir = tls.dir;
    ca = tls.caPem;
    server = createHttpsServer(
      { key: tls.key, cert: tls.cert },
      recorder(seen, (res) => {
        res.writeHead(204);
        res.end();
      }),
    );
    port = await listen(server);
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((done) => server?.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  /** The loopback test server stands in for a public address; everything else is judged as in production. */
  const policy = (address: string) => (address === '127.0.0.1' ? null : addressProblem(address));

  function delivery(resolve: (host: string) => Promise<ResolvedAddress[]>) {
    return createWebhookDelivery({
      allowPrivate: false,
      timeoutMs: 3_000,
      signingKey,
      ca,
      resolve,
      addressPolicy: policy,
    });
  }

  it('connects to the address that passed, with the original Host and server name, though DNS changes its answer', async () => {
    const answers: ResolvedAddress[][] = [[{ address: '127.0.0.1', family: 4 }]];
    const calls: string[] = [];
    // First the checked address, then (a rebinding attacker's turn) the metadata service.
    const resolve = async (host: string) => {
      calls.push(host);
      return answers.shift() ?? [{ address: '169.254.169.254', family: 4 }];
    };
    const before = seen.length;
    const result = await delivery(resolve).attempt(
      alertTo(`https://hooks.test:${port}/hook?x=1`),
      firing,
      3_000,
    );
    expect(result).toEqual({ ok: true });
    expect(calls).toEqual(['hooks.test']);
    const request = seen[before];
    expect(request?.host).toBe(`hooks.test:${port}`);
    expect(request?.servername).toBe('hooks.test');
    expect(request?.headers['webhook-id']).toBe('wh_1');
    // The next attempt resolves again and finds the refused address: no connection at all.
    const again = await delivery(resolve).attempt(alertTo(`https://hooks.test:${port}/hook`), firing, 3_000);
    expect(again).toMatchObject({ ok: false, retryable: false, error: /169\.254\.169\.254 is a link-local/ });
    expect(seen).toHaveLength(before + 1);
  });

  it.each<[string, ResolvedAddress[]]>([
    ['a name resolving to a private address', [{ address: '10.0.0.7', family: 4 }]],
    ['a name resolving to a mapped loopback address', [{ address: '::ffff:7f00:1', family: 6 }]],
    [
      'a name with one private address among public ones',
      [
        { address: '8.8.8.8', family: 4 },
        { address: '192.168.0.1', family: 4 },
      ],
    ],
  ])('refuses %s without connecting', async (_name, addresses) => {
    const before = seen.length;
    const result = await delivery(async () => addresses).attempt(
      alertTo(`https://hooks.test:${port}/hook`),
      firing,
      3_000,
    );
    expect(result).toMatchObject({ ok: false, retryable: false, error: /resolves to a refused address/ });
    expect(seen).toHaveLength(before);
  });

  it('refuses a literal address in any spelling before resolving anything', async () => {
    let resolved = 0;
    const d = delivery(async () => {
      resolved += 1;
      return [];
    });
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]', '2130706433', '[64:ff9b::7f00:1]']) {
      expect(await d.attempt(alertTo(`https://${host}:${port}/hook`), firing, 1_000)).toMatchObject({
        ok: false,
      });
    }
    expect(resolved).toBe(0);
  });

  it('trusts only the configured roots: a certificate for another name fails', async () => {
    const d = createWebhookDelivery({
      allowPrivate: false,
      timeoutMs: 3_000,
      signingKey,
      ca,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      addressPolicy: policy,
    });
    const result = await d.attempt(alertTo(`https://other.test:${port}/hook`), firing, 3_000);
    expect(result).toMatchObject({ ok: false, error: /altname|certificate|Hostname/i });
  });
});

describe('delivery over HTTP (test-only private targets)', () => {
  const seen: Seen[] = [];
  let status = 204;
  let server: Server;
  let base = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.startsWith('/hang')) return; // never answers
      recorder(seen, (r) => {
        r.writeHead(status, status === 302 ? { location: 'http://169.254.169.254/' } : {});
        r.end();
      })(req, res);
    });
    base = `http://127.0.0.1:${await listen(server)}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((done) => server?.close(done));
  });

  const delivery = () =>
    createWebhookDelivery({ allowPrivate: true, timeoutMs: 2_000, signingKey, now: () => 1_700_000_000_000 });

  it('signs each alert with its own secret, derived from the signing key and the alert id', async () => {
    status = 204;
    seen.length = 0;
    await delivery().attempt(alertTo(`${base}/hook`), firing, 2_000);
    await delivery().attempt(alertTo(`${base}/hook`, 'al_2'), firing, 2_000);
    const [first, second] = seen;
    if (!first || !second) throw new Error('two deliveries expected');
    expect(first.headers['webhook-signature']).toBe(
      signPayload(webhookSecretOf(signingKey, 'al_1'), first.body, 1_700_000_000),
    );
    expect(second.headers['webhook-signature']).toBe(
      signPayload(webhookSecretOf(signingKey, 'al_2'), second.body, 1_700_000_000),
    );
    expect(JSON.parse(first.body)).toMatchObject({ type: 'alert.fired', id: 'wh_1', alert: { id: 'al_1' } });
    expect(webhookSecretOf(`${signingKey}x`, 'al_1')).not.toBe(webhookSecretOf(signingKey, 'al_1'));
  });

  it.each<[number, { ok: boolean; retryable?: boolean; error?: RegExp }]>([
    [204, { ok: true }],
    [503, { ok: false, retryable: true, error: /HTTP 503/ }],
    [429, { ok: false, retryable: true, error: /HTTP 429/ }],
    [410, { ok: false, retryable: false, error: /HTTP 410/ }],
    [302, { ok: false, retryable: false, error: /redirects are not followed/ }],
  ])('an answer %s is %o', async (answer, expected) => {
    status = answer;
    seen.length = 0;
    const result = await delivery().attempt(alertTo(`${base}/hook`), firing, 2_000);
    expect(result).toMatchObject({
      ...expected,
      ...(expected.error ? { error: expect.stringMatching(expected.error) } : {}),
    });
    // One request: a redirect is never followed.
    expect(seen).toHaveLength(1);
  });

  it('gives up on a receiver that never answers within the time it is given', async () => {
    const result = await delivery().attempt(alertTo(`${base}/hang`), firing, 200);
    expect(result).toEqual({ ok: false, retryable: true, error: 'timed out' });
  });

  it('signs "<t>.<body>" with HMAC-SHA256', () => {
    const expected = createHmac('sha256', 'k').update('1700000000.{"a":1}').digest('hex');
    expect(signPayload('k', '{"a":1}', 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
  });
});
