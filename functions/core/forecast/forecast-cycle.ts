/**
 * The forecast step (the forecast function, on its own schedule beside the ingest): once per
 * 15-minute slot, per port, score the targets that came due, issue the slot's forecasts, publish
 * the port's forecast document; then the skill summary. A run in a slot already done reads one
 * item and stops, so the schedule may fire several times a slot (a failed run is retried there).
 *
 * Idempotent under replay and crash without transactions:
 * - the slot's inputs are what was known at the slot's start (readings observed up to it), and the
 *   first stored issue of a slot wins (a conditional put; a rerun reads it back), so the published
 *   and scored forecasts never change once issued;
 * - scores are folded into a port-day record by one conditional write of absolute totals guarded
 *   by the record's `through` (the last target folded), so no target counts twice;
 * - the slot is marked done only at the end, so a crash leaves it to the next run.
 */
import { mapLimit } from '../concurrency.ts';
import type { RollupStore } from '../history/rollups.ts';
import type { Observation } from '../model.ts';
import type { Clock, DocumentStore, LatestStore, ObservationStore } from '../stores.ts';
import { readTypical } from '../typical/typical-waits.ts';
import { DOCUMENT_KEYS } from '../views/view-paths.ts';
import {
  type BuiltDocument,
  buildDocument,
  CACHE_CONTROL,
  compareLanes,
  JSON_CONTENT_TYPE,
  publishedPorts,
} from '../views/views.ts';
import {
  HISTORY_MS,
  HORIZONS_MINUTES,
  type IssuedPort,
  issuePort,
  type LaneId,
  type LaneReading,
  laneKeyOf,
  MAX_READING_AGE_MS,
  profileFromAverages,
  profileFromTypical,
  slotOf,
} from './forecast.ts';
import { buildForecastDocuments, portForecastBody, skillSummaryBody } from './forecast-views.ts';
import {
  championOf,
  dueTargets,
  earliestTarget,
  learnerOf,
  MAX_ACTUAL_AGE_MS,
  mergeRecords,
  type PortRecord,
  quantilerOf,
  RECORD_DAYS,
  SCORE_BACKLOG_MS,
  type SkillDay,
  scoreTargets,
  slotRecord,
  utcDate,
} from './skill.ts';

/** Where forecasts and their track record are kept (DynamoDB table `forecasts`). */
export interface ForecastStore {
  /** Whether the slot's cycle finished. */
  cycleDone(slot: string): Promise<boolean>;
  markCycle(slot: string): Promise<void>;
  /**
   * A port's stored issues of the given slots (ISO `issuedAt`); missing ones are left out. An
   * issue `aimed` names is read for scoring: its lanes carry their points at the horizons named
   * alone (the store may still give them all).
   */
  pending(portId: string, issuedAt: readonly string[], aimed?: Aimed): Promise<IssuedPort[]>;
  /** Stores an issue unless one exists for its port and slot; returns the stored one. */
  putPending(issue: IssuedPort): Promise<IssuedPort>;
  /** A port's records of target dates `>= fromDate`. */
  skillDays(portId: string, fromDate: string): Promise<SkillDay[]>;
  /** Writes a record if its `through` is still `previousThrough`; says whether it wrote. */
  putSkillDay(portId: string, day: SkillDay, previousThrough: string | null): Promise<boolean>;
  /** The sum of a port's settled records (see {@link SkillWindow}), if stored. */
  window(portId: string): Promise<SkillWindow | undefined>;
  /** Replaces it (derived data: a rerun writes the same). */
  putWindow(portId: string, window: SkillWindow): Promise<void>;
  /** {@link pending} of several ports in one go (optional: a slot then reads them together). */
  pendingOf?(
    requests: readonly { portId: string; issuedAt: readonly string[]; aimed?: Aimed }[],
  ): Promise<Map<string, IssuedPort[]>>;
  /** {@link window} of several ports in one go (ports without one are left out). */
  windows?(portIds: readonly string[]): Promise<Map<string, SkillWindow>>;
}

/** Issues read for scoring: by `issuedAt`, the horizons of theirs aimed at the targets due. */
export type Aimed = ReadonlyMap<string, readonly number[]>;

/**
 * The sum of a port's records of the target dates `from`..`to`, all settled (no slot scores their
 * targets any more: see `earliestTarget`), so a slot reads two items (this window and today's
 * record) instead of 28; three in the first two hours of a UTC day, while yesterday's targets are
 * still scored. Rebuilt when either end moves: at midnight UTC, and when yesterday settles.
 */
