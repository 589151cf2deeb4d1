/**
 * Webhook delivery of alert firings: one signed JSON POST per attempt (the core schedules retries,
 * backoff and the deadline). Before each attempt the host is resolved once and every address is
 * checked against the core's target policy; the connection then goes to the address that passed
 * (a pinned `lookup`), with the original Host header and TLS server name, so a name that changes
 * its answer between the check and the connection (DNS rebinding) cannot reach anything else.
 * Redirects are never followed. `allowPrivate` (tests only) admits loopback and plain http.
 */
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  type Alert,
  type AlertDelivery,
  type AlertFiring,
  type DeliveryAttempt,
  webhookSecretOf,
} from '../../core/alerts/alerts.ts';
import { addressProblem, isIpLiteral, webhookUrlProblem } from '../../core/alerts/webhook-target.ts';

export const SIGNATURE_HEADER = 'webhook-signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the scheme Stripe popularised. */
export function signPayload(secret: string, body: string, timestampSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface WebhookOptions {
  allowPrivate: boolean;
  /** Upper bound of one attempt; the core may hand a shorter one (its deadline). */
  timeoutMs: number;
  /** The service's signing key: each alert's secret derives from it ({@link webhookSecretOf}). */
  signingKey: string;
  /** Name resolution (every address of a name); `dns.lookup` otherwise. Tests inject changing answers. */
  resolve?: (host: string) => Promise<ResolvedAddress[]>;
  /** Extra trusted CA certificates (PEM), for a test's own TLS server; the system roots otherwise. */
  ca?: string;
  /**
   * Why an address is refused, or null: the core's {@link addressProblem} unless a test stands a
   * loopback server in for a public one.
   */
  addressPolicy?: (address: string) => string | null;
  now?: () => number;
}

const systemResolve = (host: string): Promise<ResolvedAddress[]> => dnsLookup(host, { all: true });

/** A `lookup` that answers every query with the one address that passed the check. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

export function createWebhookDelivery(options: WebhookOptions): AlertDelivery {
  const resolve = options.resolve ?? systemResolve;
  const refused = options.addressPolicy ?? addressProblem;
  const now = options.now ?? Date.now;

  /** The address to connect to, or why none may be used. */
  async function target(url: URL): Promise<ResolvedAddress | { problem: string }> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIpLiteral(host)) {
      const problem = options.allowPrivate ? null : refused(host);
      return problem ? { problem } : { address: host, family: host.includes(':') ? 6 : 4 };
    }
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolve(host);
    } catch (error: unknown) {
      return { problem: `cannot resolve ${host}: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (addresses.length === 0) return { problem: `${host} has no address` };
    if (!options.allowPrivate) {
      // Every answer is checked: a name with one private address among public ones is refused.
      for (const { address } of addresses) {
        const problem = refused(address);
        if (problem) return { problem: `${host} resolves to a refused address: ${problem}` };
      }
    }
    return addresses[0] as ResolvedAddress;
  }

  function post(
    url: URL,
    pinned: ResolvedAddress,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
  ): Promise<number> {
    return new Promise((done, fail) => {
      const secure = url.protocol === 'https:';
      const hostname = url.hostname.replace(/^\[|\]$/g, '');
      const request = (secure ? httpsRequest : httpRequest)(
        {
          protocol: url.protocol,
          host: hostname,
          port: url.port || (secure ? 443 : 80),
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
          lookup: pinnedLookup(pinned),
          // No pooled socket: each attempt connects to the address it checked.
          agent: false,
          signal: AbortSignal.timeout(Math.max(1, Math.floor(timeoutMs))),
          ...(secure
            ? {
                servername: isIpLiteral(hostname) ? undefined : hostname,
                ...(options.ca ? { ca: options.ca } : {}),
              }
            : {}),
        },
        (response: IncomingMessage) => {
          response.resume();
          response.on('end', () => done(response.statusCode ?? 0));
          response.on('error', fail);
        },
      );
      request.on('error', (error: Error) =>
        fail(error.name === 'AbortError' || error.name === 'TimeoutError' ? new Error('timed out') : error),
      );
      request.end(body);
    });
  }

  return {
    async attempt(alert: Alert, firing: AlertFiring, timeoutMs: number): Promise<DeliveryAttempt> {
      const raw = alert.webhookUrl;
      if (!raw) return { ok: false, retryable: false, error: 'no webhook' };
      const problem = webhookUrlProblem(raw, options.allowPrivate);
      if (problem) return { ok: false, retryable: false, error: problem };
      const url = new URL(raw);
      const pinned = await target(url);
      if ('problem' in pinned) return { ok: false, retryable: false, error: pinned.problem };
      const body = JSON.stringify({
        type: 'alert.fired',
        id: firing.id,
        alert: {
          id: alert.id,
          portId: alert.portId,
          direction: alert.direction,
          mode: alert.mode,
          lane: alert.lane,
          comparison: alert.comparison,
          thresholdMinutes: alert.thresholdMinutes,
        },
        firing: { firedAt: firing.firedAt, delayMinutes: firing.delayMinutes, observedAt: firing.observedAt },
      });
      const secret = webhookSecretOf(options.signingKey, alert.id);
      try {
        const status = await post(
          url,
          pinned,
          {
            'content-type': 'application/json',
            'user-agent': 'border-waits-alerts/1',
            'webhook-id': firing.id ?? `${alert.id}:${firing.observedAt}`,
            [SIGNATURE_HEADER]: signPayload(secret, body, Math.floor(now() / 1000)),
          },
          body,
          Math.min(timeoutMs, options.timeoutMs),
        );
        if (status >= 200 && status < 300) return { ok: true };
        if (status >= 300 && status < 400) {
          return { ok: false, retryable: false, error: `HTTP ${status} (redirects are not followed)` };
        }
        // A client error other than timeout/rate limit will not improve on retry.
        const retryable = status >= 500 || status === 408 || status === 429;
        return { ok: false, retryable, error: `HTTP ${status}` };
      } catch (error: unknown) {
        return { ok: false, retryable: true, error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
