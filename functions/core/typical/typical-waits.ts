/**
 * CBP's typical waits (DESIGN.md 9): for every CBP port with a graph id (`bwtId`), the "average"
 * line of CBP's hourly graph for each weekday, fetched for the next 7 dates (one per weekday) once
 * a day and at the first start, and published as one document per port
 * (`/api/v1/port-typical-waits`). They are CBP's numbers, labelled as CBP's: they never enter our
 * own hourly averages, which come from our observations (and imports of real history) only.
 *
 * Never erase: a failed, empty or malformed graph document changes nothing; a lane, weekday and
 * hour is replaced only by a new value of the same lane, weekday and hour, and an empty field is no
 * value (never 0).
 */
import { mapLimit } from '../concurrency.ts';
import { type ParsedGraph, parseCbpGraph } from '../feeds/cbp-graph.ts';
import type { Border, Direction, Lane, Mode } from '../model.ts';
import type { Clock, DocumentStore } from '../stores.ts';
import { utcToZoned } from '../time.ts';
import { DOCUMENT_KEYS } from '../views/view-paths.ts';
import {
  type BuiltDocument,
  buildDocument,
  buildPortDocuments,
  CACHE_CONTROL,
  JSON_CONTENT_TYPE,
} from '../views/views.ts';

/** One typical wait as published: CBP's average (and range) of a lane at a port-local weekday and hour. */
export interface TypicalEntry {
  direction: Direction;
  mode: Mode;
  lane: Lane;
  /** 0 = Sunday, port-local. */
  dayOfWeek: number;
  /** 0-23, port-local. */
  hour: number;
  averageMinutes: number;
  minMinutes: number | null;
  maxMinutes: number | null;
}

/** The body of a port's typical-waits document (`generatedAt` is added when it is published). */
export interface TypicalWaitsBody {
  portId: string;
  source: 'cbp';
  /** When the newest values were fetched; null before the first successful fetch. */
  fetchedAt: string | null;
  typical: TypicalEntry[];
}

/** Where graph documents come from (CBP, or the simulator); throws on any failure. */
export interface GraphSource {
  /** The raw graph document of a port (`bwtId`) for a date (`YYYY-MM-DD`). */
  fetch(bwtId: string, date: string): Promise<string | Uint8Array>;
}

/** What the refresh needs of a port. */
export interface TypicalPort {
  id: string;
  slug: string;
  bwtId: string;
  border: Border;
  timeZone: string;
}

/** The refresh state kept beside the documents: per port, the last attempt and the last success (epoch ms). */
export interface TypicalState {
  ports: Record<string, { attemptedAt: number; fetchedAt: number | null }>;
}

/** Where the refresh state lives in the data bucket (no view: the CDN serves only `v1/`). */
export const TYPICAL_STATE_KEY = 'state/typical-waits.json';
/** A port that failed is tried again after this long (else once per port-local date). */
export const TYPICAL_RETRY_MS = 3_600_000;
/** Graph requests in flight at once, over all ports: CBP's site is a public one, be polite. */
export const GRAPH_CONCURRENCY = 4;

const pad = (n: number) => String(n).padStart(2, '0');

function localDate(epochMs: number, timeZone: string): string {
  const t = utcToZoned(epochMs, timeZone);
  return `${t.year}-${pad(t.month)}-${pad(t.day)}`;
}

/** The next 7 port-local dates from today, one per weekday. */
export function nextWeekDates(nowMs: number, timeZone: string): string[] {
  const [y, m, d] = localDate(nowMs, timeZone).split('-').map(Number) as [number, number, number];
  return Array.from({ length: 7 }, (_, i) => new Date(Date.UTC(y, m - 1, d + i)).toISOString().slice(0, 10));
}

const entryKey = (e: Pick<TypicalEntry, 'mode' | 'lane' | 'dayOfWeek' | 'hour'>) =>
  `${e.mode}#${e.lane}#${e.dayOfWeek}#${e.hour}`;

const MODE_ORDER: readonly Mode[] = ['passenger', 'pedestrian', 'commercial'];
const LANE_ORDER: readonly Lane[] = ['standard', 'ready', 'sentri', 'nexus', 'fast'];

