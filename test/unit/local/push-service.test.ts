/**
 * The stand-in push service's checks can fail: a request the web-push library builds passes them,
 * and a forged signature, another audience, another key, an expired token or a tampered body do
 * not. (The service's own sends are checked by the same code in test/integration/push-alerts.)
 */
import { createECDH, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { decryptAes128gcm, verifyVapid } from '../../../infra/local/push-service.ts';

const AUDIENCE = 'https://127.0.0.1:8443';
const ua = createECDH('prime256v1');
ua.generateKeys();
const auth = randomBytes(16);
const vapid = webpush.generateVAPIDKeys();
const subscription = {
  endpoint: `${AUDIENCE}/wpush/abc`,
  keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
};
const details = (options: Partial<webpush.RequestOptions> = {}) =>
  webpush.generateRequestDetails(subscription, JSON.stringify({ title: 'San Ysidro: 25 min' }), {
    TTL: 60,
    vapidDetails: { subject: 'https://border-waits.dev/', ...vapid },
    ...options,
  });
const now = () => Date.now() / 1000;
const authorization = (d: ReturnType<typeof details>) => String(d.headers.Authorization);

describe('the stand-in push service checks', () => {
  it('accepts what web-push builds: the VAPID key, and the payload decrypted', () => {
    const d = details();
    expect(verifyVapid(authorization(d), AUDIENCE, now())).toBe(vapid.publicKey);
    expect(JSON.parse(decryptAes128gcm(d.body as Buffer, ua, auth).toString('utf8'))).toEqual({
      title: 'San Ysidro: 25 min',
    });
  });
  it('refuses a forged signature', () => {
    const header = authorization(details()).replace(/\.([A-Za-z0-9_-]+), k=/, (_m, sig: string) => {
      const bytes = Buffer.from(sig, 'base64url');
      bytes[5] = (bytes[5] ?? 0) ^ 1;
      return `.${bytes.toString('base64url')}, k=`;
    });
    expect(() => verifyVapid(header, AUDIENCE, now())).toThrow(/does not verify/);
  });
  it('refuses another key, another audience, an expired token', () => {
    const other = webpush.generateVAPIDKeys().publicKey;
    const header = authorization(details());
    expect(() => verifyVapid(header.replace(/k=.*$/, `k=${other}`), AUDIENCE, now())).toThrow(
      /does not verify/,
    );
    expect(() => verifyVapid(header, 'https://127.0.0.1:9443', now())).toThrow(/aud/);
    expect(() => verifyVapid(header, AUDIENCE, now() + 2 * 86_400)).toThrow(/exp/);
    expect(() => verifyVapid(undefined, AUDIENCE, now())).toThrow(/no vapid/);
  });
  it('refuses a tampered body and another subscription key', () => {
    const body = Buffer.from(details().body as Buffer);
    body[body.length - 20] = (body[body.length - 20] ?? 0) ^ 1;
    expect(() => decryptAes128gcm(body, ua, auth)).toThrow();
    const stranger = createECDH('prime256v1');
    stranger.generateKeys();
    expect(() => decryptAes128gcm(details().body as Buffer, stranger, auth)).toThrow();
  });
});
