/**
 * A world for the forecast step on the embedded stores: the history world (dynalite, s3rver, the
 * feed simulator over HTTP), its rollups seeded with three weeks of the simulator's readings so
 * profiles exist, and the ingest driven poll by poll with faults injectable into the forecast
 * store or the document store (mocks only to inject faults).
 */
import { loadRollups } from '../../functions/adapters/dynamo/rollups.ts';
import { createHttpFeedSource } from '../../functions/adapters/http-feed/source.ts';
import { type ForecastStore, runForecastCycle } from '../../functions/core/forecast/forecast-cycle.ts';
import type { SkillDay } from '../../functions/core/forecast/skill.ts';
import { contributionsOfDay, localBucketOf } from '../../functions/core/history/rollups.ts';
import { runIngestCycle } from '../../functions/core/ingest/ingest.ts';
import type { Observation, Port } from '../../functions/core/model.ts';
import type { DocumentStore } from '../../functions/core/stores.ts';
import { DOCUMENT_KEYS } from '../../functions/core/views/view-paths.ts';
import { observationsSeen } from '../../infra/local/simulator/model.ts';
import { TABLES } from '../../infra/manifest.ts';
import { startWorld, type World } from './history-world.ts';

export type ForecastFault =
  | 'store-down'
  | 'half-record'
  | 'lost-record'
  | 'after-issue'
  | 'publish'
  | 'bad-record'
  | 'bad-issue';

/** The port whose items do not read back under the faults `bad-record` and `bad-issue`. */
export const BAD_PORT = '090101';

export interface ForecastWorld {
  world: World;
  /**
   * Sets the clock to `ms`, runs one ingest cycle, then the forecast step (optionally with a
   * fault: the step's error, if it failed, is returned).
   */
  ingestAt(ms: number, fault?: ForecastFault): Promise<unknown>;
  /** Every port's track record, by date. */
  records(): Promise<Record<string, SkillDay[]>>;
  /** How many injected faults fired so far. */
  faults(): number;
  /** A published document's body without `generatedAt`. */
  published(key: string): Promise<unknown>;
  stop(): Promise<void>;
}

/** Rollups of `days` days of the simulator's readings before `endMs` (readings every 5 minutes). */
function seedContributions(ports: readonly Port[], endMs: number, days: number) {
  return ports.flatMap((port) => {
    const polls: number[] = [];
    for (let t = endMs - days * 86_400_000; t < endMs; t += 5 * 60_000) polls.push(t);
    const byDate = new Map<string, Observation[]>();
    for (const o of observationsSeen(port, polls)) {
      const { localDate } = localBucketOf(Date.parse(o.observedAt), port.timeZone);
      const list = byDate.get(localDate) ?? [];
      list.push({ ...o, maxLanes: null, fetchedAt: o.observedAt });
      byDate.set(localDate, list);
    }
    return [...byDate].flatMap(([date, list]) => contributionsOfDay(port.id, date, port.timeZone, list));
  });
}

export async function startForecastWorld(
  portIds: readonly string[],
  startMs: number,
): Promise<ForecastWorld> {
  const world = await startWorld(portIds);
  const { stores } = world.embedded;
  await loadRollups(stores.dynamo, TABLES.rollups.name, seedContributions(world.ports, startMs, 21));
  const sources = [
    createHttpFeedSource({ source: 'cbp', url: world.simulator.cbpXmlUrl, timeoutMs: 5_000 }),
    createHttpFeedSource({ source: 'cbsa', url: world.simulator.cbsaEnUrl, timeoutMs: 5_000 }),
  ];
  let nowMs = startMs;
  const clock = { now: () => nowMs };
  const fired = { count: 0 };
  return {
    world,
    async ingestAt(ms, fault) {
      nowMs = ms;
      world.simulator.setClock(ms);
      await runIngestCycle({ ...stores, sources, clock, log: () => {} });
      // No time budget: every slot is issued whole, however loaded the machine (the record must match).
      const step = { ...stores, clock, log: () => {}, budgetMs: Number.POSITIVE_INFINITY };
      if (!fault) await runForecastCycle(step);
      // A crashed step may also break its publish: the next run finishes both.
      else
        return runForecastCycle(withFault(step, fault, fired)).then(
          () => undefined,
          (error: unknown) => error,
        );
      return undefined;
    },
    faults: () => fired.count,
    async records() {
      const out: Record<string, SkillDay[]> = {};
      for (const id of portIds) out[id] = await stores.forecasts.skillDays(id, '2000-01-01');
      return out;
    },
    async published(key) {
      const document = await stores.documents.get(key);
      if (!document) throw new Error(`no document ${key}`);
      const { generatedAt: _g, ...body } = JSON.parse(document.body) as Record<string, unknown>;
      return body;
    },
    stop: () => world.stop(),
  };
}

