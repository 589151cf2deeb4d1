/**
 * Webhook delivery of alert firings: a JSON POST signed with HMAC-SHA256, retried with exponential
 * backoff. Only HTTPS URLs whose host resolves to public addresses are called (no loopback,
 * private, link-local or metadata addresses), unless `allowPrivate` is set, which only tests do.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type Alert, type AlertDelivery, type AlertFiring, webhookSecretOf } from '../../core/alerts.ts';

export const SIGNATURE_HEADER = 'webhook-signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the scheme Stripe popularised. */
export function signPayload(secret: string, body: string, timestampSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/** Whether an IPv4 or IPv6 literal is loopback, private, link-local, CGNAT, unspecified or multicast. */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  if (version === 6) {
    const lower = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
    if (mapped) return isPrivateAddress(mapped);
    return (
      lower === '::' ||
      lower === '::1' ||
      lower.startsWith('fc') ||
      lower.startsWith('fd') ||
      lower.startsWith('fe8') ||
      lower.startsWith('fe9') ||
      lower.startsWith('fea') ||
      lower.startsWith('feb') ||
      lower.startsWith('ff')
    );
  }
  return true;
}

/**
 * Why a webhook URL is refused, or null when acceptable. Checked when an alert is created
 * (literal hosts) and again before every delivery (resolved addresses).
 */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'webhook_url is not a URL';
  }
  if (url.username || url.password) return 'webhook_url must not carry credentials';
  if (allowPrivate)
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'webhook_url must be https';
  if (url.protocol !== 'https:') return 'webhook_url must be an https:// URL';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal')) {
    return 'webhook_url must be a public host';
  }
  if (isIP(host) && isPrivateAddress(host)) return 'webhook_url must not be a private or loopback address';
  return null;
}

export interface WebhookOptions {
  allowPrivate: boolean;
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
  /** Injected in tests to count retries; the global fetch otherwise. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** The service's signing key: each alert's secret derives from it ({@link webhookSecretOf}). */
  signingKey: string;
}

export function createWebhookDelivery(options: WebhookOptions): AlertDelivery {
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  const now = options.now ?? Date.now;

  async function resolvesPublic(url: URL): Promise<string | null> {
    if (options.allowPrivate) return null;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
    return addresses.some((a) => isPrivateAddress(a.address)) ? 'host resolves to a private address' : null;
  }

  return {
    async deliver(alert: Alert, firing: Omit<AlertFiring, 'delivery'>) {
      const url = alert.webhookUrl;
      if (!url) return { status: 'no-webhook', attempts: 0, error: null };
      const secret = webhookSecretOf(options.signingKey, alert.id);
      const problem = webhookUrlProblem(url, options.allowPrivate) ?? (await resolvesPublic(new URL(url)));
      if (problem) return { status: 'failed', attempts: 0, error: problem };
      const id = randomUUID();
      const body = JSON.stringify({
        type: 'alert.fired',
        id,
        alert: {
          id: alert.id,
          portId: alert.portId,
          direction: alert.direction,
          mode: alert.mode,
          lane: alert.lane,
          comparison: alert.comparison,
          thresholdMinutes: alert.thresholdMinutes,
        },
        firing,
      });
      let lastError = '';
      for (let attempt = 1; attempt <= options.attempts; attempt += 1) {
        if (attempt > 1) await sleep(options.backoffMs * 2 ** (attempt - 2));
        try {
          const response = await doFetch(url, {
            method: 'POST',
            redirect: 'manual',
            signal: AbortSignal.timeout(options.timeoutMs),
            headers: {
              'content-type': 'application/json',
              'user-agent': 'border-waits-alerts/1',
              'webhook-id': id,
              [SIGNATURE_HEADER]: signPayload(secret, body, Math.floor(now() / 1000)),
            },
            body,
          });
          await response.body?.cancel();
          if (response.ok) return { status: 'delivered', attempts: attempt, error: null };
          lastError = `HTTP ${response.status}`;
          // A client error other than timeout/rate limit will not improve on retry.
          if (response.status < 500 && response.status !== 408 && response.status !== 429) {
            return { status: 'failed', attempts: attempt, error: lastError };
          }
        } catch (error: unknown) {
          lastError = error instanceof Error ? error.message : String(error);
        }
      }
      return { status: 'failed', attempts: options.attempts, error: lastError };
    },
  };
}
