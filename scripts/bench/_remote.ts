/**
 * The stand-ins in a process of their own, as DynamoDB and S3 are services of their own in AWS: the
 * benchmark's process then holds the function's work alone, so its CPU figure is the function's
 * and the stores do not queue behind it on one thread.
 *
 * `startStoresProcess(dataDir, 'stores')` runs dynalite and s3rver (tables and buckets created);
 * `'service'` runs the whole local service (`startLocal`, no schedule) and also gives its URL.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface StoresProcess {
  endpoints: { dynamodb: string; s3: string };
  /** The local service's URL (mode `service`). */
  url: string | null;
  /** The stores process's CPU time so far (user + system), in milliseconds. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

type Ready = { dynamodb: string; s3: string; url: string | null };

export async function startStoresProcess(
  dataDir: string,
  mode: 'stores' | 'service',
  env: Record<string, string> = {},
): Promise<StoresProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child', mode, dataDir], {
    env: { ...process.env, BENCH_CHILD_ENV: JSON.stringify(env) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Ready));
    child.once('exit', (code) =>
      reject(new Error(`the stores process exited (${code}) before it was ready`)),
    );
  });
  return {
    endpoints: { dynamodb: ready.dynamodb, s3: ready.s3 },
    url: ready.url,
    cpuMs() {
      return new Promise<number>((resolve) => {
        child.once('message', (message) => resolve(Number((message as { cpuMs: number }).cpuMs)));
        child.send('cpu');
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.send('stop');
      await exited;
    },
  };
}

async function runChild(mode: string, dataDir: string): Promise<void> {
  const env = JSON.parse(process.env.BENCH_CHILD_ENV ?? '{}') as Record<string, string>;
  let stop: () => Promise<void>;
  let ready: Ready;
  if (mode === 'service') {
    const { startLocal } = await import('../../infra/local/start-local.ts');
    const service = await startLocal({ port: 0, dataDir, ingestIntervalSeconds: 0, log: () => {}, env });
    ready = { ...service.endpoints, url: service.url };
    stop = () => service.stop();
  } else {
    const { createTables, startDynamoOwner } = await import('../../infra/local/dynamo.ts');
    const { startS3 } = await import('../../infra/local/s3.ts');
    const dynamo = await startDynamoOwner(dataDir);
    const s3 = await startS3(dataDir);
    await createTables(dynamo.endpoint);
    ready = { dynamodb: dynamo.endpoint, s3: s3.endpoint, url: null };
    stop = async () => {
      await s3.close();
      await dynamo.close();
    };
  }
  // Answers CPU questions; stops when asked, or when the benchmark's process goes away.
  const end = () => {
    stop().finally(() => process.exit(0));
  };
  process.on('message', (message) => {
    if (message !== 'cpu') return end();
    const used = process.cpuUsage();
    process.send?.({ cpuMs: (used.user + used.system) / 1000 });
  });
  process.once('disconnect', end);
  process.send?.(ready);
}

if (process.argv[2] === '--child') await runChild(process.argv[3] ?? 'stores', process.argv[4] ?? '.data');