type Deps = { forecasts: ForecastStore; documents: DocumentStore };

/** The stores of one cycle with a fault in the forecast step. */
function withFault<T extends Deps>(deps: T, fault: ForecastFault, fired: { count: number }): T {
  const { forecasts, documents } = deps;
  switch (fault) {
    case 'half-record': {
      // The first port's record is written, then the step dies.
      let writes = 0;
      return {
        ...deps,
        forecasts: {
          ...forecasts,
          putSkillDay: async (portId, day, previous) => {
            if (++writes > 1) {
              fired.count++;
              throw new Error('injected: crash while folding scores into the record');
            }
            return forecasts.putSkillDay(portId, day, previous);
          },
        },
      };
    }
    case 'lost-record':
      // Another run folds the same scores into each record first: this run's guarded write is
      // refused, and it goes on with the record that run wrote.
      return {
        ...deps,
        forecasts: {
          ...forecasts,
          putSkillDay: async (portId, day, previous) => {
            if (!(await forecasts.putSkillDay(portId, structuredClone(day), previous))) return false;
            fired.count++;
            return forecasts.putSkillDay(portId, day, previous);
          },
        },
      };
    case 'after-issue':
      return {
        ...deps,
        forecasts: {
          ...forecasts,
          putPending: async (issue) => {
            await forecasts.putPending(issue);
            fired.count++;
            throw new Error('injected: crash after storing an issue');
          },
        },
      };
    case 'publish': {
      let written = 0;
      const failing: DocumentStore = {
        get: (key) => documents.get(key),
        exists: (key) => documents.exists(key),
        put: async (key, body, meta) => {
          if (key.startsWith('v1/port-forecast/') && ++written > 2) {
            fired.count++;
            throw new Error('injected: publish failed');
          }
          return documents.put(key, body, meta);
        },
      };
      return { ...deps, documents: failing };
    }
    case 'store-down':
      // Every port's records fail to read (a store that is down).
      return {
        ...deps,
        forecasts: {
          ...forecasts,
          skillDays: async () => {
            fired.count++;
            throw new Error('injected: the store is down');
          },
        },
      };
    case 'bad-record': {
      // One port's record does not read back (the store throws, as for a corrupt item).
      const bad = async (portId: string) => {
        if (portId !== BAD_PORT) return;
        fired.count++;
        throw new Error('injected: a record that does not read back');
      };
      return {
        ...deps,
        forecasts: {
          ...forecasts,
          skillDays: async (portId, from) => {
            await bad(portId);
            return forecasts.skillDays(portId, from);
          },
        },
      };
    }
    case 'bad-issue': {
      // One port's issues do not read back: the batched read of every port's fails as a whole.
      const bad = (portIds: readonly string[]) => {
        if (!portIds.includes(BAD_PORT)) return;
        fired.count++;
        throw new Error('injected: an issue that does not read back');
      };
      const { pendingOf } = forecasts;
      return {
        ...deps,
        forecasts: {
          ...forecasts,
          pending: async (portId, issuedAt, aimed) => {
            bad([portId]);
            return forecasts.pending(portId, issuedAt, aimed);
          },
          ...(pendingOf
            ? {
                pendingOf: async (requests: Parameters<typeof pendingOf>[0]) => {
                  bad(requests.map((r) => r.portId));
                  return pendingOf(requests);
                },
              }
            : {}),
        },
      };
    }
  }
}

export const FORECAST_KEYS = { forecast: DOCUMENT_KEYS.forecast, skill: DOCUMENT_KEYS.forecastSkill };
