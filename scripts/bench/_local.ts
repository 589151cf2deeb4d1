/** The local runtime fed by the feed simulator, for benchmarks: a fresh data directory, no schedule. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../../infra/local/simulator/server.ts';
import { startLocal } from '../../infra/local/start-local.ts';

export async function startBenchService(
  name: string,
  clock: { now(): number },
  env: Record<string, string> = {},
) {
  const simulator = await startSimulator({ clock });
  const dataDir = await mkdtemp(join(tmpdir(), `bench-${name}-`));
  const service = await startLocal({
    port: 0,
    dataDir,
    cbpFeedUrl: simulator.cbpXmlUrl,
    cbsaFeedUrl: simulator.cbsaEnUrl,
    ingestIntervalSeconds: 0,
    clock,
    log: () => {},
    env,
  });
  return {
    simulator,
    service,
    async stop() {
      await service.stop();
      await simulator.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
