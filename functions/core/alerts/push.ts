/**
 * Web Push alerts for travellers: "tell me when this lane drops below N minutes", held by a
 * browser's push subscription (no account: the subscription is the identity, and a delete token
 * is shown once). Evaluated by the alert engine after each ingest, beside the MCP alerts, on the
 * same latest readings and staleness rule: a message once per dip below the threshold, never in
 * the alert's quiet hours (port-local), never for a stale reading. Pure: the store, the push
 * delivery (RFC 8291 encryption, RFC 8292 VAPID: the web-push library) and the clock are given.
 */
import { createECDH, createHash, createPublicKey, hkdfSync, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { getPort, PORTS } from '../catalogue/catalogue.ts';
import { placeName } from '../catalogue/place-name.ts';
import { mapLimit } from '../concurrency.ts';
import {
  DIRECTIONS,
  type Direction,
  LANES,
  type Lane,
  type LatestReading,
  MODES,
  type Mode,
  type Port,
} from '../model.ts';
import { utcToZoned } from '../time.ts';
import { laneKey, readingProblem } from './engine.ts';
import { laneOffered } from './push-lanes.ts';

export { laneOffered };

/** The limits stated in the README and the OpenAPI document. */
export const PUSH_LIMITS = {
  /** Alerts one browser push subscription (endpoint) may hold. */
  alertsPerSubscription: 10,
  /** A subscription is forgotten this long after it was made or last renewed by the page. */
  keepDays: 90,
  /** The threshold's range, whole minutes. */
  belowMinutes: { min: 1, max: 240 },
  /** Endpoint URL length. */
  endpointMaxLength: 1024,
  /** How long a push service keeps an undelivered message (the TTL header): a wait goes stale. */
  messageTtlSeconds: 1800,
  /**
   * Sends tried for one dip when the push service fails for a passing reason (429, 5xx, no
   * answer): each failure leaves the dip to the next evaluation (a minute on), while it lasts.
   */
  deliveryAttempts: 3,
} as const;

export const PUSH_LANGS = ['en', 'es', 'fr'] as const;
export type PushLang = (typeof PUSH_LANGS)[number];

export interface QuietHours {
  /** Port-local `HH:MM`; quiet from `from` (inclusive) to `to` (exclusive), across midnight when `to` < `from`. */
  from: string;
  to: string;
}

/** One alert of one browser push subscription, as stored. */
export interface PushAlert {
  id: string;
  /** SHA-256 of the delete token, hex: the token itself is shown once and never stored. */
  tokenHash: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
  portId: string;
  direction: Direction;
  mode: Mode;
  lane: Lane;
  belowMinutes: number;
  quiet: QuietHours | null;
  lang: PushLang;
  createdAt: string;
  /** Epoch seconds after which the alert is gone (DynamoDB TTL; reads filter on it too). */
  expiresAt: number;
  /** True once a message went out for the current dip; a reading at or above the threshold re-arms it. */
  notified: boolean;
  /** `observedAt` of the reading the last message was about. */
  notifiedObservedAt: string | null;
  /** Sends of the current dip that failed for a passing reason (absent: none); re-arming clears it. */
  failedAttempts?: number;
  lastDelivery: { at: string; status: 'delivered' | 'failed'; error: string | null } | null;
}

/** The store of push alerts (adapters/dynamo/push-alerts.ts). */
export interface PushAlertStore {
  /**
   * Stores a new alert unless its subscription already holds `PUSH_LIMITS.alertsPerSubscription`
   * live ones (exactly: concurrent creations cannot exceed it).
   */
  create(
    alert: Omit<PushAlert, 'id'>,
    nowMs: number,
  ): Promise<{ created: true; id: string } | { created: false }>;
  /** Deletes the alert if `tokenHash` is its token's; false for an unknown id or a wrong token alike. */
  delete(id: string, tokenHash: string): Promise<boolean>;
  /** Moves a live alert's expiry to `expiresAt` if `tokenHash` is its token's; false otherwise. */
  renew(id: string, tokenHash: string, expiresAt: number, nowMs: number): Promise<boolean>;
  /** Every live alert (evaluation). */
  all(nowMs: number): Promise<PushAlert[]>;
  /** Marks the dip notified, only if the alert exists and was not: false otherwise (send nothing). */
  markNotified(alert: PushAlert, observedAt: string): Promise<boolean>;
  /** Re-arms the alert (the wait went back to the threshold or above); false when it is gone. */
  rearm(alert: PushAlert): Promise<boolean>;
  /**
   * Leaves the dip marked with `observedAt` unnotified after a send that failed for a passing
   * reason, counting it (`failedAttempts`), so the next evaluation sends again; false when the
   * alert is gone or no longer marked for that dip.
   */
  retryLater(alert: PushAlert, observedAt: string, failedAttempts: number): Promise<boolean>;
  recordDelivery(alert: PushAlert, delivery: NonNullable<PushAlert['lastDelivery']>): Promise<void>;
  /** Forgets every alert of the subscription `endpoint` (its push service said it is gone). */
  removeEndpoint(endpoint: string): Promise<number>;
}

/** What a push message carries (shown by the site's service worker). */
export interface PushMessage {
  title: string;
  body: string;
  /** The port page, in the alert's language. */
  url: string;
  /** Replaces an earlier notification of the same alert. */
  tag: string;
  lang: PushLang;
}

/**
 * A send's outcome. A failure is `gone` when the subscription no longer exists (404, 410), and
 * `passing` when a later try may succeed (429, 5xx, a timeout or a refused connection); any other
 * failure (a 400 or 403, an endpoint refused here) would fail again the same way.
 */
export type PushOutcome = { ok: true } | { ok: false; gone: boolean; passing: boolean; error: string };

/** Sends one message to a subscription (encrypted and signed), bounded by `timeoutMs`. Never throws. */
export interface PushDelivery {
  send(alert: PushAlert, message: PushMessage, timeoutMs: number): Promise<PushOutcome>;
}

// ---------------------------------------------------------------------------------------------
// Input

const b64url = /^[A-Za-z0-9_-]+={0,2}$/;
const decoded = (value: string) => Buffer.from(value.replace(/=+$/, ''), 'base64url');
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Why `endpoint` may not be used (not https, a host off the list, a port not listed), or null. */
export function pushEndpointProblem(endpoint: string, hosts: readonly string[]): string | null {
  if (endpoint.length > PUSH_LIMITS.endpointMaxLength)
    return `must be at most ${PUSH_LIMITS.endpointMaxLength} characters`;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:') return 'must be an https:// URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  const host = url.hostname.toLowerCase();
  const port = url.port;
  const allowed = hosts.some((entry) => {
    const [name = '', entryPort = ''] = entry.toLowerCase().split(/:(?=\d+$)/);
    if (entryPort !== port) return false;
    return name.startsWith('*.')
      ? host.endsWith(name.slice(1)) && host.length > name.length - 1
      : host === name;
  });
  return allowed ? null : `must be on a push service this service sends to (${hosts.join(', ')})`;
}

/** Whether `p256dh` is an uncompressed point on P-256 (65 bytes, 0x04 ...). */
function p256dhProblem(value: string): string | null {
  if (!b64url.test(value)) return 'must be base64url';
  const point = decoded(value);
  if (point.length !== 65 || point[0] !== 4) return 'must be an uncompressed P-256 point (65 bytes)';
  try {
    // Importing the point checks that it lies on the curve.
    createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
  } catch {
    return 'is not a point on P-256';
  }
  return null;
}

function authProblem(value: string): string | null {
  if (!b64url.test(value)) return 'must be base64url';
  return decoded(value).length === 16 ? null : 'must be 16 bytes';
}

export const PushRequestSchema = z.object({
  subscription: z.object({
    endpoint: z.string().max(PUSH_LIMITS.endpointMaxLength),
    expirationTime: z.number().nullable().optional(),
    keys: z.object({ p256dh: z.string().max(200), auth: z.string().max(100) }),
  }),
  alert: z.object({
    port_id: z.string().min(1).max(40),
    direction: z.enum(DIRECTIONS),
    mode: z.enum(MODES),
    lane: z.enum(LANES),
    below_minutes: z.number().int().min(PUSH_LIMITS.belowMinutes.min).max(PUSH_LIMITS.belowMinutes.max),
    quiet: z
      .object({ from: z.string().regex(HHMM, 'must be HH:MM'), to: z.string().regex(HHMM, 'must be HH:MM') })
      .nullable()
      .optional(),
  }),
  lang: z.enum(PUSH_LANGS).optional(),
});

export interface FieldError {
  name: string;
  reason: string;
}

export type PushRequest = z.infer<typeof PushRequestSchema>;

/**
 * Checks a `POST /push/subscriptions` body: its shape, the endpoint against `hosts`, the keys, the
 * port (`findPort`: an id or slug) and that it has the lane. Every bad field, named by its path.
 */
export function checkPushRequest(
  body: unknown,
  hosts: readonly string[],
  findPort: (idOrSlug: string) => Port | undefined,
): { ok: true; request: PushRequest; port: Port } | { ok: false; errors: FieldError[] } {
  const parsed = PushRequestSchema.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((issue) => ({
        name: issue.path.join('.'),
        reason:
          issue.code === 'invalid_type' && issue.message.includes('undefined')
            ? 'is required'
            : issue.message,
      })),
    };
  }
  const request = parsed.data;
  const errors: FieldError[] = [];
  const { subscription, alert } = request;
  const endpoint = pushEndpointProblem(subscription.endpoint, hosts);
  if (endpoint) errors.push({ name: 'subscription.endpoint', reason: endpoint });
  const p256dh = p256dhProblem(subscription.keys.p256dh);
  if (p256dh) errors.push({ name: 'subscription.keys.p256dh', reason: p256dh });
  const auth = authProblem(subscription.keys.auth);
  if (auth) errors.push({ name: 'subscription.keys.auth', reason: auth });
  const port = findPort(alert.port_id);
  if (!port) errors.push({ name: 'alert.port_id', reason: 'is not a known port (see GET /api/v1/ports)' });
  else if (!laneOffered(port, alert.direction, alert.mode, alert.lane)) {
    errors.push({
      name: 'alert.lane',
      reason: `${port.name} has no ${alert.direction} ${alert.mode} ${alert.lane} lane`,
    });
  }
  if (errors.length > 0 || !port) return { ok: false, errors };
  return { ok: true, request, port };
}

