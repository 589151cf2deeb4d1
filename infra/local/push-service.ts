/**
 * A stand-in push service on loopback over TLS: the receiving side of Web Push as a browser's
 * push service is (RFC 8030 message delivery, RFC 8292 VAPID, RFC 8291 message encryption),
 * written on node:crypto alone so that it checks the sender independently of the library the
 * service sends with. Each subscription is made as `PushManager.subscribe` would make one (a
 * P-256 key pair and an auth secret kept here, bound to the application server key); each
 * message must carry a valid VAPID JWT for the endpoint's origin signed by that key, a TTL, and an
 * aes128gcm body that decrypts with the subscription's keys. Used by the tests, the soak and
 * `npm run push-service`; its certificate comes from a CA made with openssl for the occasion.
 */
import { execFileSync } from 'node:child_process';
import {
  createDecipheriv,
  createECDH,
  createHmac,
  createPublicKey,
  type ECDH,
  randomBytes,
  verify,
} from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { type AddressInfo, isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoopbackCa {
  /** The CA certificate (PEM): trust it with a `ca` option or NODE_EXTRA_CA_CERTS. */
  caPem: string;
  caFile: string;
  key: string;
  cert: string;
  dir: string;
}

/**
 * A CA and a server certificate for `host` (an IP address or a DNS name, 127.0.0.1 unless given),
 * made with openssl in a new temporary folder, valid 2 days. The push service stand-in and the
 * webhook delivery tests serve TLS with it.
 */
export function makeLoopbackCa(options: { caName?: string; host?: string } = {}): LoopbackCa {
  const { caName = 'Push service stand-in CA', host = '127.0.0.1' } = options;
  const dir = mkdtempSync(join(tmpdir(), 'loopback-ca-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', `/CN=${caName}`);
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${host}`);
  const san = isIP(host) ? `IP:${host}` : `DNS:${host}`;
  writeFileSync(join(dir, 'san.ext'), `subjectAltName=${san}\n`);
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  );
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return {
    caPem: read('ca.pem'),
    caFile: join(dir, 'ca.pem'),
    key: read('server.key'),
    cert: read('server.pem'),
    dir,
  };
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/**
 * RFC 8291 section 3.4 with RFC 8188's aes128gcm framing: the one record of a push message,
 * decrypted with the user agent's key pair and auth secret.
 */
export function decryptAes128gcm(body: Buffer, userAgent: ECDH, authSecret: Buffer): Buffer {
  if (body.length < 21 + 65 + 17) throw new Error('body shorter than an aes128gcm header and one record');
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20] as number;
  const senderPublic = body.subarray(21, 21 + idLength);
  if (idLength !== 65 || senderPublic[0] !== 4) throw new Error('keyid is not an uncompressed P-256 point');
  const record = body.subarray(21 + idLength);
  // RFC 8291 section 4: a push message is one record.
  if (record.length > recordSize) throw new Error('more than one record');
  const ecdhSecret = userAgent.computeSecret(senderPublic);
  const keyInfo = Buffer.concat([
    Buffer.from('WebPush: info\0', 'latin1'),
    userAgent.getPublicKey(),
    senderPublic,
    Buffer.from([1]),
  ]);
  const ikm = hmac(hmac(authSecret, ecdhSecret), keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01', 'latin1')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01', 'latin1')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record: content, the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end);
}

/**
 * RFC 8292: `Authorization: vapid t=<JWT>, k=<public key>`. The JWT must be ES256 signed by `k`,
 * for `audience` (the endpoint's origin), expire within 24 hours and name a contact (`sub`).
 * Returns the key; throws with the reason otherwise.
 */
export function verifyVapid(authorization: string | undefined, audience: string, nowSeconds: number): string {
  const match = /^vapid\s+(.+)$/i.exec(authorization ?? '');
  if (!match) throw new Error('no vapid authorization');
  const params = new Map(
    (match[1] as string).split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const token = params.get('t');
  const k = params.get('k');
  if (!token || !k) throw new Error('vapid needs t and k');
  const [header, claims, signature] = token.split('.');
  if (!header || !claims || !signature) throw new Error('t is not a JWS compact token');
  const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
  if (head.alg !== 'ES256') throw new Error(`alg ${head.alg}, not ES256`);
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) throw new Error('the VAPID signature does not verify');
  const body = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as {
    aud?: unknown;
    exp?: unknown;
    sub?: unknown;
  };
  if (body.aud !== audience) throw new Error(`aud ${String(body.aud)}, expected ${audience}`);
  if (typeof body.exp !== 'number' || body.exp <= nowSeconds || body.exp > nowSeconds + 86_400)
    throw new Error('exp is not within the next 24 hours');
  if (typeof body.sub !== 'string' || !/^(mailto:|https:)/.test(body.sub))
    throw new Error('sub is not a contact URI');
  return k;
}

export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

export interface ReceivedMessage {
  endpoint: string;
  /** The decrypted payload, parsed when it is JSON. */
  payload: unknown;
  ttl: number;
  urgency: string | undefined;
  at: number;
}

/** How the service answers a subscription's messages. */
export type PushAnswer = 'accept' | 'gone' | 'hang' | number;

export interface PushServiceStandIn {
  origin: string;
  /** The entry for PUSH_SERVICE_HOSTS (`127.0.0.1:<port>`). */
  host: string;
  ca: LoopbackCa;
  /** A new subscription bound to `applicationServerKey`, as `PushManager.subscribe` returns it. */
  subscribe(applicationServerKey: string): PushSubscriptionJson;
  /** Messages accepted (decrypted), for one endpoint or all. */
  messages(endpoint?: string): ReceivedMessage[];
  /** Requests refused, with why (a bad signature, a body that does not decrypt ...). */
  refusals(): { endpoint: string; status: number; reason: string }[];
  answer(endpoint: string, how: PushAnswer): void;
  /** Requests received and held unanswered now. */
  held(): number;
  /** Requests held unanswered since the start (each ended by its sender). */
  hung(): number;
  stop(): Promise<void>;
}

interface Subscription {
  userAgent: ECDH;
  auth: Buffer;
  serverKey: string;
  answer: PushAnswer;
}

export async function startPushService(
  options: { ca?: LoopbackCa; port?: number; onMessage?: (message: ReceivedMessage) => void } = {},
): Promise<PushServiceStandIn> {
  const ownCa = !options.ca;
  const ca = options.ca ?? makeLoopbackCa();
  const subscriptions = new Map<string, Subscription>();
  const received: ReceivedMessage[] = [];
  const refused: { endpoint: string; status: number; reason: string }[] = [];
  const open = new Set<ServerResponse>();
  let origin = '';
  let hung = 0;

  const refuse = (response: ServerResponse, endpoint: string, status: number, reason: string) => {
    refused.push({ endpoint, status, reason });
    response.writeHead(status, { 'content-type': 'text/plain' }).end(reason);
  };

  const handle = (request: IncomingMessage, response: ServerResponse, body: Buffer) => {
    const endpoint = `${origin}${request.url ?? '/'}`;
    const subscription = subscriptions.get(endpoint);
    if (request.method !== 'POST') return refuse(response, endpoint, 405, 'POST only');
    if (!subscription) return refuse(response, endpoint, 404, 'no such subscription');
    if (subscription.answer === 'gone') return refuse(response, endpoint, 410, 'subscription expired');
    if (subscription.answer === 'hang') {
      hung += 1;
      open.add(response);
      response.once('close', () => open.delete(response));
      return;
    }
    let key: string;
    try {
      key = verifyVapid(request.headers.authorization, origin, Date.now() / 1000);
    } catch (error: unknown) {
      return refuse(response, endpoint, 403, error instanceof Error ? error.message : String(error));
    }
    if (key !== subscription.serverKey)
      return refuse(response, endpoint, 403, 'k is not the key the subscription was made with');
    const ttl = Number(request.headers.ttl);
    if (request.headers.ttl === undefined || !Number.isInteger(ttl) || ttl < 0)
      return refuse(response, endpoint, 400, 'TTL header missing');
    if (request.headers['content-encoding'] !== 'aes128gcm')
      return refuse(response, endpoint, 415, 'Content-Encoding must be aes128gcm');
    let plain: Buffer;
    try {
      plain = decryptAes128gcm(body, subscription.userAgent, subscription.auth);
    } catch (error: unknown) {
      return refuse(
        response,
        endpoint,
        400,
        `cannot decrypt: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (typeof subscription.answer === 'number')
      return refuse(response, endpoint, subscription.answer, 'as told');
    const text = plain.toString('utf8');
    let payload: unknown = text;
    try {
      payload = JSON.parse(text);
    } catch {
      // Kept as text.
    }
    const message = {
      endpoint,
      payload,
      ttl,
      urgency: request.headers.urgency as string | undefined,
      at: Date.now(),
    };
    received.push(message);
    options.onMessage?.(message);
    response.writeHead(201, { location: `${endpoint}/messages/${received.length}` }).end();
  };

  const server = createServer({ key: ca.key, cert: ca.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 8192) chunks.push(chunk);
    });
    request.on('end', () => {
      // For people trying it by hand (`npm run push-service`): what PushManager.subscribe would give.
      if (request.method === 'POST' && request.url === '/subscribe') {
        let key = '';
        try {
          key = String(
            (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { applicationServerKey?: unknown })
              .applicationServerKey ?? '',
          );
        } catch {
          // Answered below.
        }
        if (!/^[A-Za-z0-9_-]{87}$/.test(key))
          return refuse(
            response,
            `${origin}/subscribe`,
            400,
            'send {"applicationServerKey": "<the service VAPID public key>"}',
          );
        response
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify(api.subscribe(key)));
        return;
      }
      if (size > 4096 + 86)
        return refuse(response, `${origin}${request.url}`, 413, 'payload over 4096 bytes');
      handle(request, response, Buffer.concat(chunks));
    });
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => ready());
  });
  const { port } = server.address() as AddressInfo;
  origin = `https://127.0.0.1:${port}`;

  const api: PushServiceStandIn = {
    origin,
    host: `127.0.0.1:${port}`,
    ca,
    subscribe(applicationServerKey) {
      const userAgent = createECDH('prime256v1');
      userAgent.generateKeys();
      const auth = randomBytes(16);
      const endpoint = `${origin}/wpush/v2/${randomBytes(24).toString('base64url')}`;
      subscriptions.set(endpoint, { userAgent, auth, serverKey: applicationServerKey, answer: 'accept' });
      return {
        endpoint,
        expirationTime: null,
        keys: { p256dh: userAgent.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    messages: (endpoint) => received.filter((m) => endpoint === undefined || m.endpoint === endpoint),
    refusals: () => [...refused],
    answer(endpoint, how) {
      const subscription = subscriptions.get(endpoint);
      if (!subscription) throw new Error(`no subscription ${endpoint}`);
      subscription.answer = how;
    },
    held: () => open.size,
    hung: () => hung,
    stop: () =>
      new Promise<void>((done) => {
        server.close(() => {
          if (ownCa) rmSync(ca.dir, { recursive: true, force: true });
          done();
        });
        server.closeAllConnections();
      }),
  };
  return api;
}
