/**
 * A small world for long fast-clock runs: the embedded stores (dynalite, s3rver), the feed
 * simulator serving a few ports over HTTP, and the ingest use case driven poll by poll, with
 * faults injectable into one cycle's stores. A reference computed from the simulator's model
 * alone (never from the parsers or the rollup code) says what the service should publish.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpFeedSource } from '../../functions/adapters/http-feed/source.ts';
import { getPort } from '../../functions/core/catalogue/catalogue.ts';
import { type IngestDeps, runIngestCycle, type SourceOutcome } from '../../functions/core/ingest/ingest.ts';
import type { HourlyAverage, Observation, Port } from '../../functions/core/model.ts';
import type { DocumentStore } from '../../functions/core/stores.ts';
import { VIEW_PATHS } from '../../functions/core/views/view-paths.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { observationsSeen, type SimulatedObservation } from '../../infra/local/simulator/model.ts';
import { type Simulator, startSimulator } from '../../infra/local/simulator/server.ts';

/**
 * Where a cycle breaks: after the observations, halfway through the rollups, while publishing, or
 * after the changed latest items but before their source's sighting.
 */
export type CycleFault = 'after-observations' | 'half-rollups' | 'publish' | 'before-sighting';

export interface World {
  embedded: EmbeddedStores;
  simulator: Simulator;
  ports: readonly Port[];
  /** Sets the clock (service and simulator) to `ms` and runs one cycle, optionally with a fault. */
  ingestAt(ms: number, fault?: CycleFault): Promise<SourceOutcome[]>;
  /** The published `port-hourly-averages` document a `port_id` (id or slug) reads. */
  publishedAverages(portId: string): Promise<HourlyAverage[]>;
  /** Every stored observation of a port, oldest first. */
  storedObservations(portId: string): Promise<Observation[]>;
  stop(): Promise<void>;
}

