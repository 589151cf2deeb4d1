/**
 * The pure rules of push alerts: which endpoints may be used, the input check, quiet hours in
 * port-local time, the dip state machine, the message in three languages, and the VAPID key
 * derived from a secret.
 */
import { createECDH } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PUSH_SERVICE_HOSTS } from '../../../../functions/contract.ts';
import {
  checkPushRequest,
  findPort,
  inQuietHours,
  laneOffered,
  type PushAlert,
  pushEndpointProblem,
  pushMessage,
  pushVerdict,
  vapidKeysOf,
} from '../../../../functions/core/alerts/push.ts';
import type { LatestReading } from '../../../../functions/core/model.ts';

const HOSTS = [...DEFAULT_PUSH_SERVICE_HOSTS, '127.0.0.1:8443'];

describe('push endpoints', () => {
  it.each([
    ['https://fcm.googleapis.com/fcm/send/abc', null],
    ['https://updates.push.services.mozilla.com/wpush/v2/abc', null],
    ['https://web.push.apple.com/QGuQ', null],
    ['https://wns2-by3p.notify.windows.com/w/?token=x', null],
    ['https://127.0.0.1:8443/wpush/abc', null],
    ['http://fcm.googleapis.com/fcm/send/abc', 'must be an https:// URL'],
    ['https://fcm.googleapis.com:8443/fcm/send/abc', 'must be on a push service'],
    ['https://127.0.0.1/wpush/abc', 'must be on a push service'],
    ['https://notify.windows.com.evil.example/x', 'must be on a push service'],
    ['https://evilnotify.windows.com/x', 'must be on a push service'],
    ['https://user@fcm.googleapis.com/fcm/send/abc', 'must not carry a user name'],
    ['https://169.254.169.254/latest', 'must be on a push service'],
    ['fcm.googleapis.com/fcm/send/abc', 'must be an absolute URL'],
  ])('%s: %s', (endpoint, problem) => {
    const found = pushEndpointProblem(endpoint, HOSTS);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });
});

describe('lanes a port offers', () => {
  const sanYsidro = findPort('san-ysidro');
  const buffalo = findPort('090101');
  it('finds ports by id or slug in any case', () => {
    expect(findPort('SAN-YSIDRO')?.id).toBe('250401');
    expect(findPort('nowhere')).toBeUndefined();
  });
  it('SENTRI on the Mexican border, NEXUS on the Canadian, FAST for trucks, one CBSA lane', () => {
    if (!sanYsidro || !buffalo) throw new Error('catalogue changed');
    expect(laneOffered(sanYsidro, 'into-us', 'passenger', 'sentri')).toBe(true);
    expect(laneOffered(sanYsidro, 'into-us', 'passenger', 'nexus')).toBe(false);
    expect(laneOffered(buffalo, 'into-us', 'passenger', 'nexus')).toBe(true);
    expect(laneOffered(buffalo, 'into-us', 'commercial', 'fast')).toBe(true);
    expect(laneOffered(buffalo, 'into-us', 'passenger', 'fast')).toBe(false);
    expect(laneOffered(buffalo, 'into-canada', 'passenger', 'standard')).toBe(true);
    expect(laneOffered(buffalo, 'into-canada', 'passenger', 'ready')).toBe(false);
    expect(laneOffered(sanYsidro, 'into-canada', 'passenger', 'standard')).toBe(false);
  });
});

describe('the input check', () => {
  const ua = createECDH('prime256v1');
  ua.generateKeys();
  const body = {
    subscription: {
      endpoint: 'https://fcm.googleapis.com/fcm/send/abc',
      keys: {
        p256dh: ua.getPublicKey().toString('base64url'),
        auth: Buffer.alloc(16, 7).toString('base64url'),
      },
    },
    alert: {
      port_id: 'san-ysidro',
      direction: 'into-us',
      mode: 'passenger',
      lane: 'sentri',
      below_minutes: 30,
    },
  };
  it('accepts a well-formed request and names the port by id', () => {
    const checked = checkPushRequest(body, HOSTS, findPort);
    expect(checked.ok && checked.port.id).toBe('250401');
  });
  it('lists every bad field at once', () => {
    const checked = checkPushRequest(
      {
        subscription: {
          ...body.subscription,
          endpoint: 'http://x.example/',
          keys: { p256dh: 'AAAA', auth: 'AAAA' },
        },
        alert: { ...body.alert, port_id: '000000' },
      },
      HOSTS,
      findPort,
    );
    expect(checked.ok ? [] : checked.errors.map((e) => e.name)).toEqual([
      'subscription.endpoint',
      'subscription.keys.p256dh',
      'subscription.keys.auth',
      'alert.port_id',
    ]);
  });
});

