/**
 * Mixed traffic against the local service, in an open model: a request starts every 1/rate
 * seconds whether or not the earlier ones have answered (up to a cap in flight), so a slow or
 * stuck service shows as latency and timeouts instead of silently slowing the load down.
 *
 * Classes: the public API (views the CDN serves, and the dynamic paths), the keyed API, MCP
 * anonymous, MCP signed with development-IdP tokens (Pro and Business), MCP batches (older
 * protocol revisions), site pages and RSS.
 */
import { increment, type Tally } from './stats.ts';

const ERAS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];
const LEGACY_ERAS = ['2025-06-18', '2025-11-25'] as const;

/** How long a request may take before it counts as hung. */
export const REQUEST_TIMEOUT_MS = 30_000;

export interface TrafficTarget {
  url: string;
  mcpUrl: string;
  apiKey: string;
  /** Current access tokens (refreshed by the caller before they expire). */
  tokens: { pro: string; business: string };
  /** Published port ids to ask about. */
  portIds: readonly string[];
  /** Site paths (HTML pages) to fetch. */
  sitePaths: readonly string[];
  /**
   * A new browser push subscription on the stand-in push service (what PushManager.subscribe
   * gives); unset: no push traffic.
   */
  pushSubscription?: () => { endpoint: string; keys: { p256dh: string; auth: string } };
  /**
   * Lanes a push alert may watch: lanes with a recent reading, so new readings come during the
   * soak (a lane "Update Pending" all night would never send one).
   */
  pushLanes?: readonly PushLane[];
}

/** A lane a push alert watches. */
export interface PushLane {
  portId: string;
  direction: string;
  mode: string;
  lane: string;
}

/** Push alerts the traffic made and has not deleted yet (their delete tokens). */
interface HeldPushAlert {
  id: string;
  token: string;
}

/** San Ysidro's lanes, where no lane has a recent reading to choose from. */
const SAN_YSIDRO_LANES: readonly PushLane[] = [
  ['passenger', 'standard'],
  ['passenger', 'sentri'],
  ['passenger', 'ready'],
  ['pedestrian', 'standard'],
  ['commercial', 'fast'],
].map(([mode, lane]) => ({
  portId: '250401',
  direction: 'into-us',
  mode: mode as string,
  lane: lane as string,
}));

type Identity = 'anonymous' | 'pro' | 'business';

type Call = {
  name: string;
  arguments: Record<string, unknown>;
};

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const between = (low: number, high: number) => low + Math.floor(Math.random() * (high - low + 1));

function rpcMessage(era: Era, id: number, method: string, params: Record<string, unknown>) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params:
      era === '2026-07-28'
        ? {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': era,
              'io.modelcontextprotocol/clientCapabilities': {},
              'io.modelcontextprotocol/clientInfo': { name: 'border-waits-soak', version: '1' },
            },
          }
        : params,
  };
}

function rpcHeaders(era: Era, token: string | null, single?: Call): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': era,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(era === '2026-07-28' && single ? { 'mcp-method': 'tools/call', 'mcp-name': single.name } : {}),
  };
}

interface RpcAnswer {
  result?: { isError?: boolean; content?: { text?: string }[] };
  error?: { code: number; message: string };
}

/** Reads a JSON or SSE JSON-RPC answer (one message or a batch). */
function parseRpc(text: string, contentType: string): RpcAnswer[] {
  const json = contentType.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)) as unknown)
    : (JSON.parse(text) as unknown);
  return (Array.isArray(json) ? json : [json]) as RpcAnswer[];
}

export class Traffic {
  readonly #target: TrafficTarget;
  readonly #tally: Tally;
  readonly #rate: number;
  readonly #maxInFlight: number;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #etags = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #rpcId = 0;
  /** Starts skipped because the cap in flight was reached. */
  skipped = 0;

  constructor(target: TrafficTarget, tally: Tally, options: { rate: number; maxInFlight?: number }) {
    this.#target = target;
    this.#tally = tally;
    this.#rate = options.rate;
    this.#maxInFlight = options.maxInFlight ?? 64;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#launch(), 1000 / this.#rate);
  }