export interface SkillWindow {
  from: string;
  to: string;
  lanes: PortRecord;
}

export interface ForecastDeps {
  forecasts: ForecastStore;
  observations: ObservationStore;
  rollups: Pick<RollupStore, 'averages'>;
  latest: LatestStore;
  documents: DocumentStore;
  clock: Clock;
  log?: (line: string) => void;
  /** Ports not started within this many ms are left to the next run (the slot stays open). */
  budgetMs?: number;
}

/** The forecast step's default time for starting ports (the forecast function has 60 s). */
export const FORECAST_BUDGET_MS = 40_000;

export interface ForecastOutcome {
  slot: string;
  skipped: boolean;
  /** Ports left to the next run by the time budget. */
  deferred: number;
  ports: number;
  lanes: number;
  scored: number;
}

/** Readings of a port's lanes (oldest first) from its observations. */
function readingsByLane(observations: readonly Observation[], untilMs: number): Map<string, LaneReading[]> {
  const out = new Map<string, LaneReading[]>();
  // A port's lanes are read together, so a time repeats from one observation to the next (parsed
  // once), and a lane's list is looked up only when the lane changes.
  let lastAt = '';
  let lastMs = 0;
  let lastLane: Observation | undefined;
  let list: LaneReading[] = [];
  for (const o of observations) {
    if (o.observedAt !== lastAt) {
      lastAt = o.observedAt;
      lastMs = Date.parse(lastAt);
    }
    if (lastMs > untilMs) continue;
    if (
      !lastLane ||
      o.direction !== lastLane.direction ||
      o.mode !== lastLane.mode ||
      o.lane !== lastLane.lane
    ) {
      const key = laneKeyOf(o);
      list = out.get(key) ?? [];
      out.set(key, list);
      lastLane = o;
    }
    list.push({ atMs: lastMs, delayMinutes: o.delayMinutes });
  }
  for (const list of out.values()) list.sort((a, b) => a.atMs - b.atMs);
  return out;
}

/** What a port's slot reads first: its live records, the targets that came due, what else to read. */
export interface PortPlan {
  days: SkillDay[];
  targets: number[];
  /** Issues to read back: those aimed at the due targets, and the slot's own (a rerun reads it back). */
  issuedAt: string[];
  /** Of those, the ones aimed at the due targets, with their horizons aimed at them (what scoring reads). */
  aimed: Map<string, number[]>;
  /** Observations to read: `fromMs <= observedAt <= slotMs`. */
  fromMs: number;
}

/** What a port's slot reads next (per port, or for many ports at once: {@link readInputs}). */
export interface PortInputs {
  pending: IssuedPort[];
  observations: Observation[];
  window: SkillWindow | undefined;
}

async function planPort(forecasts: ForecastStore, portId: string, slotMs: number): Promise<PortPlan> {
  const slot = new Date(slotMs).toISOString();
  // The records of the dates whose targets the slot may still score (today's, and yesterday's in
  // the first two hours of a day); older ones are settled, summed in the window.
  const days = await forecasts.skillDays(portId, utcDate(earliestTarget(slotMs)));
  const targets = dueTargets(slotMs, new Map(days.map((day) => [day.date, day.through])));
  const earliest = Math.min(targets[0] ?? slotMs, slotMs - SCORE_BACKLOG_MS);
  const aimed = new Map<string, number[]>();
  for (const t of targets) {
    for (const h of HORIZONS_MINUTES) {
      const issuedAt = new Date(t - h * 60_000).toISOString();
      const horizons = aimed.get(issuedAt);
      if (horizons) horizons.push(h);
      else aimed.set(issuedAt, [h]);
    }
  }
  return {
    days,
    targets,
    // The slot's own is never aimed at a due target (those are at least 15 minutes before the slot).
    issuedAt: [...aimed.keys(), slot],
    aimed,
    // A day and an hour back: the model's day-earlier anomaly of its furthest (+24 h) target.
    fromMs: Math.min(earliest - MAX_ACTUAL_AGE_MS, slotMs - Math.max(MAX_READING_AGE_MS, HISTORY_MS)),
  };
}

/**
 * The inputs of many ports' slots: with stores that read several ports at once, a few batched
 * reads for all of them (issues, windows, observations) instead of three requests per port. A
 * port whose inputs cannot be read is left out, its error in `failures`; a batched read that fails
 * as a whole is read again port by port, so a failing port fails alone.
 */