describe('quiet hours, port-local', () => {
  // 2026-11-18 06:30 UTC is 22:30 in San Diego (PST) and 01:30 in Buffalo (EST).
  const at = Date.parse('2026-11-18T06:30:00Z');
  it.each([
    [{ from: '22:00', to: '06:00' }, 'America/Los_Angeles', true],
    [{ from: '22:00', to: '06:00' }, 'America/New_York', true],
    [{ from: '23:00', to: '06:00' }, 'America/Los_Angeles', false],
    [{ from: '08:00', to: '22:30' }, 'America/Los_Angeles', false],
    [{ from: '22:30', to: '22:31' }, 'America/Los_Angeles', true],
    [{ from: '10:00', to: '10:00' }, 'America/Los_Angeles', false],
  ])('%j in %s: %s', (quiet, zone, expected) => {
    expect(inQuietHours(quiet, zone, at)).toBe(expected);
  });
});

describe('one message per dip', () => {
  const now = Date.parse('2026-11-18T20:10:00Z');
  const alert = (notified: boolean): PushAlert => ({
    id: 'ps_x',
    tokenHash: 'h',
    endpoint: 'https://fcm.googleapis.com/fcm/send/abc',
    keys: { p256dh: 'p', auth: 'a' },
    portId: '250401',
    direction: 'into-us',
    mode: 'passenger',
    lane: 'standard',
    belowMinutes: 30,
    quiet: null,
    lang: 'fr',
    createdAt: '2026-11-18T00:00:00Z',
    expiresAt: 0,
    notified,
    notifiedObservedAt: null,
    lastDelivery: null,
  });
  const reading = (
    delay: number | null,
    ageMinutes = 5,
    status: LatestReading['status'] = 'open',
  ): LatestReading => ({
    portId: '250401',
    direction: 'into-us',
    mode: 'passenger',
    lane: 'standard',
    status,
    delayMinutes: delay,
    lanesOpen: 5,
    maxLanes: 20,
    observedAt: new Date(now - ageMinutes * 60_000).toISOString(),
    source: 'cbp',
    fetchedAt: new Date(now).toISOString(),
  });
  it('sends below the threshold, holds while notified, re-arms at or above it', () => {
    expect(pushVerdict(alert(false), reading(25), now).action).toBe('send');
    expect(pushVerdict(alert(true), reading(20), now)).toEqual({
      action: 'hold',
      why: 'already told about this dip',
    });
    expect(pushVerdict(alert(true), reading(30), now).action).toBe('rearm');
    expect(pushVerdict(alert(false), reading(30), now).action).toBe('hold');
  });
  it('holds on a stale, closed or timeless reading, whatever the wait', () => {
    expect(pushVerdict(alert(false), reading(5, 90), now)).toEqual({
      action: 'hold',
      why: 'reading not fresh',
    });
    expect(pushVerdict(alert(false), reading(null, 5, 'lanes-closed'), now).action).toBe('hold');
    expect(pushVerdict(alert(false), undefined, now).action).toBe('hold');
    // A stale reading above the threshold does not re-arm either.
    expect(pushVerdict(alert(true), reading(60, 90), now).action).toBe('hold');
  });
  it('writes the message in the alert language, with the port-local reading time, opening the port page', () => {
    expect(pushMessage(alert(false), { delayMinutes: 25, observedAt: '2026-11-18T20:05:00Z' })).toEqual({
      title: 'San Ysidro : 25 min',
      body: 'Vers les États-Unis, voyageurs standard : 25 min, sous vos 30 min (lecture de 12:05).',
      url: '/fr/ports/san-ysidro/',
      tag: 'ps_x',
      lang: 'fr',
    });
  });
});

describe('the VAPID key pair', () => {
  it('is derived from the secret: the same secret gives the same pair, a valid P-256 key', () => {
    const a = vapidKeysOf('a-secret-of-at-least-thirty-two-characters');
    expect(vapidKeysOf('a-secret-of-at-least-thirty-two-characters')).toEqual(a);
    expect(vapidKeysOf('another-secret-of-at-least-thirty-two-chars')).not.toEqual(a);
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(a.privateKey, 'base64url'));
    expect(ecdh.getPublicKey().toString('base64url')).toBe(a.publicKey);
    expect(Buffer.from(a.publicKey, 'base64url')).toHaveLength(65);
  });
  it('refuses a short secret', () => {
    expect(() => vapidKeysOf('short')).toThrow(/at least 32/);
  });
});
