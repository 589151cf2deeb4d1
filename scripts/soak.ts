/**
 * `npm run soak -- --minutes N [--rate R]`: the whole local service on the feed simulator, ingesting
 * every 5 s, under mixed traffic (public and keyed API, MCP anonymous, signed and batched, site
 * pages, RSS) while the simulator's feeds fail on a schedule (HTTP 500, hang, truncated, empty,
 * shrunken, wrong content type, oversized, entity bomb, an older document replayed), with two
 * alerts whose webhook never answers. Prints requests by status, p50/p99 latency, memory and open
 * descriptors at the start and the end, and for each fault whether the served data stayed as it
 * was. Exits 1 on any 5xx or unanswered request, live memory growth of 10 % or more, more open
 * descriptors at the end, or data lost or moved back by a fault; 2 on a usage error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { createDocumentClient } from '../functions/adapters/dynamo/client.ts';
import { createKeyStore } from '../functions/adapters/dynamo/keys.ts';
import { generateKey, newKeyRecord } from '../functions/core/access/keys.ts';
import type { SourceOutcome } from '../functions/core/ingest/ingest.ts';
import { devLogin } from '../infra/local/dev-idp-login.ts';
import { startPushService } from '../infra/local/push-service.ts';
import { startSimulator } from '../infra/local/simulator/server.ts';
import { SITE_DIST } from '../infra/local/site-upload.ts';
import { startLocal } from '../infra/local/start-local.ts';
import { TABLES } from '../infra/manifest.ts';
import { compare, faultRound, outcomeText, type ScheduledFault, snapshot } from './soak/faults.ts';
import { anonymousRss, type ProcessSample, sampleProcess } from './soak/process.ts';
import { startHangingReceiver } from './soak/receiver.ts';
import { increment, LatencyHistogram, Tally } from './soak/stats.ts';
import { Traffic } from './soak/traffic.ts';

const USAGE = `usage: npm run soak -- --minutes N [--rate R]
  --minutes N   how long to run (default: SOAK_MINUTES, else 5); at least one full round of the
                nine faults always runs, however short N is
  --rate R      requests started per second (default 8)
  --heap-snapshots DIR
                also write a V8 heap snapshot into DIR in each quiet window (start and end), to
                compare in Chrome DevTools (Memory, Comparison) when memory grows`;

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

let options: { minutes?: string; rate?: string; 'heap-snapshots'?: string; help?: boolean };
try {
  options = parseArgs({
    options: {
      minutes: { type: 'string' },
      rate: { type: 'string' },
      'heap-snapshots': { type: 'string' },
      help: { type: 'boolean' },
    },
  }).values;
} catch (error: unknown) {
  usage(error instanceof Error ? error.message : String(error));
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const minutes = Number(options.minutes ?? process.env.SOAK_MINUTES ?? 5);
if (!Number.isFinite(minutes) || minutes <= 0) {
  usage(
    `--minutes must be a positive number of minutes, got "${options.minutes ?? process.env.SOAK_MINUTES}"`,
  );
}
const rate = Number(options.rate ?? 8);
if (!Number.isFinite(rate) || rate <= 0 || rate > 500)
  usage(`--rate must be between 0 and 500, got "${options.rate}"`);

const heapSnapshots = options['heap-snapshots'];
if (heapSnapshots !== undefined && !existsSync(heapSnapshots))
  usage(`--heap-snapshots: the folder "${heapSnapshots}" does not exist; create it first`);

const INTERVAL_MS = 5_000;
const FEED_TIMEOUT_MS = 3_000;
const FEED_MAX_BYTES = 2 * 1024 * 1024;
const TOKEN_REFRESH_MS = 4 * 60_000;
const QUIET_MS = 7_000;
const runMs = minutes * 60_000;
const warmupMs = Math.min(120_000, Math.max(20_000, runMs * 0.1));

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const pct = (from: number, to: number) => ((to - from) / from) * 100;
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)} %`;

// The site pages come from the built site: build it once when it is missing.
if (!existsSync(join(SITE_DIST, 'index.html'))) {
  console.log('soak: site/dist is missing, building the site first (npm run build:site)');
  const built = spawnSync('npm', ['run', '-s', 'build:site'], { stdio: 'inherit' });
  if (built.status !== 0) {
    console.error('soak: the site build failed; fix it (npm run build:site) and run the soak again');
    process.exit(1);
  }
}

function sitePaths(): string[] {
  const pages: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'index.html') pages.push(`/${relative(SITE_DIST, dir)}/`.replace(/\/+/g, '/'));
    }
  };
  walk(SITE_DIST);
  // Every top-level page, and a sample of the per-port ones.
  const ports = pages.filter((p) => /\/ports\/./.test(p));
  return [...pages.filter((p) => !/\/ports\/./.test(p)), ...ports.filter((_, i) => i % 10 === 0)];
}

const started = Date.now();
const logTail: string[] = [];
let logLines = 0;
const log = (line: string) => {
  logLines += 1;
  logTail.push(line.slice(0, 300));
  if (logTail.length > 20) logTail.shift();
};

const receiver = await startHangingReceiver();
// Travellers' push alerts go to a stand-in push service on loopback TLS with a CA of its own; it
// verifies each message's VAPID signature and decrypts it. One new subscription in ten hangs and
// one in ten is gone (410), as real push services sometimes are.
const push = await startPushService();
const simulator = await startSimulator({});
const dataDir = await mkdtemp(join(tmpdir(), 'border-waits-soak-'));
const UNLIMITED = '1000000';
const service = await startLocal({
  port: 0,
  dataDir,
  cbpFeedUrl: simulator.cbpXmlUrl,
  cbsaFeedUrl: simulator.cbsaEnUrl,
  // The soak runs the schedule itself (every 5 s, as INGEST_INTERVAL_SECONDS=5 would), so that
  // each fault window can wait for a cycle that started after the fault was set.
  ingestIntervalSeconds: 0,
  log,
  pushCa: push.ca.caPem,
  env: {
    PUSH_SERVICE_HOSTS: push.host,
    PUSH_SUBSCRIPTIONS_PER_HOUR: '1000000',
    PUSH_TIMEOUT_MS: '2000',
    FEED_TIMEOUT_MS: String(FEED_TIMEOUT_MS),
    FEED_MAX_BYTES: String(FEED_MAX_BYTES),
    // The hanging receiver listens on loopback: allowed in development only.
    ALERT_WEBHOOK_ALLOW_PRIVATE: 'true',
    // One loopback client makes all the traffic: the per-IP, per-key and per-user limits (tested
    // on their own) would otherwise answer most of it with 429.
    KEY_RATE_LIMIT_PER_MINUTE: UNLIMITED,
    PUBLIC_RATE_LIMIT_PER_MINUTE: UNLIMITED,
    EDGE_RATE_LIMIT_PER_MINUTE: UNLIMITED,
    MCP_RATE_LIMIT_PER_MINUTE: UNLIMITED,
    MCP_USER_RATE_LIMIT_PER_MINUTE: UNLIMITED,
  },
});

interface Cycle {
  startedAt: number;
  endedAt: number;
  outcomes: SourceOutcome[];
  error: string | null;
}
const cycleTimes = new LatencyHistogram();
let cycleCount = 0;
let cycleErrors = 0;
let slowestCycleMs = 0;
const recentCycles: Cycle[] = [];
let cycleRunning: Promise<Cycle> | null = null;

/** One ingest cycle, or the one already running (one at a time, as in AWS). */
function runCycle(): Promise<Cycle> {
  cycleRunning ??= (async () => {
    const startedAt = Date.now();
    let outcomes: SourceOutcome[] = [];
    let error: string | null = null;
    try {
      outcomes = await service.ingestNow();
      // The forecast function's run (its slot's work once, then a skip), as its schedule makes it.
      await service.forecastNow();
    } catch (failure: unknown) {
      error = failure instanceof Error ? failure.message : String(failure);
      cycleErrors += 1;
    }
    const cycle = { startedAt, endedAt: Date.now(), outcomes, error };
    cycleCount += 1;
    cycleTimes.record(cycle.endedAt - startedAt);
    slowestCycleMs = Math.max(slowestCycleMs, cycle.endedAt - startedAt);
    recentCycles.push(cycle);
    if (recentCycles.length > 50) recentCycles.shift();
    cycleRunning = null;
    return cycle;
  })();
  return cycleRunning;
}

