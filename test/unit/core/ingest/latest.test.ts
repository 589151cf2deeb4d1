/**
 * The ingest's view of `latest`: what counts as a changed item (so an unchanged one is not written
 * again), and the cycle's one read, shared by the steps that ask for it at the same time.
 */
import { describe, expect, it } from 'vitest';
import { latestOnce, sameContent } from '../../../../functions/core/ingest/ingest.ts';
import type { LatestPortState, LatestReading } from '../../../../functions/core/model.ts';
import type { LatestSighting, LatestStore } from '../../../../functions/core/stores.ts';

const reading: LatestReading = {
  portId: '250401',
  direction: 'into-us',
  mode: 'passenger',
  lane: 'standard',
  status: 'open',
  delayMinutes: 35,
  lanesOpen: 12,
  maxLanes: 24,
  observedAt: '2026-11-26T05:00:00Z',
  source: 'cbp',
  fetchedAt: '2026-11-26T05:01:00.000Z',
};

describe('sameContent', () => {
  it('ignores fetchedAt, the order of keys and fields set to undefined, at every level', () => {
    const reordered = Object.fromEntries(Object.entries(reading).reverse()) as LatestReading;
    expect(sameContent(reading, { ...reordered, fetchedAt: '2026-11-26T06:00:00.000Z' })).toBe(true);
    expect(sameContent({ ...reading, extra: undefined }, reading)).toBe(true);
    const nested = { a: { b: 1, c: [1, { d: 2, fetchedAt: 'x' }] } };
    expect(sameContent(nested, { a: { c: [1, { fetchedAt: 'y', d: 2 }], b: 1 } })).toBe(true);
  });

  it('tells a change of any other field, nested ones and the order of arrays included', () => {
    expect(sameContent(reading, { ...reading, delayMinutes: 40 })).toBe(false);
    expect(sameContent(reading, { ...reading, delayMinutes: null })).toBe(false);
    expect(sameContent(reading, { ...reading, observedAt: null })).toBe(false);
    expect(sameContent(reading, { ...reading, notice: 'lanes closed' })).toBe(false);
    expect(sameContent({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameContent({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(sameContent({ a: { b: 1 } }, { a: { b: '1' } })).toBe(false);
    expect(sameContent({ a: [] }, { a: {} })).toBe(false);
    expect(sameContent({ a: null }, { a: {} })).toBe(false);
  });

  it('agrees with comparing the items as sorted JSON without fetchedAt, over many variants', () => {
    const asJson = (item: unknown) =>
      JSON.stringify(item, (key, value: unknown) => {
        if (key === 'fetchedAt') return undefined;
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
        return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      });
    const variants: Record<string, unknown>[] = [
      reading,
      { ...reading, fetchedAt: 'later' },
      { ...reading, status: 'lanes-closed' },
      { ...reading, lanesOpen: null },
      { ...reading, extra: { note: 'a' } },
      { ...reading, extra: { note: 'b' } },
      { ...reading, extra: { note: 'a', fetchedAt: 'z' } },
      { ...reading, extra: ['a', 'b'] },
      { ...reading, extra: undefined },
    ];
    for (const a of variants) {
      for (const b of variants) expect(sameContent(a, b)).toBe(asJson(a) === asJson(b));
    }
  });
});

/** A `latest` held in memory that counts its reads. */
function memoryLatest(): LatestStore & { reads: number } {
  const readings = new Map<string, LatestReading>();
  const ports = new Map<string, LatestPortState>();
  const sightings = new Map<string, LatestSighting>();
  const store = {
    reads: 0,
    async all() {
      store.reads += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return {
        readings: [...readings.values()],
        ports: [...ports.values()],
        sightings: [...sightings.values()],
      };
    },
    async putReadings(items: readonly LatestReading[]) {
      for (const r of items) readings.set(`${r.portId}#${r.direction}#${r.mode}#${r.lane}`, r);
    },
    async putPorts(items: readonly LatestPortState[]) {
      for (const p of items) ports.set(`${p.portId}#${p.source}`, p);
    },
    async putSighting(sighting: LatestSighting) {
      sightings.set(sighting.source, sighting);
    },
  };
  return store;
}

describe('latestOnce', () => {
  it('reads once for calls made while its read runs, and follows the writes after it', async () => {
    const store = memoryLatest();
    await store.putReadings([reading]);
    const latest = latestOnce(store);
    const [a, b, c] = await Promise.all([latest.all(), latest.all(), latest.all()]);
    expect(store.reads).toBe(1);
    expect(a.readings).toEqual([reading]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    await latest.putReadings([{ ...reading, delayMinutes: 50 }]);
    expect((await latest.all()).readings.map((r) => r.delayMinutes)).toEqual([50]);
    expect(store.reads).toBe(1);
  });

  it('a failed read is not kept: the next call reads again', async () => {
    const store = memoryLatest();
    let fail = true;
    const flaky: LatestStore = {
      ...store,
      all: () => (fail ? Promise.reject(new Error('store unavailable')) : store.all()),
    };
    const latest = latestOnce(flaky);
    await expect(latest.all()).rejects.toThrow('store unavailable');
    fail = false;
    await expect(latest.all()).resolves.toEqual({ readings: [], ports: [], sightings: [] });
  });
});