async function readInputs(
  deps: Pick<ForecastDeps, 'forecasts' | 'observations'>,
  plans: ReadonlyMap<string, PortPlan>,
  untilMs: number,
  failures: Map<string, unknown>,
): Promise<Map<string, PortInputs>> {
  const { forecasts, observations } = deps;
  const ids = [...plans.keys()];
  if (ids.length === 0) return new Map();
  if (!forecasts.pendingOf || !forecasts.windows || !observations.queryMany) {
    return readEach(deps, plans, untilMs, failures);
  }
  const fromMs = Math.min(...[...plans.values()].map((plan) => plan.fromMs));
  let pending: Map<string, IssuedPort[]>;
  let windows: Map<string, SkillWindow>;
  let found: Map<string, Observation[]>;
  try {
    [pending, windows, found] = await Promise.all([
      forecasts.pendingOf(
        ids.map((portId) => {
          const { issuedAt, aimed } = plans.get(portId) as PortPlan;
          return { portId, issuedAt, aimed };
        }),
      ),
      forecasts.windows(ids),
      observations.queryMany(ids, fromMs, untilMs),
    ]);
  } catch {
    return readEach(deps, plans, untilMs, failures);
  }
  return new Map(
    ids.map((id) => {
      const from = (plans.get(id) as PortPlan).fromMs;
      return [
        id,
        {
          pending: pending.get(id) ?? [],
          // The port's own range, as its own query would read it.
          observations: (found.get(id) ?? []).filter((o) => Date.parse(o.observedAt) >= from),
          window: windows.get(id),
        },
      ];
    }),
  );
}

/** {@link readInputs} port by port: a port whose inputs cannot be read is left out, its error in `failures`. */
async function readEach(
  deps: Pick<ForecastDeps, 'forecasts' | 'observations'>,
  plans: ReadonlyMap<string, PortPlan>,
  untilMs: number,
  failures: Map<string, unknown>,
): Promise<Map<string, PortInputs>> {
  const out = new Map<string, PortInputs>();
  await mapLimit([...plans], 8, async ([id, plan]) => {
    try {
      out.set(id, await readPortInputs(deps, id, plan, untilMs));
    } catch (error: unknown) {
      failures.set(id, error);
    }
  });
  return out;
}

async function readPortInputs(
  deps: Pick<ForecastDeps, 'forecasts' | 'observations'>,
  portId: string,
  plan: PortPlan,
  untilMs: number,
): Promise<PortInputs> {
  const [pending, observations, window] = await Promise.all([
    deps.forecasts.pending(portId, plan.issuedAt, plan.aimed),
    deps.observations.query(portId, plan.fromMs, untilMs),
    deps.forecasts.window(portId),
  ]);
  return { pending, observations, window };
}

/**
 * One port's part of a slot: score, issue (or read back), and the port's current record (what
 * the documents read: `mergeRecords` with `slot`, so no error histograms).
 */
