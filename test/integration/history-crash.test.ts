/**
 * Idempotence and crash safety of the rollups, without transactions: replaying the same documents
 * three times, or breaking a cycle after any step and running again, leaves exactly the aggregates
 * of one clean run (and of the reference computed from the simulator's model).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getPort } from '../../functions/core/catalogue/catalogue.ts';
import type { HourlyAverage } from '../../functions/core/model.ts';
import {
  type CycleFault,
  observationsSeen,
  pollInstants,
  referenceAverages,
  startWorld,
  type World,
} from './history-world.ts';

const PORTS = ['090101', '250401', 'cbsa-north-portal'];
const POLLS = pollInstants(
  Date.parse('2026-10-31T00:07:00Z'),
  Date.parse('2026-11-02T00:07:00Z'),
  3_600_000,
  [{ fromMs: Date.parse('2026-11-01T05:00:00Z'), toMs: Date.parse('2026-11-01T07:00:00Z') }],
);

async function allAverages(world: World): Promise<Record<string, HourlyAverage[]>> {
  const result: Record<string, HourlyAverage[]> = {};
  for (const id of PORTS) result[id] = await world.publishedAverages(id);
  return result;
}

async function run(world: World, polls: readonly number[]): Promise<void> {
  for (const poll of polls) await world.ingestAt(poll);
}

describe('rollups: idempotence and crash safety', () => {
  let clean: Record<string, HourlyAverage[]>;

  beforeAll(async () => {
    const world = await startWorld(PORTS);
    try {
      await run(world, POLLS);
      clean = await allAverages(world);
    } finally {
      await world.stop();
    }
  }, 300_000);

  it.each(PORTS)('port %s: a clean run publishes the reference averages', (id) => {
    const port = getPort(id);
    if (!port) throw new Error(id);
    expect(clean[id]?.length).toBeGreaterThan(0);
    expect(clean[id]).toEqual(referenceAverages(port, observationsSeen(port, POLLS)));
  });

  it('the same documents ingested three times give the aggregates of one run', async () => {
    const world = await startWorld(PORTS);
    try {
      // Each pass replays every document: after the first, latest holds the last one, so the
      // replayed readings count as new again and every observation and rollup is written again.
      for (let pass = 1; pass <= 3; pass++) {
        await run(world, POLLS);
        expect(await allAverages(world), `after pass ${pass}`).toEqual(clean);
      }
    } finally {
      await world.stop();
    }
  }, 300_000);

  it.each<[CycleFault, string]>([
    ['after-observations', 'observations written, no rollup'],
    ['half-rollups', 'half the rollups written'],
    ['publish', 'publishing failed after a few documents'],
  ])(
    'a crash (%s: %s) at every 5th poll, then a rerun, gives the aggregates of a clean run',
    async (fault) => {
      const world = await startWorld(PORTS);
      try {
        let crashes = 0;
        for (const [index, poll] of POLLS.entries()) {
          if (index % 5 === 2) {
            const crashed = await world.ingestAt(poll, fault).then(
              (outcomes) => outcomes.some((o) => o.outcome === 'failed'),
              () => true,
            );
            if (crashed) crashes++;
          }
          await world.ingestAt(poll);
        }
        expect(crashes).toBeGreaterThanOrEqual(Math.floor(POLLS.length / 5));
        expect(await allAverages(world)).toEqual(clean);
      } finally {
        await world.stop();
      }
    },
    300_000,
  );
});