  /** Stops starting requests and waits for those in flight. */
  async pause(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.allSettled([...this.#inFlight]);
  }

  #launch(): void {
    if (this.#inFlight.size >= this.#maxInFlight) {
      this.skipped += 1;
      return;
    }
    const running = this.#one().catch(() => undefined);
    this.#inFlight.add(running);
    void running.finally(() => this.#inFlight.delete(running));
  }

  /** One request of a class drawn by weight. */
  #one(): Promise<void> {
    const roll = Math.random() * 100;
    if (roll < 22) return this.#publicView();
    if (roll < 32) return this.#publicDynamic();
    if (roll < 45) return this.#keyed();
    if (roll < 65) return this.#mcp('mcp-anonymous', 'anonymous');
    if (roll < 77) return this.#mcp('mcp-signed', Math.random() < 0.5 ? 'pro' : 'business');
    if (roll < 83) return this.#mcpBatch();
    if (roll < 86 && this.#target.pushSubscription) return this.#push();
    if (roll < 94) return this.#http('site', pick(this.#target.sitePaths));
    return this.#http(
      'rss',
      Math.random() < 0.5 ? '/rss.xml' : `/rss/ports/${pick(this.#target.portIds)}.xml`,
    );
  }

  #viewPath(): string {
    const port = pick(this.#target.portIds);
    return pick([
      '/api/v1/ports',
      '/api/v1/ports?border=mx',
      '/api/v1/ports?border=ca',
      '/api/v1/port-current',
      '/api/v1/port-current?include=ports',
      `/api/v1/port-hourly-averages?port_id=${port}`,
      `/api/v1/port-hourly-averages?port_id=${port}`,
    ]);
  }

  #publicView(): Promise<void> {
    return this.#http('api-public', this.#viewPath(), {}, true);
  }

  #publicDynamic(): Promise<void> {
    const port = pick(this.#target.portIds);
    const path = pick([
      `/api/v1/wait-observations?port_id=${port}&hours=${between(1, 48)}`,
      `/api/v1/wait-observations?port_id=${port}&hours=6&direction=into-us&mode=passenger`,
      '/api/v1/openapi.json',
      // A bad value of a known parameter: a 400 problem, never a 5xx.
      '/api/v1/ports?border=xx',
      `/api/v1/wait-observations?port_id=${port}&hours=soon`,
    ]);
    return this.#http('api-public', path);
  }

  #keyed(): Promise<void> {
    const port = pick(this.#target.portIds);
    const path =
      Math.random() < 0.3
        ? `/api/v1/wait-observations?port_id=${port}&hours=${between(1, 72)}`
        : this.#viewPath();
    return this.#http('api-keyed', path, { 'x-api-key': this.#target.apiKey }, true);
  }

  #anonymousCall(): Call {
    const port = pick(this.#target.portIds);
    return pick<Call>([
      {
        name: 'search_crossings',
        arguments: { query: pick(['el paso', 'tijuana', 'detroit', 'blaine', 'laredo']) },
      },
      { name: 'search_crossings', arguments: { border: pick(['mx', 'ca']) } },
      { name: 'get_current_waits', arguments: { port_id: port } },
      {
        name: 'compare_crossings',
        arguments: { direction: 'into-us', border: pick(['mx', 'ca']), lanes: ['standard', 'ready'] },
      },
      { name: 'best_time_to_cross', arguments: { port_id: port, direction: 'into-us', min_samples: 1 } },
    ]);
  }

  #signedCall(identity: 'pro' | 'business'): Call {
    const port = pick(this.#target.portIds);
    if (identity === 'pro') return { name: 'list_alerts', arguments: {} };
    return pick<Call>([
      { name: 'get_wait_history', arguments: { port_id: port, hours: between(1, 24) } },
      { name: 'export_observations', arguments: { port_ids: [port], hours: between(1, 6), format: 'json' } },
      { name: 'list_alerts', arguments: {} },
    ]);
  }

  #mcp(name: string, identity: Identity): Promise<void> {
    const era = pick(ERAS);
    const call = identity === 'anonymous' ? this.#anonymousCall() : this.#signedCall(identity);
    const token = identity === 'anonymous' ? null : this.#target.tokens[identity];
    this.#rpcId += 1;
    const body = JSON.stringify(rpcMessage(era, this.#rpcId, 'tools/call', call));
    return this.#rpc(name, era, token, body, [call], call);
  }

  /** 2-6 tool calls in one JSON-RPC batch, as clients of the older revisions may send. */
  #mcpBatch(): Promise<void> {
    const era = pick(LEGACY_ERAS);
    const calls = Array.from({ length: between(2, 6) }, () => this.#anonymousCall());
    const body = JSON.stringify(
      calls.map((call) => {
        this.#rpcId += 1;
        return rpcMessage(era, this.#rpcId, 'tools/call', call);
      }),
    );
    return this.#rpc('mcp-batch', era, null, body, calls);
  }

  async #rpc(name: string, era: Era, token: string | null, body: string, calls: Call[], single?: Call) {
    await this.#request(
      name,
      this.#target.mcpUrl,
      { method: 'POST', headers: rpcHeaders(era, token, single), body },
      async (response) => {
        const text = await response.text();
        if (!response.ok) return `${response.status} ${text.slice(0, 200)}`;
        const tally = this.#tally.of(name);
        const answers = parseRpc(text, response.headers.get('content-type') ?? '');
        if (answers.length !== calls.length) return `${calls.length} calls, ${answers.length} answers`;
        answers.forEach((answer, index) => {
          if (answer.error) increment(tally.rpcErrors, answer.error.code);
          else if (answer.result?.isError) {
            const tool = calls[index]?.name ?? '?';
            increment(tally.toolErrors, tool);
            if (tally.samples.length < 5) {
              tally.samples.push(`${tool}: ${answer.result.content?.[0]?.text?.slice(0, 160) ?? ''}`);
            }
          }
        });
        return null;
      },
    );
  }