export async function forecastPort(
  deps: Pick<ForecastDeps, 'forecasts' | 'observations' | 'rollups'> &
    Partial<Pick<ForecastDeps, 'documents'>>,
  /** With its published `hours`: no forecast for the times it is closed. */
  port: { id: string; timeZone: string; border: 'mx' | 'ca'; hours?: string | null },
  lanes: readonly LaneId[],
  slotMs: number,
  read?: { plan: PortPlan; inputs: PortInputs },
  /** When the run reads (observations up to it were read): a lane with no reading before the slot may start from one after it. */
  untilMs: number = slotMs,
): Promise<{ issue: IssuedPort; record: PortRecord; scored: number }> {
  const slot = new Date(slotMs).toISOString();
  const plan = read?.plan ?? (await planPort(deps.forecasts, port.id, slotMs));
  const { days, targets } = plan;
  const byDate = new Map(days.map((day) => [day.date, day]));
  const {
    pending,
    observations,
    window: storedWindow,
  } = read?.inputs ?? (await readPortInputs(deps, port.id, plan, untilMs));
  const readings = readingsByLane(observations, slotMs);
  const untilRun = untilMs > slotMs ? readingsByLane(observations, untilMs) : readings;

  // 1. Score the targets that came due straight into the records of their dates (read for this
  // slot, so theirs to change; a date without one starts empty), then one guarded absolute write
  // per target date. A write that loses to another run reads the record it lost to back.
  const counts = new Map<string, number>();
  const contributions = scoreTargets(
    targets,
    pending,
    readings,
    (date) => {
      let day = byDate.get(date);
      if (!day) {
        day = { date, through: null, lanes: {} };
        byDate.set(date, day);
      }
      return [day.lanes];
    },
    counts,
  );
  let scored = 0;
  for (const date of [...contributions.keys()].sort()) {
    // Scoring changed the record's lanes only: its `through` is still the one read.
    const day = byDate.get(date) as SkillDay;
    const through = new Date(Math.max(...targets.filter((t) => utcDate(t) === date))).toISOString();
    const next: SkillDay = { date, through, lanes: day.lanes };
    if (await deps.forecasts.putSkillDay(port.id, next, day.through)) {
      byDate.set(date, next);
      scored += counts.get(date) ?? 0;
    } else {
      const stored = (await deps.forecasts.skillDays(port.id, date)).find((d) => d.date === date);
      if (stored) byDate.set(date, stored);
      else byDate.delete(date);
    }
  }
  // Dates whose targets scored nothing still move `through` of a record that exists, so they are
  // not looked at again (a port with nothing scored yet writes nothing).
  for (const date of new Set(targets.map(utcDate))) {
    if (contributions.has(date)) continue;
    const previous = byDate.get(date);
    if (!previous) continue;
    const through = new Date(Math.max(...targets.filter((t) => utcDate(t) === date))).toISOString();
    const next: SkillDay = { date, through, lanes: previous?.lanes ?? {} };
    if (await deps.forecasts.putSkillDay(port.id, next, previous?.through ?? null)) byDate.set(date, next);
  }
  const window = await settledWindow(deps.forecasts, port.id, slotMs, storedWindow);
  // The sums the slot reads (champions, weights, figures) added into the window it read; the
  // intervals' histograms are summed from the parts only where asked for.
  const parts = [window.lanes, ...[...byDate.values()].map((day) => day.lanes)];
  const record = slotRecord(parts);

  // 2. The slot's issue: the stored one, else issued now from what was known at the slot's start.
  let issue = pending.find((p) => p.issuedAt === slot);
  if (!issue) {
    const profile = profileFromAverages(await deps.rollups.averages(port.id));
    // CBP's typical waits: where the model starts while our own profile is thin.
    const typical = deps.documents ? await readTypical(deps.documents, port.id) : null;
    const prior = typical && typical.typical.length > 0 ? profileFromTypical(typical.typical) : undefined;
    const built = issuePort({
      ...(prior ? { prior } : {}),
      portId: port.id,
      timeZone: port.timeZone,
      border: port.border,
      hours: port.hours,
      issuedAtMs: slotMs,
      profile,
      lanes: lanes.map((lane) => {
        const key = laneKeyOf(lane);
        const before = readings.get(key) ?? [];
        // A lane whose first reading came after the slot started (a fresh service) forecasts from
        // it, so the first slot covers every lane with a reading; a lane with any reading before the
        // slot forecasts from those alone, as every later slot does.
        return before.length > 0 || untilMs <= slotMs
          ? { lane, readings: before }
          : { lane, readings: untilRun.get(key) ?? [], readUntilMs: untilMs };
      }),
      quantiles: quantilerOf(parts),
      champion: (lane, h, available) => championOf(record, lane, h, available),
      learned: learnerOf(record),
    });
    issue = await deps.forecasts.putPending(built);
  }
  return { issue, record, scored };
}

/** The port's settled window for the slot, rebuilt from the records when either of its ends moved. */
async function settledWindow(
  forecasts: ForecastStore,
  portId: string,
  slotMs: number,
  stored: SkillWindow | undefined,
): Promise<SkillWindow> {
  const from = utcDate(slotMs - (RECORD_DAYS - 1) * 86_400_000);
  const to = utcDate(earliestTarget(slotMs) - 86_400_000);
  if (stored && stored.from === from && stored.to === to) return stored;
  const days = (await forecasts.skillDays(portId, from)).filter((day) => day.date <= to);
  const window: SkillWindow = { from, to, lanes: mergeRecords(days.map((day) => day.lanes)) };
  // Kept even when nothing is settled yet (an empty window): the day's other 95 slots then read
  // it with the other ports' windows instead of querying the records again.
  await forecasts.putWindow(portId, window);
  return window;
}

/** Ports a failed run's message names (the error holds every port's). */
const FAILURES_NAMED = 5;