function compareEntries(a: TypicalEntry, b: TypicalEntry): number {
  return (
    MODE_ORDER.indexOf(a.mode) - MODE_ORDER.indexOf(b.mode) ||
    LANE_ORDER.indexOf(a.lane) - LANE_ORDER.indexOf(b.lane) ||
    a.dayOfWeek - b.dayOfWeek ||
    a.hour - b.hour
  );
}

/**
 * The stored entries with the graphs' values laid over them: a lane, weekday and hour that a graph
 * gives replaces the stored one; everything else is kept (never erased).
 */
export function mergeTypical(
  stored: readonly TypicalEntry[],
  graphs: readonly ParsedGraph[],
): TypicalEntry[] {
  const merged = new Map(stored.map((e) => [entryKey(e), e]));
  for (const graph of graphs) {
    const dayOfWeek = new Date(`${graph.date}T00:00:00Z`).getUTCDay();
    for (const w of graph.typical) {
      const entry: TypicalEntry = {
        direction: 'into-us',
        mode: w.mode,
        lane: w.lane,
        dayOfWeek,
        hour: w.hour,
        averageMinutes: w.averageMinutes,
        minMinutes: w.minMinutes,
        maxMinutes: w.maxMinutes,
      };
      merged.set(entryKey(entry), entry);
    }
  }
  return [...merged.values()].sort(compareEntries);
}

/** A port's body before the first fetch: no typical wait, never an invented one. */
export function emptyTypicalBody(portId: string): TypicalWaitsBody {
  return { portId, source: 'cbp', fetchedAt: null, typical: [] };
}

/** The documents of a port's typical waits (under its id, and in lower case). */
export function buildTypicalDocuments(
  port: { id: string },
  body: TypicalWaitsBody,
  generatedAt: string,
): BuiltDocument[] {
  return buildPortDocuments(port, DOCUMENT_KEYS.typical, CACHE_CONTROL.typical, body, generatedAt);
}

/** A port's stored typical waits (its published document), or the empty body. */
export async function readTypical(documents: DocumentStore, portId: string): Promise<TypicalWaitsBody> {
  const document = await documents.get(DOCUMENT_KEYS.typical(portId.toLowerCase()));
  if (!document) return emptyTypicalBody(portId);
  try {
    const body = JSON.parse(document.body) as Partial<TypicalWaitsBody>;
    return {
      portId,
      source: 'cbp',
      fetchedAt: typeof body.fetchedAt === 'string' ? body.fetchedAt : null,
      typical: Array.isArray(body.typical) ? body.typical : [],
    };
  } catch {
    return emptyTypicalBody(portId);
  }
}

export interface TypicalRefreshDeps {
  graphs: GraphSource;
  documents: DocumentStore;
  clock: Clock;
  ports: readonly TypicalPort[];
  log?: (line: string) => void;
  /** No new port is started after this many ms; the rest wait for a later run. */
  budgetMs?: number;
}

export interface TypicalRefreshOutcome {
  /** Ports due: not fetched on their local date yet, and not tried within the retry time. */
  due: number;
  /** Ports whose document took new values. */
  refreshed: number;
  /** Graph documents read, and those that failed (network, HTTP, format, no value). */
  graphs: number;
  failed: number;
  /** Ports left to a later run by the time budget. */
  deferred: number;
}

async function readState(documents: DocumentStore): Promise<TypicalState> {
  const document = await documents.get(TYPICAL_STATE_KEY);
  if (!document) return { ports: {} };
  try {
    const state = JSON.parse(document.body) as Partial<TypicalState>;
    return typeof state.ports === 'object' && state.ports !== null ? { ports: state.ports } : { ports: {} };
  } catch {
    return { ports: {} };
  }
}

async function put(documents: DocumentStore, doc: BuiltDocument): Promise<void> {
  await documents.put(doc.key, doc.body, {
    contentType: doc.contentType ?? JSON_CONTENT_TYPE,
    cacheControl: doc.cacheControl,
    contentHash: doc.contentHash,
  });
}

