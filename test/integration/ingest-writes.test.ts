/**
 * The ingest writes only what changed: a `latest` item whose content (everything but `fetchedAt`)
 * is unchanged is not written again, and its source's sighting gives it the new fetch time. What a
 * reader sees is what writing every item would give: a lane the document carries has that fetch's
 * time, a lane it does not carry (a CBP "update pending" lane that keeps its timed reading) keeps
 * the time of the last document that carried it, and a crash before the sighting loses nothing.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import type { LaneWait } from '../../functions/core/views/views.ts';
import { TABLES } from '../../infra/manifest.ts';
import { startWorld, type World } from './history-world.ts';

// The simulator's CBP page says "Update Pending" for some lanes in the second half of each minute
// of these hours, and gives their timed reading again in the first half (ingest-order.test.ts).
const PORTS = ['010401', '070101'];
const FIRST = Date.parse('2026-11-26T05:01:00Z');
const PENDING = Date.parse('2026-11-26T05:01:30Z');
const AGAIN = Date.parse('2026-11-26T05:02:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

type Item = Record<string, unknown> & { pk: string; sk: string; fetchedAt?: string };

/** The `latest` table's items as stored, by key. */
async function stored(world: World): Promise<Map<string, Item>> {
  const out = await world.embedded.stores.dynamo.send(new ScanCommand({ TableName: TABLES.latest.name }));
  return new Map((out.Items as Item[]).map((item) => [`${item.pk}|${item.sk}`, item]));
}

/** The items whose stored copy changed between two scans. */
function rewritten(before: Map<string, Item>, after: Map<string, Item>): string[] {
  return [...after]
    .filter(([key, item]) => JSON.stringify(before.get(key)) !== JSON.stringify(item))
    .map(([key]) => key);
}

/** Every lane of the published `port-current`, as a reader gets it. */
async function published(world: World): Promise<(LaneWait & { portId: string })[]> {
  const document = await world.embedded.stores.documents.get('v1/port-current/all.json');
  return (JSON.parse(document?.body ?? '{}') as { current: (LaneWait & { portId: string })[] }).current;
}

const laneOf = (l: { portId: string; direction: string; mode: string; lane: string }) =>
  `${l.portId} ${l.direction} ${l.mode} ${l.lane}`;

describe('the ingest writes only what changed', () => {
  let world: World | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('rewrites only changed lanes, and a reader sees every carried lane at the new fetch time', async () => {
    world = await startWorld(PORTS);
    await world.ingestAt(FIRST);
    const first = await published(world);
    const lanes = first.filter((l) => l.source === 'cbp');
    expect(lanes.length).toBeGreaterThan(10);
    expect(lanes.every((l) => l.fetchedAt === iso(FIRST))).toBe(true);

    // Half a minute on: the pending lanes keep their timed reading and the time it was last carried.
    await world.ingestAt(PENDING);
    const pending = await published(world);
    const kept = pending.filter(
      (l) => l.source === 'cbp' && l.observedAt !== null && l.fetchedAt === iso(FIRST),
    );
    expect(kept.length, 'lanes whose timed reading outlives "update pending"').toBeGreaterThan(0);
    for (const lane of pending.filter((l) => l.source === 'cbp' && !kept.includes(l)))
      expect(lane.fetchedAt, laneOf(lane)).toBe(iso(PENDING));

    // The same readings again: nothing to rewrite but the lanes' content that changed.
    const before = await stored(world);
    await world.ingestAt(AGAIN);
    const after = await stored(world);
    const again = await published(world);
    for (const lane of again.filter((l) => l.source === 'cbp'))
      expect(lane.fetchedAt, laneOf(lane)).toBe(iso(AGAIN));
    const laneItems = [...after.keys()].filter((key) => key.includes('|lane#'));
    const changed = rewritten(before, after).filter((key) => key.includes('|lane#'));
    expect(changed.length, `rewritten: ${changed.join(', ')}`).toBeLessThan(laneItems.length / 4);
    for (const key of changed) {
      const { fetchedAt: _a, ...was } = before.get(key) ?? {};
      const { fetchedAt: _b, ...now } = after.get(key) ?? {};
      expect(now, key).not.toEqual(was);
    }
  }, 120_000);

  it('a crash after the changed items and before the sighting moves nothing back; the next cycle finishes', async () => {
    world = await startWorld(PORTS);
    await world.ingestAt(FIRST);
    await world.ingestAt(PENDING);
    const pending = await published(world);
    const outcomes = await world.ingestAt(AGAIN, 'before-sighting');
    expect(outcomes.find((o) => o.source === 'cbp')?.error).toMatch(/injected/);
    // Read straight from the store: no lane's reading or time moved back.
    const { readings } = await world.embedded.stores.latest.all();
    for (const lane of pending) {
      const now = readings.find((r) => laneOf(r) === laneOf(lane));
      expect(now && now.fetchedAt >= lane.fetchedAt, laneOf(lane)).toBe(true);
      expect((now?.observedAt ?? '') >= (lane.observedAt ?? ''), laneOf(lane)).toBe(true);
    }
    await world.ingestAt(AGAIN + 60_000);
    for (const lane of (await published(world)).filter((l) => l.source === 'cbp'))
      expect(lane.fetchedAt, laneOf(lane)).toBe(iso(AGAIN + 60_000));
  }, 120_000);
});