/** Runs the slot of `clock.now()` unless it is done: every port, then the summary, then the mark. */
export async function runForecastCycle(deps: ForecastDeps): Promise<ForecastOutcome> {
  const started = performance.now();
  const slotMs = slotOf(deps.clock.now());
  const slot = new Date(slotMs).toISOString();
  if (await deps.forecasts.cycleDone(slot)) {
    return { slot, skipped: true, deferred: 0, ports: 0, lanes: 0, scored: 0 };
  }
  const deadline = started + (deps.budgetMs ?? FORECAST_BUDGET_MS);
  let deferred = 0;
  const { readings, ports: states } = await deps.latest.all();
  const lanesByPort = new Map<string, Map<string, LaneId>>();
  for (const r of readings) {
    if (r.status === 'not-applicable') continue;
    const lanes = lanesByPort.get(r.portId) ?? new Map<string, LaneId>();
    lanes.set(laneKeyOf(r), { direction: r.direction, mode: r.mode, lane: r.lane });
    lanesByPort.set(r.portId, lanes);
  }
  const ports = publishedPorts(states);
  const generatedAt = new Date(deps.clock.now()).toISOString();
  let lanesIssued = 0;
  let scored = 0;
  const records: PortRecord[] = [];
  // A port whose reads or writes fail (an item that does not read back, a refused write) stops
  // alone: the others publish, and the run fails at the end (below), so the slot is retried.
  const failures = new Map<string, unknown>();
  // First each port's live records (which say what else to read), then the rest for all ports at
  // once, then each port's scores and issue. Ports reached after the deadline wait for the next run.
  const plans = new Map<string, PortPlan>();
  await mapLimit(
    ports.filter((port) => lanesByPort.has(port.id)),
    8,
    async (port) => {
      if (performance.now() > deadline) return;
      try {
        plans.set(port.id, await planPort(deps.forecasts, port.id, slotMs));
      } catch (error: unknown) {
        failures.set(port.id, error);
      }
    },
  );
  const runMs = deps.clock.now();
  const inputs = await readInputs(deps, plans, runMs, failures);
  const leaves = await mapLimit(ports, 8, async (port): Promise<BuiltDocument[]> => {
    const laneMap = lanesByPort.get(port.id);
    if (!laneMap) return buildForecastDocuments(port, portForecastBody(port.id, null, {}), generatedAt);
    if (failures.has(port.id)) return [];
    const plan = plans.get(port.id);
    const read = inputs.get(port.id);
    if (!plan || !read || performance.now() > deadline) {
      deferred++;
      return [];
    }
    const lanes = [...laneMap.values()].sort(compareLanes);
    let result: Awaited<ReturnType<typeof forecastPort>>;
    try {
      result = await forecastPort(deps, port, lanes, slotMs, { plan, inputs: read }, runMs);
    } catch (error: unknown) {
      failures.set(port.id, error);
      return [];
    }
    lanesIssued += result.issue.lanes.length;
    scored += result.scored;
    records.push(result.record);
    return buildForecastDocuments(port, portForecastBody(port.id, result.issue, result.record), generatedAt);
  });
  // Per-port leaves first, then the index that summarises them.
  await mapLimit(leaves.flat(), 8, (doc) => put(deps.documents, doc));
  if (failures.size > 0) {
    const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));
    // The first few named (a store that is down fails every port the same way).
    const named = [...failures]
      .slice(0, FAILURES_NAMED)
      .map(([portId, error]) => `${portId}: ${reason(error)}`);
    const more = failures.size > FAILURES_NAMED ? `; and ${failures.size - FAILURES_NAMED} more` : '';
    throw new AggregateError(
      [...failures.values()],
      `forecast slot=${slot}: ${failures.size} of ${ports.length} ports failed (the others published; the slot stays open for the next run): ${named.join('; ')}${more}`,
    );
  }
  if (deferred > 0) {
    deps.log?.(`forecast slot=${slot} ${deferred} ports left to the next run (time budget)`);
    return { slot, skipped: false, deferred, ports: ports.length, lanes: lanesIssued, scored };
  }
  await put(
    deps.documents,
    buildDocument(
      DOCUMENT_KEYS.forecastSkill,
      CACHE_CONTROL.forecast,
      skillSummaryBody(slot, records),
      generatedAt,
    ),
  );
  await deps.forecasts.markCycle(slot);
  deps.log?.(
    `forecast slot=${slot} ports=${ports.length} lanes=${lanesIssued} scored=${scored} ms=${Math.round(performance.now() - started)}`,
  );
  return { slot, skipped: false, deferred: 0, ports: ports.length, lanes: lanesIssued, scored };
}

function put(documents: DocumentStore, doc: BuiltDocument) {
  return documents.put(doc.key, doc.body, {
    contentType: doc.contentType ?? JSON_CONTENT_TYPE,
    cacheControl: doc.cacheControl,
    contentHash: doc.contentHash,
  });
}
