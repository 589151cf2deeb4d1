/**
 * Web Push delivery of push alerts: the message is encrypted (RFC 8291, aes128gcm) and signed
 * (RFC 8292 VAPID) by the maintained `web-push` library, which builds the request; this adapter
 * sends it itself so that one attempt has a hard deadline (web-push's own `timeout` is an idle
 * timeout: a service that trickles bytes would outlast it) and never reuses a pooled socket.
 * The endpoint is checked against the push service hosts again before each send.
 */
import { request as httpsRequest } from 'node:https';
import {
  PUSH_LIMITS,
  type PushAlert,
  type PushDelivery,
  type PushMessage,
  type PushOutcome,
  pushEndpointProblem,
} from '../../core/alerts/push.ts';
import { SITE_URL } from '../../core/site.ts';

export interface WebPushOptions {
  /** The VAPID key pair (base64url): see `vapidKeysOf`. */
  vapid: { publicKey: string; privateKey: string };
  /** The push service hosts endpoints may be on (PUSH_SERVICE_HOSTS). */
  hosts: readonly string[];
  /** Upper bound of one send; the engine may hand a shorter one (its deadline). */
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), for a test's own push service; the system roots otherwise. */
  ca?: string;
}

function post(
  endpoint: URL,
  headers: Record<string, string | number>,
  body: Buffer,
  timeoutMs: number,
  ca?: string,
): Promise<number> {
  return new Promise((done, fail) => {
    const request = httpsRequest(
      {
        host: endpoint.hostname.replace(/^\[|\]$/g, ''),
        port: endpoint.port || 443,
        path: `${endpoint.pathname}${endpoint.search}`,
        method: 'POST',
        headers,
        agent: false,
        signal: AbortSignal.timeout(Math.max(1, Math.floor(timeoutMs))),
        ...(ca ? { ca } : {}),
      },
      (response) => {
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

/**
 * The library (with its ASN.1, JWS and ECE dependencies, about 190 KB of the ingest bundle) is
 * loaded on the first message, not when the function starts: most cycles send none.
 */
const library = () => import('web-push').then((module) => module.default);

export function createWebPushDelivery(options: WebPushOptions): PushDelivery {
  const vapidDetails = {
    subject: SITE_URL,
    publicKey: options.vapid.publicKey,
    privateKey: options.vapid.privateKey,
  };
  return {
    async send(alert: PushAlert, message: PushMessage, timeoutMs: number): Promise<PushOutcome> {
      const problem = pushEndpointProblem(alert.endpoint, options.hosts);
      if (problem) return { ok: false, gone: false, passing: false, error: `endpoint ${problem}` };
      const webpush = await library();
      let details: ReturnType<typeof webpush.generateRequestDetails>;
      try {
        details = webpush.generateRequestDetails(
          { endpoint: alert.endpoint, keys: alert.keys },
          JSON.stringify(message),
          { TTL: PUSH_LIMITS.messageTtlSeconds, vapidDetails, urgency: 'high' },
        );
      } catch (error: unknown) {
        return {
          ok: false,
          gone: false,
          passing: false,
          error: `cannot encrypt: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      try {
        const status = await post(
          new URL(alert.endpoint),
          details.headers as Record<string, string | number>,
          details.body as Buffer,
          Math.min(timeoutMs, options.timeoutMs),
          options.ca,
        );
        if (status >= 200 && status < 300) return { ok: true };
        // RFC 8030 section 7.3 (and every browser's service): the subscription no longer exists.
        // 429 (too many messages) and 5xx pass; any other refusal would be repeated.
        return {
          ok: false,
          gone: status === 404 || status === 410,
          passing: status === 429 || status >= 500,
          error: `HTTP ${status}`,
        };
      } catch (error: unknown) {
        // No answer (a timeout, a refused or reset connection): the service may answer later.
        return {
          ok: false,
          gone: false,
          passing: true,
          error: error instanceof Error ? error.message : String(error),
        };
      }
    },
  };
}