export async function startWorld(portIds: readonly string[]): Promise<World> {
  let nowMs = 0;
  const clock = { now: () => nowMs };
  const ports = portIds.map((id) => {
    const port = getPort(id);
    if (!port) throw new Error(`no catalogue port ${id}`);
    return port;
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'border-waits-history-'));
  const simulator = await startSimulator({ clock, ports: portIds });
  const embedded = await startEmbeddedStores(dataDir, clock);
  const { stores } = embedded;
  const sources = [
    createHttpFeedSource({ source: 'cbp', url: simulator.cbpXmlUrl, timeoutMs: 5_000 }),
    createHttpFeedSource({ source: 'cbsa', url: simulator.cbsaEnUrl, timeoutMs: 5_000 }),
  ];
  // History runs leave out the forecast step (its own world, forecast-world.ts, drives it).
  const { forecasts: _forecasts, ...historyStores } = stores;
  const base: IngestDeps = { ...historyStores, sources, clock };

  return {
    embedded,
    simulator,
    ports,
    async ingestAt(ms, fault) {
      nowMs = ms;
      simulator.setClock(ms);
      return runIngestCycle(fault ? withFault(base, fault) : base);
    },
    async publishedAverages(portId) {
      // The document the CDN serves for this port_id (an id or a slug).
      const document = await stores.documents.get(VIEW_PATHS.averages.document({ port_id: portId }));
      if (!document) throw new Error(`no averages document for ${portId}`);
      return JSON.parse(document.body) as HourlyAverage[];
    },
    storedObservations: (portId) => stores.observations.query(portId, 0, nowMs + 86_400_000),
    async stop() {
      await simulator.stop();
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The stores of one cycle with a fault injected at the given step (mocks only to inject faults). */
function withFault(deps: IngestDeps, fault: CycleFault): IngestDeps {
  const { rollups, documents, latest } = deps;
  switch (fault) {
    case 'before-sighting':
      return {
        ...deps,
        latest: {
          all: () => latest.all(),
          putReadings: (readings) => latest.putReadings(readings),
          putPorts: (ports) => latest.putPorts(ports),
          putSighting: async () => {
            throw new Error('injected: crash before the sighting');
          },
        },
      };
    case 'after-observations':
      return {
        ...deps,
        rollups: {
          averages: (portId) => rollups.averages(portId),
          putContributions: async () => {
            throw new Error('injected: crash after the observations were written');
          },
        },
      };
    case 'half-rollups':
      return {
        ...deps,
        rollups: {
          averages: (portId) => rollups.averages(portId),
          putContributions: async (contributions) => {
            await rollups.putContributions(contributions.slice(0, Math.ceil(contributions.length / 2)));
            throw new Error('injected: crash halfway through the rollups');
          },
        },
      };
    case 'publish': {
      let written = 0;
      const failing: DocumentStore = {
        get: (key) => documents.get(key),
        exists: (key) => documents.exists(key),
        put: async (key, body, meta) => {
          if (++written > 3) throw new Error('injected: publish failed');
          return documents.put(key, body, meta);
        },
      };
      return { ...deps, documents: failing };
    }
  }
}

/** Poll instants: every `stepMs` from `fromMs` to `toMs`, plus every `denseStepMs` inside the dense ranges. */
export function pollInstants(
  fromMs: number,
  toMs: number,
  stepMs: number,
  dense: readonly { fromMs: number; toMs: number }[] = [],
  denseStepMs = 5 * 60_000,
): number[] {
  const instants = new Set<number>();
  for (let t = fromMs; t <= toMs; t += stepMs) instants.add(t);
  for (const range of dense) for (let t = range.fromMs; t <= range.toMs; t += denseStepMs) instants.add(t);
  return [...instants].sort((a, b) => a - b);
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Port-local day of week and hour of an instant, read from Intl directly (independent of functions/core/time.ts). */
export function localWeekdayHour(epochMs: number, timeZone: string): { dayOfWeek: number; hour: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(epochMs));
  const weekday = parts.find((part) => part.type === 'weekday')?.value ?? '';
  return {
    dayOfWeek: WEEKDAYS.indexOf(weekday),
    hour: Number(parts.find((part) => part.type === 'hour')?.value),
  };
}

/** What the service should publish for a port polled at `polls`: from the simulator's model alone. */
export function referenceAverages(port: Port, seen: readonly SimulatedObservation[]): HourlyAverage[] {
  const buckets = new Map<string, HourlyAverage & { sum: number; values: number[] }>();
  for (const observation of seen) {
    if (observation.delayMinutes === null) continue;
    const { dayOfWeek, hour } = localWeekdayHour(Date.parse(observation.observedAt), port.timeZone);
    const key = [observation.direction, observation.mode, observation.lane, dayOfWeek, hour].join('|');
    const bucket = buckets.get(key) ?? {
      portId: port.id,
      direction: observation.direction,
      mode: observation.mode,
      lane: observation.lane,
      dayOfWeek,
      hour,
      averageDelayMinutes: 0,
      medianDelayMinutes: null,
      samples: 0,
      sum: 0,
      values: [],
    };
    bucket.sum += observation.delayMinutes;
    bucket.values.push(observation.delayMinutes);
    bucket.samples += 1;
    buckets.set(key, bucket);
  }
  return [...buckets.values()]
    .map(({ sum, values, ...bucket }) => {
      const sorted = [...values].sort((a, b) => a - b);
      const middle = sorted.length / 2;
      return {
        ...bucket,
        averageDelayMinutes: Math.round((sum / bucket.samples) * 10) / 10,
        medianDelayMinutes:
          sorted.length % 2 === 1
            ? (sorted[Math.floor(middle)] ?? 0)
            : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2,
      };
    })
    .sort(
      (a, b) =>
        a.direction.localeCompare(b.direction) ||
        a.mode.localeCompare(b.mode) ||
        a.lane.localeCompare(b.lane) ||
        a.dayOfWeek - b.dayOfWeek ||
        a.hour - b.hour,
    );
}

export { observationsSeen };