/**
 * Refreshes the typical waits of the ports that are due: each port once per port-local date (so at
 * the first start, then daily), a port whose graphs all failed again after {@link TYPICAL_RETRY_MS}.
 * At most {@link GRAPH_CONCURRENCY} requests in flight over all ports. When nothing is due it
 * costs one read.
 */
export async function refreshTypicalWaits(deps: TypicalRefreshDeps): Promise<TypicalRefreshOutcome> {
  const started = performance.now();
  const nowMs = deps.clock.now();
  const state = await readState(deps.documents);
  const due = deps.ports.filter((port) => {
    const entry = state.ports[port.id];
    if (!entry) return true;
    if (
      entry.fetchedAt !== null &&
      localDate(entry.fetchedAt, port.timeZone) === localDate(nowMs, port.timeZone)
    ) {
      return false;
    }
    return nowMs - entry.attemptedAt >= TYPICAL_RETRY_MS || entry.attemptedAt > nowMs;
  });
  const outcome: TypicalRefreshOutcome = { due: due.length, refreshed: 0, graphs: 0, failed: 0, deferred: 0 };
  if (due.length === 0) return outcome;
  const budgetMs = deps.budgetMs ?? Number.POSITIVE_INFINITY;
  // Every (port, date) request in one queue, so the bound holds over all ports.
  const requests = due.flatMap((port) => nextWeekDates(nowMs, port.timeZone).map((date) => ({ port, date })));
  const results = new Map<string, { graphs: ParsedGraph[]; errors: string[] }>();
  await mapLimit(requests, GRAPH_CONCURRENCY, async ({ port, date }) => {
    let result = results.get(port.id);
    if (!result) {
      if (performance.now() - started > budgetMs) return;
      result = { graphs: [], errors: [] };
      results.set(port.id, result);
    }
    try {
      const parsed = parseCbpGraph(await deps.graphs.fetch(port.bwtId, date), port.border);
      if (parsed.typical.length === 0) throw new Error('the document holds no typical wait');
      // The date asked for is the one the values belong to (CBP echoes it in `date`).
      result.graphs.push({ ...parsed, date });
      outcome.graphs++;
    } catch (error: unknown) {
      outcome.failed++;
      result.errors.push(`${date}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  const generatedAt = new Date(deps.clock.now()).toISOString();
  for (const port of due) {
    const result = results.get(port.id);
    if (!result) {
      outcome.deferred++;
      continue;
    }
    if (result.graphs.length > 0) {
      const stored = await readTypical(deps.documents, port.id);
      const body: TypicalWaitsBody = {
        portId: port.id,
        source: 'cbp',
        fetchedAt: new Date(nowMs).toISOString(),
        typical: mergeTypical(stored.typical, result.graphs),
      };
      for (const doc of buildTypicalDocuments(port, body, generatedAt)) await put(deps.documents, doc);
      outcome.refreshed++;
    }
    if (result.errors.length > 0) {
      deps.log?.(
        `typical-waits port=${port.id}: ${result.errors.length} of 7 graphs failed, kept the last good values (${result.errors[0]})`,
      );
    }
    state.ports[port.id] = {
      attemptedAt: nowMs,
      fetchedAt: result.graphs.length > 0 ? nowMs : (state.ports[port.id]?.fetchedAt ?? null),
    };
  }
  await put(deps.documents, buildDocument(TYPICAL_STATE_KEY, 'no-store', state));
  deps.log?.(
    `typical-waits due=${outcome.due} refreshed=${outcome.refreshed} graphs=${outcome.graphs} failed=${outcome.failed} deferred=${outcome.deferred} ms=${Math.round(performance.now() - started)}`,
  );
  return outcome;
}

/** The CBP ports the refresh covers: those with a graph id, from the catalogue. */
export function typicalPorts(
  ports: readonly {
    id: string;
    slug: string;
    bwtId: string | null;
    border: Border;
    timeZone: string;
    directions: readonly string[];
  }[],
): TypicalPort[] {
  return ports
    .filter((port) => port.bwtId !== null && port.directions.includes('into-us'))
    .map((port) => ({
      id: port.id,
      slug: port.slug,
      bwtId: port.bwtId as string,
      border: port.border,
      timeZone: port.timeZone,
    }));
}
