/**
 * Memory and open descriptors of this process (which runs the whole local service), measured in a
 * quiet window: after a forced full GC, several samples, the median for memory and the lowest
 * descriptor count, so one in-flight ingest or keep-alive socket does not read as growth.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** `global.gc`, exposed at run time when node was started without `--expose-gc`. */
function forcedGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const gc = forcedGc();

export interface Descriptors {
  total: number;
  byKind: Record<string, number>;
  /** Open regular files by folder (the data directory's stores among them). */
  filesByFolder: Record<string, number>;
  /** TCP sockets by role and peer: `listen X`, `client of X`, `server of X` (X a named local port). */
  socketsByPeer: Record<string, number>;
}

/** Local TCP connections by socket inode: local and remote ports, and whether it listens (Linux). */
function tcpByInode(): Map<string, { local: number; remote: number; listening: boolean }> {
  const byInode = new Map<string, { local: number; remote: number; listening: boolean }>();
  for (const file of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, remote, state, inode] = [fields[1], fields[2], fields[3], fields[9]];
      if (!local || !remote || !state || !inode) continue;
      const port = (address: string) => Number.parseInt(address.split(':')[1] ?? '0', 16);
      byInode.set(inode, { local: port(local), remote: port(remote), listening: state === '0A' });
    }
  }
  return byInode;
}

/** Open descriptors by kind (socket, pipe, file, anon_inode...), from /proc/self/fd (Linux). */
export function openDescriptors(ports: Record<number, string> = {}): Descriptors | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/fd');
  } catch {
    return null;
  }
  const byKind: Record<string, number> = {};
  const filesByFolder: Record<string, number> = {};
  const socketsByPeer: Record<string, number> = {};
  const tcp = tcpByInode();
  let total = 0;
  for (const entry of entries) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${entry}`);
    } catch {
      continue; // closed meanwhile (the readdir's own descriptor among them)
    }
    const kind = /^(\w+):/.exec(target)?.[1] ?? 'file';
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    const inode = /^socket:\[(\d+)\]/.exec(target)?.[1];
    const connection = inode ? tcp.get(inode) : undefined;
    if (connection) {
      const name = (port: number) => ports[port] ?? 'other';
      const role = connection.listening
        ? `listen ${name(connection.local)}`
        : ports[connection.local]
          ? `server of ${name(connection.local)}`
          : `client of ${name(connection.remote)}`;
      socketsByPeer[role] = (socketsByPeer[role] ?? 0) + 1;
    }
    if (kind === 'file') {
      const folder = dirname(target);
      filesByFolder[folder] = (filesByFolder[folder] ?? 0) + 1;
    }
    total += 1;
  }
  return { total, byKind, filesByFolder, socketsByPeer };
}

export interface ProcessSample {
  /** Live JS memory after a full GC: heapUsed + external (Buffers, ArrayBuffers), bytes. */
  live: number;
  heapUsed: number;
  /** V8 heap reserved: it keeps the high-water mark of busy moments, and rss follows it. */
  heapTotal: number;
  rss: number;
  /**
   * Anonymous resident memory (RssAnon, Linux): the rss without file-backed pages, which LevelDB's
   * memory-mapped table files add as the embedded DynamoDB's data grows.
   */
  rssAnon: number | null;
  descriptors: Descriptors | null;
}

/** RssAnon of this process in bytes (Linux), else null. */
export function anonymousRss(): number | null {
  try {
    const kb = /^RssAnon:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** `samples` samples `everyMs` apart, each after a forced full GC; medians, and the fewest descriptors. */
export async function sampleProcess(
  samples: number,
  everyMs: number,
  ports: Record<number, string> = {},
): Promise<ProcessSample> {
  const taken: ProcessSample[] = [];
  for (let i = 0; i < samples; i += 1) {
    if (i > 0) await sleep(everyMs);
    gc();
    gc();
    const memory = process.memoryUsage();
    taken.push({
      live: memory.heapUsed + memory.external,
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      rss: memory.rss,
      rssAnon: anonymousRss(),
      descriptors: openDescriptors(ports),
    });
  }
  const fewest = taken
    .map((s) => s.descriptors)
    .filter((d): d is Descriptors => d !== null)
    .sort((a, b) => a.total - b.total)[0];
  return {
    live: median(taken.map((s) => s.live)),
    heapUsed: median(taken.map((s) => s.heapUsed)),
    heapTotal: median(taken.map((s) => s.heapTotal)),
    rss: median(taken.map((s) => s.rss)),
    rssAnon: taken.every((s) => s.rssAnon !== null) ? median(taken.map((s) => s.rssAnon as number)) : null,
    descriptors: fewest ?? null,
  };
}