let schedule: NodeJS.Timeout | null = null;
/** The ingest schedule: every 5 s, as INGEST_INTERVAL_SECONDS=5 would run it. */
function resumeIngest(): void {
  schedule ??= setInterval(() => void runCycle(), INTERVAL_MS);
}
async function pauseIngest(): Promise<void> {
  if (schedule) clearInterval(schedule);
  schedule = null;
  await cycleRunning;
}

const tally = new Tally();
const timers: NodeJS.Timeout[] = [];
let exitCode = 1;
try {
  console.log(
    `soak: ${minutes} min at ${rate} requests/s against ${service.url}, ingest every ${INTERVAL_MS / 1000} s from the simulator at ${simulator.url}`,
  );
  await runCycle();
  resumeIngest();

  // A Business key, issued straight into the key table as `npm run keys -- create` does.
  const doc = createDocumentClient({ endpoint: service.endpoints.dynamodb });
  const apiKey = generateKey();
  await createKeyStore(doc, TABLES.keys.name).put(newKeyRecord(apiKey, 'Soak Freight', Date.now()));
  doc.destroy();

  const login = async (user: 'pro' | 'business') =>
    (await devLogin({ issuer: service.issuer, user, resource: service.mcpUrl })).access_token;
  const tokens = { pro: await login('pro'), business: await login('business') };
  // Development tokens live 10 minutes.
  timers.push(
    setInterval(() => {
      Promise.all([login('pro'), login('business')])
        .then(([pro, business]) => Object.assign(tokens, { pro, business }))
        .catch((error: unknown) => log(`token refresh failed: ${String(error)}`));
    }, TOKEN_REFRESH_MS),
  );

  const ports = (await (await fetch(`${service.url}/api/v1/ports`)).json()) as { ports: { id: string }[] };
  const portIds = ports.ports.filter((_, i) => i % 4 === 0).map((p) => p.id);

  /** One tools/call as the Pro user, in the older protocol revision's plain JSON-RPC. */
  const callTool = (name: string, args: Record<string, unknown>) =>
    fetch(service.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${tokens.pro}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });

  // Two alerts that fire on every fresh reading, each delivered to the receiver that never answers.
  const alertIds: string[] = [];
  for (const [port, lane] of [
    ['250401', 'standard'],
    ['250401', 'sentri'],
  ] as const) {
    const response = await callTool('create_alert', {
      port_id: port,
      direction: 'into-us',
      mode: 'passenger',
      lane,
      comparison: 'below',
      threshold_minutes: 1440,
      cooldown_minutes: 5,
      webhook_url: receiver.url,
    });
    const answer = (await response.json()) as {
      result?: {
        isError?: boolean;
        structuredContent?: { alert?: { id: string } };
        content?: { text: string }[];
      };
    };
    const id = answer.result?.structuredContent?.alert?.id;
    if (!id)
      throw new Error(`create_alert failed: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
    alertIds.push(id);
  }

  const portOf = (url: string) => Number(new URL(url).port);
  const namedPorts: Record<number, string> = {
    [portOf(service.url)]: 'service',
    [portOf(service.originUrl)]: 'origin',
    [portOf(service.endpoints.dynamodb)]: 'dynamodb',
    [portOf(service.endpoints.s3)]: 's3',
    [portOf(service.issuer)]: 'idp',
    [portOf(simulator.url)]: 'simulator',
    [portOf(receiver.url)]: 'webhook',
    [portOf(push.origin)]: 'push-service',
  };
  const vapidKey = (
    (await (await fetch(`${service.url}/push/vapid-public-key`)).json()) as { publicKey: string }
  ).publicKey;
  let subscriptions = 0;
  const pushSubscription = () => {
    const subscription = push.subscribe(vapidKey);
    // The first of every ten hangs, the second is gone.
    if (subscriptions % 10 === 0) push.answer(subscription.endpoint, 'hang');
    else if (subscriptions % 10 === 1) push.answer(subscription.endpoint, 'gone');
    subscriptions += 1;
    return subscription;
  };
  // Push alerts watch lanes of automated ports read in the last 15 minutes: they publish every
  // few minutes, so dips come during the soak whatever the hour (at night some ports are all
  // "Update Pending").
  const recentLanes = [...(await snapshot(service.url))].flatMap(([key, lane]) => {
    const [portId = '', direction = '', mode = '', laneName = ''] = key.split(' ');
    const fresh = lane.observedAt !== null && Date.now() - Date.parse(lane.observedAt) < 15 * 60_000;
    return lane.status === 'open' && lane.source === 'cbp' && fresh
      ? [{ portId, direction, mode, lane: laneName }]
      : [];
  });
  console.log(
    `soak: push alerts watch ${recentLanes.length || "San Ysidro's"} lanes${recentLanes.length ? ' read in the last 15 minutes' : ' (no lane was read in the last 15 minutes)'}`,
  );
  const traffic = new Traffic(
    {
      url: service.url,
      mcpUrl: service.mcpUrl,
      apiKey,
      tokens,
      portIds,
      sitePaths: sitePaths(),
      pushSubscription,
      pushLanes: recentLanes,
    },
    tally,
    { rate },
  );

  /**
   * Traffic and the ingest schedule paused (the cycle in flight finished), idle keep-alive
   * connections given time to close (every local server closes them after 5 s), then sampled;
   * both resume afterwards.
   */
  const quietSample = async (): Promise<ProcessSample> => {
    await Promise.all([traffic.pause(), pauseIngest()]);
    await sleep(QUIET_MS);
    const sample = await sampleProcess(5, 1_000, namedPorts);
    if (heapSnapshots) {
      console.log(
        `soak: heap snapshot ${writeHeapSnapshot(join(heapSnapshots, `soak-${Date.now()}.heapsnapshot`))}`,
      );
    }
    resumeIngest();
    return sample;
  };

  // Memory once a minute (no forced GC), to tell a plateau from a climb.
  const timeline: { minute: number; heapTotal: number; live: number; rss: number; rssAnon: number | null }[] =
    [];
  timers.push(
    setInterval(() => {
      const memory = process.memoryUsage();
      timeline.push({
        minute: Math.round((Date.now() - started) / 60_000),
        heapTotal: memory.heapTotal,
        live: memory.heapUsed + memory.external,
        rss: memory.rss,
        rssAnon: anonymousRss(),
      });
    }, 60_000),
  );

  traffic.start();
  console.log(`soak: warming up for ${Math.round(warmupMs / 1000)} s`);
  await sleep(warmupMs);
  const first = await quietSample();
  traffic.start();

  const results: {
    fault: ScheduledFault;
    windowMs: number;
    under: string;
    recovered: string;
    comparison: ReturnType<typeof compare>;
  }[] = [];
  const deadline = started + runMs;
  let round = 0;
  // Faults back to back until the time is up, and at least one full round.
  while (round === 0 || Date.now() < deadline) {
    for (const fault of faultRound(round, FEED_MAX_BYTES)) {
      if (round > 0 && Date.now() >= deadline) break;
      await runCycle(); // no cycle in flight has fetched before the fault
      simulator.setFault(fault.feed, fault.fault);
      const setAt = Date.now();
      let before: Awaited<ReturnType<typeof snapshot>>;
      let after: Awaited<ReturnType<typeof snapshot>>;
      try {
        before = await snapshot(service.url);
        await sleep(INTERVAL_MS);
        await runCycle(); // at least one whole cycle under the fault
        after = await snapshot(service.url);
      } finally {
        simulator.setFault(fault.feed, null);
      }
      const clearedAt = Date.now();
      const under = recentCycles
        .filter((c) => c.startedAt >= setAt && c.endedAt <= clearedAt)
        .flatMap((c) => c.outcomes.filter((o) => o.source === fault.feed));
      await runCycle();
      const recovery = await runCycle(); // started after the fault was cleared
      const c = compare(before, after, fault);
      results.push({
        fault,
        windowMs: clearedAt - setAt,
        under: outcomeText(under),
        recovered: outcomeText(recovery.outcomes.filter((o) => o.source === fault.feed)),
        comparison: c,
      });
      const kept = c.lost.length + c.movedBack.length + c.changed.length === 0;
      console.log(
        `soak: ${((Date.now() - started) / 60_000).toFixed(1)} min, round ${round + 1}, ${fault.feed} ${fault.name}: ${kept ? 'data kept' : 'DATA LOST'}; ${tally.total()} requests, ${tally.failures()} 5xx or unanswered`,
      );
    }
    round += 1;
  }

  const last = await quietSample();
  await pauseIngest();
  for (const timer of timers) clearInterval(timer);

  // What became of the alerts on the hanging webhook.
  const listed = await callTool('list_alerts', {});
  const alerts =
    (
      (await listed.json()) as {
        result?: {
          structuredContent?: { alerts?: { id: string; firings: { delivery: { status: string } }[] }[] };
        };
      }
    ).result?.structuredContent?.alerts ?? [];
  const firings = alerts.flatMap((a) => a.firings);

  // ---- report ----
  const failures: string[] = [];
  const elapsed = (Date.now() - started) / 60_000;
  console.log(
    `\nsoak: ${elapsed.toFixed(1)} min (asked ${minutes}), ${tally.total()} requests at ${rate}/s, ${round} fault round(s), ${cycleCount} ingest cycles`,
  );
  console.log('\nrequests by status (p50 / p99 ms)');
  for (const [name, t] of [...tally.classes].sort(([a], [b]) => a.localeCompare(b))) {
    const statuses = [...t.statuses]
      .sort(([a], [b]) => String(a).localeCompare(String(b)))
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    const extras = [
      t.rpcErrors.size ? `JSON-RPC errors ${[...t.rpcErrors].map(([c, n]) => `${c}: ${n}`).join(', ')}` : '',
      t.toolErrors.size ? `tool errors ${[...t.toolErrors].map(([c, n]) => `${c}: ${n}`).join(', ')}` : '',
    ].filter(Boolean);
    console.log(
      `  ${name.padEnd(15)} ${String(t.latency.count).padStart(6)}  ${t.latency.percentile(50).toFixed(1).padStart(7)} / ${t.latency.percentile(99).toFixed(1).padStart(7)}   ${statuses}${extras.length ? `   ${extras.join('; ')}` : ''}`,
    );
    for (const sample of t.samples) console.log(`      e.g. ${sample}`);
  }
  const all = tally.overall();
  console.log(
    `  ${'all'.padEnd(15)} ${String(all.count).padStart(6)}  ${all.percentile(50).toFixed(1).padStart(7)} / ${all.percentile(99).toFixed(1).padStart(7)}`,
  );
  const bad = tally.failures();
  if (bad > 0) failures.push(`${bad} requests answered 5xx or never answered`);
  if (traffic.skipped > 0)
    console.log(`  ${traffic.skipped} starts skipped: 64 requests were already in flight`);
  const toolErrors = [...tally.classes.values()].reduce(
    (sum, t) => sum + [...t.toolErrors.values()].reduce((a, b) => a + b, 0),
    0,
  );
  if (toolErrors > 0) failures.push(`${toolErrors} valid tool calls answered isError`);

  console.log(
    `\ningest cycles: ${cycleCount}, median ${cycleTimes.percentile(50).toFixed(0)} ms, p99 ${cycleTimes.percentile(99).toFixed(0)} ms, slowest ${slowestCycleMs} ms, ${cycleErrors} threw`,
  );
  console.log(
    `hanging webhook: ${alertIds.length} alerts, ${firings.length} firings (${firings.filter((f) => f.delivery.status === 'failed').length} failed deliveries), ${receiver.received()} requests received and never answered`,
  );

  // What the stand-in push service saw: every message verified and decrypted, or refused as told.
  const pushRefusals = push.refusals();
  const refusedByStatus = new Map<number, number>();
  for (const refusal of pushRefusals) increment(refusedByStatus, refusal.status);
  const unexpected = pushRefusals.filter((r) => r.status !== 410);
  console.log(
    `push: ${traffic.pushAlerts.created} alerts created, ${traffic.pushAlerts.renewed} renewed, ${traffic.pushAlerts.deleted} deleted; ${push.messages().length} messages verified and decrypted by the stand-in push service; answered 410 (gone): ${refusedByStatus.get(410) ?? 0}; left hanging: ${push.hung()}`,
  );
  if (unexpected.length > 0)
    failures.push(
      `${unexpected.length} push messages refused by the push service (${unexpected[0]?.reason})`,
    );
  if (traffic.pushAlerts.created > 0 && push.messages().length === 0)
    failures.push('no push message was delivered');

  console.log(
    '\nmemory and descriptors (quiet window: traffic and ingest paused 7 s, 5 samples after a forced GC)',
  );
  const liveGrowth = pct(first.live, last.live);
  console.log(
    `  live heap + external   start ${mb(first.live)}   end ${mb(last.live)}   ${signed(liveGrowth)}  (median)`,
  );
  console.log(
    `  V8 heap reserved       start ${mb(first.heapTotal)}   end ${mb(last.heapTotal)}   ${signed(pct(first.heapTotal, last.heapTotal))}  (median)`,
  );
  console.log(
    `  rss                    start ${mb(first.rss)}   end ${mb(last.rss)}   ${signed(pct(first.rss, last.rss))}  (median)`,
  );
  if (first.rssAnon !== null && last.rssAnon !== null) {
    console.log(
      `  rss, anonymous only    start ${mb(first.rssAnon)}   end ${mb(last.rssAnon)}   ${signed(pct(first.rssAnon, last.rssAnon))}  (median)`,
    );
  }
  if (timeline.length > 0) {
    const every = Math.max(1, Math.ceil(timeline.length / 10));
    console.log(
      `  once a minute (no GC)  ${timeline
        .filter((_, i) => i % every === 0 || i === timeline.length - 1)
        .map(
          (t) =>
            `${t.minute}m: live ${mb(t.live)}, heap ${mb(t.heapTotal)}, rss ${mb(t.rss)}${t.rssAnon === null ? '' : ` (anon ${mb(t.rssAnon)})`}`,
        )
        .join('\n                         ')}`,
    );
  }
  if (liveGrowth >= 10) failures.push(`live memory grew ${liveGrowth.toFixed(1)} %`);
  if (first.descriptors && last.descriptors) {
    const kinds = (d: NonNullable<ProcessSample['descriptors']>) =>
      Object.entries(d.byKind)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ');
    console.log(`  open descriptors       start ${first.descriptors.total} (${kinds(first.descriptors)})`);
    console.log(
      `                         end   ${last.descriptors.total} (${kinds(last.descriptors)})  (fewest)`,
    );
    const folders = (d: NonNullable<ProcessSample['descriptors']>) =>
      Object.entries(d.filesByFolder)
        .map(([folder, count]) => {
          const inData = relative(dataDir, folder);
          return `${inData.startsWith('..') ? folder : `DATA_DIR/${inData}`} ${count}`;
        })
        .join(', ');
    const peers = (d: NonNullable<ProcessSample['descriptors']>) =>
      Object.entries(d.socketsByPeer)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([peer, count]) => `${peer} ${count}`)
        .join(', ');
    console.log(`  sockets                start ${peers(first.descriptors)}`);
    console.log(`                         end   ${peers(last.descriptors)}`);
    console.log(`  open files by folder   start ${folders(first.descriptors)}`);
    console.log(`                         end   ${folders(last.descriptors)}`);
    if (last.descriptors.total > first.descriptors.total) {
      failures.push(`open descriptors grew from ${first.descriptors.total} to ${last.descriptors.total}`);
    }
  } else {
    console.log('  open descriptors: /proc/self/fd is not readable here (Linux only): not measured');
  }

  console.log('\nfaults (served port-current compared before and after each fault window)');
  for (const r of results) {
    const c = r.comparison;
    const kept = c.lost.length === 0 && c.movedBack.length === 0 && c.changed.length === 0;
    if (!kept) failures.push(`${r.fault.feed} ${r.fault.name}: data lost or moved back`);
    const label = `${r.fault.feed} ${r.fault.name}`.padEnd(34);
    console.log(
      `  ${label} ${kept ? 'data kept' : 'DATA LOST'} (${c.lanes} lanes${c.forward ? `, ${c.forward} moved forward` : ''})   ${(r.windowMs / 1000).toFixed(1)} s   under: ${r.under}   after: ${r.recovered}`,
    );
    for (const line of [
      ...c.lost.slice(0, 3).map((l) => `lost ${l}`),
      ...c.movedBack.slice(0, 3).map((l) => `moved back ${l}`),
      ...c.changed.slice(0, 3).map((l) => `changed ${l}`),
    ]) {
      console.log(`      ${line}`);
    }
    if (c.lost.length + c.movedBack.length + c.changed.length > 9) {
      console.log(
        `      (${c.lost.length} lost, ${c.movedBack.length} moved back, ${c.changed.length} changed in all)`,
      );
    }
  }

  if (failures.length > 0 && logTail.length > 0) {
    console.log(`\nservice log: ${logLines} lines, the last ones:`);
    for (const line of logTail.slice(-10)) console.log(`  ${line}`);
  }
  console.log(`\nsoak: ${failures.length === 0 ? 'PASS' : `FAIL: ${failures.join('; ')}`}`);
  exitCode = failures.length === 0 ? 0 : 1;
} catch (error: unknown) {
  console.error(
    `soak: could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  for (const line of logTail.slice(-10)) console.error(`  ${line}`);
  exitCode = 1;
} finally {
  if (schedule) clearInterval(schedule);
  for (const timer of timers) clearInterval(timer);
  // Narrowed to null by the compiler, but a scheduled cycle may be running.
  await (cycleRunning as Promise<Cycle> | null)?.catch(() => undefined);
  await service.stop();
  await simulator.stop();
  await receiver.stop();
  await push.stop();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