/** The catalogued port with this id or slug, in any case. */
export function findPort(idOrSlug: string): Port | undefined {
  const key = idOrSlug.trim().toLowerCase();
  return getPort(idOrSlug) ?? PORTS.find((port) => port.id.toLowerCase() === key || port.slug === key);
}

/** A delete token (shown once) and the hash that is stored. */
export function newPushToken(): { token: string; hash: string } {
  const token = `pt_${randomBytes(32).toString('base64url')}`;
  return { token, hash: pushTokenHash(token) };
}

export function pushTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The stored alert a checked request makes (without its id: the store assigns it). */
export function newPushAlert(
  request: PushRequest,
  port: Port,
  tokenHash: string,
  nowMs: number,
): Omit<PushAlert, 'id'> {
  return {
    tokenHash,
    endpoint: request.subscription.endpoint,
    keys: { p256dh: request.subscription.keys.p256dh, auth: request.subscription.keys.auth },
    portId: port.id,
    direction: request.alert.direction,
    mode: request.alert.mode,
    lane: request.alert.lane,
    belowMinutes: request.alert.below_minutes,
    quiet: request.alert.quiet ?? null,
    lang: request.lang ?? 'en',
    createdAt: new Date(nowMs).toISOString(),
    expiresAt: expiryFrom(nowMs),
    notified: false,
    notifiedObservedAt: null,
    lastDelivery: null,
  };
}