  #http(
    name: string,
    path: string,
    headers: Record<string, string> = {},
    conditional = false,
  ): Promise<void> {
    const url = `${this.#target.url}${path}`;
    const etagKey = `${headers['x-api-key'] ? 'k' : 'p'} ${path}`;
    const etag = conditional && Math.random() < 0.3 ? this.#etags.get(etagKey) : undefined;
    return this.#request(
      name,
      url,
      { headers: { ...headers, ...(etag ? { 'if-none-match': etag } : {}) } },
      async (response) => {
        const text = await response.text();
        const tag = response.headers.get('etag');
        if (response.ok && tag) this.#etags.set(etagKey, tag);
        return response.status >= 500 ? `${response.status} ${path}: ${text.slice(0, 160)}` : null;
      },
    );
  }

  /** Counts of push alerts made and deleted by the traffic. */
  readonly pushAlerts = { created: 0, deleted: 0, renewed: 0 };
  readonly #held: HeldPushAlert[] = [];

  /**
   * A traveller's push alert: made (most below 240 minutes, so the next ingest sends it), renewed,
   * or deleted (the oldest first, so about 30 stay live), and now and then a refused one (400).
   */
  #push(): Promise<void> {
    const roll = Math.random();
    const oldest = this.#held[0];
    if (oldest && (this.#held.length > 30 || roll < 0.3)) {
      this.#held.shift();
      return this.#request(
        'push',
        `${this.#target.url}/push/subscriptions/${oldest.id}`,
        { method: 'DELETE', headers: { authorization: `Bearer ${oldest.token}` } },
        async (response) => {
          await response.text();
          if (response.status === 204) this.pushAlerts.deleted += 1;
          // 404: its push service answered 410 and the service forgot it.
          return response.status === 204 || response.status === 404
            ? null
            : `DELETE ${oldest.id}: ${response.status}`;
        },
      );
    }
    if (oldest && roll < 0.4) {
      return this.#request(
        'push',
        `${this.#target.url}/push/subscriptions/${oldest.id}`,
        { method: 'PUT', headers: { authorization: `Bearer ${oldest.token}` } },
        async (response) => {
          await response.text();
          if (response.status === 200) this.pushAlerts.renewed += 1;
          return response.status === 200 || response.status === 404
            ? null
            : `PUT ${oldest.id}: ${response.status}`;
        },
      );
    }
    const subscription = this.#target.pushSubscription?.();
    if (!subscription) return Promise.resolve();
    const watched = pick(this.#target.pushLanes?.length ? this.#target.pushLanes : SAN_YSIDRO_LANES);
    const refused = roll > 0.95;
    const body = {
      subscription: refused ? { ...subscription, endpoint: 'https://push.example.net/x' } : subscription,
      alert: {
        port_id: watched.portId,
        direction: watched.direction,
        mode: watched.mode,
        lane: watched.lane,
        below_minutes: Math.random() < 0.8 ? 240 : between(5, 60),
        ...(Math.random() < 0.2 ? { quiet: { from: '22:00', to: '06:00' } } : {}),
      },
      lang: pick(['en', 'es', 'fr']),
    };
    return this.#request(
      'push',
      `${this.#target.url}/push/subscriptions`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      async (response) => {
        const text = await response.text();
        if (response.status === 201) {
          const created = JSON.parse(text) as HeldPushAlert;
          this.#held.push({ id: created.id, token: created.token });
          this.pushAlerts.created += 1;
          return null;
        }
        return response.status === (refused ? 400 : 201)
          ? null
          : `POST: ${response.status} ${text.slice(0, 160)}`;
      },
    );
  }

  /** Times one request to the end of its body; `read` returns a failure text or null. */
  async #request(
    name: string,
    url: string,
    init: RequestInit,
    read: (response: Response) => Promise<string | null>,
  ): Promise<void> {
    const started = performance.now();
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const failure = await read(response).catch((error: unknown) =>
        error instanceof Error && error.name === 'TimeoutError'
          ? Promise.reject(error)
          : `unreadable answer from ${url}: ${String(error)}`,
      );
      const ms = performance.now() - started;
      this.#tally.record(
        name,
        response.status,
        ms,
        response.status >= 500 ? (failure ?? undefined) : undefined,
      );
      if (failure && response.status < 500) {
        const tally = this.#tally.of(name);
        if (tally.samples.length < 5) tally.samples.push(failure);
      }
    } catch (error: unknown) {
      const ms = performance.now() - started;
      const timedOut =
        error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const message =
        error instanceof Error
          ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ''}`
          : String(error);
      this.#tally.record(name, timedOut ? 'timeout' : 'network', ms, `${url}: ${message}`);
    }
  }
}
