/**
 * Test harness: the local runtime on 127.0.0.1:0 with a fresh DATA_DIR, fed by the simulator at a
 * controllable clock. Both stop by themselves in `stop()`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { type LocalService, startLocal } from '../../infra/local/start-local.ts';

export interface TestStack {
  service: LocalService;
  simulator: Awaited<ReturnType<typeof startSimulator>>;
  clock: { now(): number; set(ms: number): void };
  logs: string[];
  get(path: string, init?: RequestInit): Promise<Response>;
  json<T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }>;
  /** Stops the service only (the data directory stays for a restart). */
  stopService(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(options: {
  atMs: number;
  env?: Record<string, string>;
  dataDir?: string;
  /** Only these ports in the simulated feeds (default: every catalogue port). */
  ports?: readonly string[];
  /** A stand-in push service's CA certificate (PEM), trusted by the ingest's push deliveries. */
  pushCa?: string;
}): Promise<TestStack> {
  let nowMs = options.atMs;
  const clock = {
    now: () => nowMs,
    set: (ms: number) => {
      nowMs = ms;
      simulator.setClock(ms);
    },
  };
  const simulator = await startSimulator({
    clock: { now: () => nowMs },
    ...(options.ports ? { ports: options.ports } : {}),
  });
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'border-waits-')));
  const logs: string[] = [];
  const start = () =>
    startLocal({
      port: 0,
      dataDir,
      cbpFeedUrl: simulator.cbpXmlUrl,
      cbsaFeedUrl: simulator.cbsaEnUrl,
      ingestIntervalSeconds: 0,
      clock,
      log: (line) => logs.push(line),
      ...(options.pushCa ? { pushCa: options.pushCa } : {}),
      env: { FEED_TIMEOUT_MS: '1500', FEED_MAX_BYTES: String(2 * 1024 * 1024), ...options.env },
    });
  let service = await start();
  const stack: TestStack = {
    get service() {
      return service;
    },
    simulator,
    clock,
    logs,
    get: (path, init) => fetch(`${service.url}${path}`, init),
    async json<T>(path: string, init?: RequestInit) {
      const response = await fetch(`${service.url}${path}`, init);
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text ? JSON.parse(text) : undefined) as T,
      };
    },
    stopService: () => service.stop(),
    async restart() {
      await service.stop();
      service = await start();
    },
    async stop() {
      await service.stop();
      await simulator.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}