export function expiryFrom(nowMs: number): number {
  return Math.floor(nowMs / 1000) + PUSH_LIMITS.keepDays * 86_400;
}

// ---------------------------------------------------------------------------------------------
// Keys

const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/**
 * The VAPID key pair (RFC 8292) derived from a secret: Secrets Manager generates a random string
 * in AWS (it cannot make an EC key itself), a file under DATA_DIR holds one locally. The private
 * key is HKDF-SHA256 of it, redrawn in the (2^-32) case that it is not a valid P-256 scalar.
 */
export function vapidKeysOf(secret: string): { publicKey: string; privateKey: string } {
  if (secret.length < 32) throw new Error('the VAPID secret must be at least 32 characters');
  for (let counter = 0; ; counter++) {
    const scalar = Buffer.from(hkdfSync('sha256', secret, 'border-waits', `vapid-p256-${counter}`, 32));
    const value = BigInt(`0x${scalar.toString('hex')}`);
    if (value === 0n || value >= P256_ORDER) continue;
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(scalar);
    return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: scalar.toString('base64url') };
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** Whether `nowMs` falls in the quiet hours, in the port's local time. */
export function inQuietHours(quiet: QuietHours | null, timeZone: string, nowMs: number): boolean {
  if (!quiet) return false;
  const local = utcToZoned(nowMs, timeZone);
  const minute = local.hour * 60 + local.minute;
  const at = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const from = at(quiet.from);
  const to = at(quiet.to);
  if (from === to) return false;
  return from < to ? minute >= from && minute < to : minute >= from || minute < to;
}

export type PushVerdict =
  | { action: 'send'; reading: LatestReading & { delayMinutes: number; observedAt: string } }
  | { action: 'rearm' }
  | { action: 'hold'; why: string };

/** What an alert does with its lane's reading now. */
export function pushVerdict(
  alert: PushAlert,
  reading: LatestReading | undefined,
  nowMs: number,
): PushVerdict {
  const problem = readingProblem(reading, nowMs);
  if (problem || !reading || reading.delayMinutes === null || !reading.observedAt) {
    return { action: 'hold', why: problem ?? 'no usable reading' };
  }
  if (reading.delayMinutes >= alert.belowMinutes) {
    return alert.notified ? { action: 'rearm' } : { action: 'hold', why: 'not below the threshold' };
  }
  if (alert.notified) return { action: 'hold', why: 'already told about this dip' };
  const port = getPort(alert.portId);
  if (inQuietHours(alert.quiet, port?.timeZone ?? 'UTC', nowMs))
    return { action: 'hold', why: 'quiet hours' };
  return { action: 'send', reading: reading as LatestReading & { delayMinutes: number; observedAt: string } };
}

const TEXTS: Record<
  PushLang,
  {
    title: (place: string, minutes: number) => string;
    body: (lane: string, minutes: number, below: number, time: string) => string;
    labels: Record<Direction | Mode | Lane, string>;
    prefix: string;
  }
> = {
  en: {
    title: (place, minutes) => `${place}: ${minutes} min`,
    body: (lane, minutes, below, time) =>
      `${lane}: ${minutes} min, below your ${below} min (reading of ${time}).`,
    labels: {
      'into-us': 'Into the US',
      'into-canada': 'Into Canada',
      passenger: 'passenger',
      pedestrian: 'pedestrian',
      commercial: 'commercial',
      standard: 'standard',
      ready: 'Ready Lane',
      sentri: 'SENTRI',
      nexus: 'NEXUS',
      fast: 'FAST',
    },
    prefix: '',
  },
  es: {
    title: (place, minutes) => `${place}: ${minutes} min`,
    body: (lane, minutes, below, time) =>
      `${lane}: ${minutes} min, menos de sus ${below} min (lectura de las ${time}).`,
    labels: {
      'into-us': 'Hacia EE. UU.',
      'into-canada': 'Hacia Canadá',
      passenger: 'vehículos',
      pedestrian: 'peatones',
      commercial: 'carga',
      standard: 'estándar',
      ready: 'Ready Lane',
      sentri: 'SENTRI',
      nexus: 'NEXUS',
      fast: 'FAST',
    },
    prefix: '/es',
  },
  fr: {
    title: (place, minutes) => `${place} : ${minutes} min`,
    body: (lane, minutes, below, time) =>
      `${lane} : ${minutes} min, sous vos ${below} min (lecture de ${time}).`,
    labels: {
      'into-us': 'Vers les États-Unis',
      'into-canada': 'Vers le Canada',
      passenger: 'voyageurs',
      pedestrian: 'piétons',
      commercial: 'commercial',
      standard: 'standard',
      ready: 'Ready Lane',
      sentri: 'SENTRI',
      nexus: 'NEXUS',
      fast: 'FAST',
    },
    prefix: '/fr',
  },
};

/** The message of an alert's dip, in the language the alert was made in; it opens the port page. */
export function pushMessage(
  alert: PushAlert,
  reading: { delayMinutes: number; observedAt: string },
): PushMessage {
  const texts = TEXTS[alert.lang] ?? TEXTS.en;
  const port = getPort(alert.portId);
  const place = port ? placeName(port) : alert.portId;
  const local = utcToZoned(Date.parse(reading.observedAt), port?.timeZone ?? 'UTC');
  const time = `${String(local.hour).padStart(2, '0')}:${String(local.minute).padStart(2, '0')}`;
  const lane = `${texts.labels[alert.direction]}, ${texts.labels[alert.mode]} ${texts.labels[alert.lane]}`;
  return {
    title: texts.title(place, reading.delayMinutes),
    body: texts.body(lane, reading.delayMinutes, alert.belowMinutes, time),
    url: `${texts.prefix}/ports/${port?.slug ?? alert.portId}/`,
    tag: alert.id,
    lang: alert.lang,
  };
}

export interface PushEvaluation {
  evaluated: number;
  sent: number;
  failed: number;
  removed: number;
  rearmed: number;
  /** Failed sends left for the next evaluation (a passing failure, attempts left). */
  retrying: number;
  /** Due messages not started before the deadline: they go out next cycle if the dip lasts. */
  deferred: number;
}

/**
 * Evaluates every live push alert against the lane readings (the engine's shared map), then
 * sends `concurrency` at a time under the engine's deadline. The dip is marked notified before
 * the message goes out (once per dip, even if two evaluations overlap); a push service answering
 * 404 or 410 forgets the whole subscription; a passing failure (429, 5xx, no answer) is tried
 * again by the next evaluations while the dip lasts, {@link PUSH_LIMITS}.deliveryAttempts in all.
 */
export async function evaluatePushAlerts(deps: {
  store: PushAlertStore;
  readings: ReadonlyMap<string, LatestReading>;
  delivery: PushDelivery;
  nowMs: number;
  /** Elapsed-time source and the instant on it after which no message starts. */
  timer: () => number;
  deadline: number;
  concurrency: number;
  /** Upper bound of one send. */
  timeoutMs: number;
  log?: (line: string) => void;
}): Promise<PushEvaluation> {
  const alerts = await deps.store.all(deps.nowMs);
  const result: PushEvaluation = {
    evaluated: alerts.length,
    sent: 0,
    failed: 0,
    removed: 0,
    rearmed: 0,
    retrying: 0,
    deferred: 0,
  };
  const gone = new Set<string>();
  await mapLimit(alerts, deps.concurrency, async (alert) => {
    const verdict = pushVerdict(alert, deps.readings.get(laneKey(alert)), deps.nowMs);
    if (verdict.action === 'hold') return;
    if (verdict.action === 'rearm') {
      if (await deps.store.rearm(alert)) result.rearmed += 1;
      return;
    }
    const left = deps.deadline - deps.timer();
    if (left <= 0 || gone.has(alert.endpoint)) {
      result.deferred += 1;
      return;
    }
    if (!(await deps.store.markNotified(alert, verdict.reading.observedAt))) return;
    const outcome = await deps.delivery.send(
      alert,
      pushMessage(alert, verdict.reading),
      Math.min(left, deps.timeoutMs),
    );
    const at = new Date(deps.nowMs).toISOString();
    if (outcome.ok) {
      result.sent += 1;
      await deps.store.recordDelivery(alert, { at, status: 'delivered', error: null });
      return;
    }
    result.failed += 1;
    deps.log?.(`push alert ${alert.id}: ${outcome.error}`);
    if (outcome.gone) {
      gone.add(alert.endpoint);
      result.removed += await deps.store.removeEndpoint(alert.endpoint);
      return;
    }
    await deps.store.recordDelivery(alert, { at, status: 'failed', error: outcome.error });
    const failures = (alert.failedAttempts ?? 0) + 1;
    if (outcome.passing && failures < PUSH_LIMITS.deliveryAttempts) {
      if (await deps.store.retryLater(alert, verdict.reading.observedAt, failures)) result.retrying += 1;
    }
  });
  return result;
}
