import { describe, expect, it } from 'vitest';
import { quantilesOf } from '../../../../functions/core/forecast/forecast.ts';
import {
  addRecord,
  mergeRecords,
  type PortRecord,
  slotRecord,
  type Tally,
} from '../../../../functions/core/forecast/skill.ts';

const tally = (n: number, extra: Partial<Tally> = {}): Tally => ({
  abs: 10 * n,
  err: -2 * n,
  cov: n - 1,
  n,
  hist: {},
  bands: [{ '0': n }, {}, { '-3': 1 }, {}],
  lvn: [n, 0, 0, 0],
  lvc: [n - 1, 0, 0, 0],
  reg: [1, 2, 3, 4, 5, 6, 7, 8, 9, n],
  ctr: [3, 4, n],
  ...extra,
});

/** A window, a day and a scored slot: lanes and horizons in one part only, and in several. */
const parts = (): PortRecord[] => [
  {
    'into-us#passenger#standard': {
      '60': { model: tally(40), champion: tally(40) },
      '120': { model: tally(30) },
    },
  },
  {
    'into-us#passenger#standard': { '60': { model: tally(3) } },
    'into-us#passenger#ready': { '60': { model: tally(2) } },
  },
  { 'into-us#passenger#standard': { '60': { model: tally(1), persistence: tally(1) } } },
];

describe("a slot's record", () => {
  it('holds the sums of the full merge, added into the first part alone', () => {
    const given = parts();
    const before = structuredClone(given);
    const slot = slotRecord(given);
    const full = mergeRecords(parts());
    // The first part (the window) is the result; the later parts (the live days) are unchanged.
    expect(slot).toBe(given[0]);
    expect(given.slice(1)).toEqual(before.slice(1));
    for (const [lane, horizons] of Object.entries(full)) {
      for (const [h, series] of Object.entries(horizons)) {
        for (const [name, sums] of Object.entries(series)) {
          const got = slot[lane]?.[h]?.[name as keyof typeof series] as Tally;
          expect({
            lane,
            h,
            name,
            abs: got.abs,
            err: got.err,
            cov: got.cov,
            n: got.n,
            reg: got.reg,
            ctr: got.ctr,
          }).toEqual({
            lane,
            h,
            name,
            abs: sums?.abs,
            err: sums?.err,
            cov: sums?.cov,
            n: sums?.n,
            reg: sums?.reg,
            ctr: sums?.ctr,
          });
        }
      }
    }
    // The published series keeps its coverage by level.
    expect(slot['into-us#passenger#standard']?.['60']?.champion?.lvn).toEqual([40, 0, 0, 0]);
    // The first part's histograms stay its own (the intervals sum each part's).
    expect(slot['into-us#passenger#standard']?.['60']?.model?.bands).toEqual(
      before[0]?.['into-us#passenger#standard']?.['60']?.model?.bands,
    );
    expect(slot['into-us#passenger#standard']?.['60']?.model?.n).toBe(44);
    // A tally only a later part holds is copied in, without histograms: that part keeps its own.
    const added = slot['into-us#passenger#ready']?.['60']?.model;
    expect(added).not.toBe(given[1]?.['into-us#passenger#ready']?.['60']?.model);
    expect(added?.n).toBe(2);
    expect(added?.bands).toBeUndefined();
  });
});

describe('error histograms', () => {
  const LANE = 'into-us#passenger#standard';
  const record = (bands: Tally['bands']): PortRecord => ({
    [LANE]: { '60': { model: tally(5, { bands }) } },
  });
  const bandsOf = (r: PortRecord) => r[LANE]?.['60']?.model?.bands;

  it('a record kept with { bin: count } objects sums with one kept as pairs, into pairs', () => {
    const merged = mergeRecords([
      record([{ '-3': 2, '0': 5, '12': 1 }, {}, { '1': 1 }, {}]),
      record([[0, 4, 7, 1], [], [-1, 2], [3, 3]]),
    ]);
    expect(bandsOf(merged)).toEqual([[-3, 2, 0, 9, 7, 1, 12, 1], [], [-1, 2, 1, 1], [3, 3]]);
  });

  it('taking a part out again drops the bins it emptied, whatever form the part has', () => {
    for (const part of [record([{ '0': 4, '7': 1 }, {}, {}, {}]), record([[0, 4, 7, 1], [], [], []])]) {
      const total = mergeRecords([record([[-3, 2, 0, 5], [], [], []]), part]);
      addRecord(total, part, -1);
      expect(bandsOf(total)).toEqual([[-3, 2, 0, 5], [], [], []]);
    }
  });

  it.each<{ name: string; pairs: number[]; object: Record<string, number> }>([
    { name: 'below the minimum', pairs: [0, 10], object: { '0': 10 } },
    { name: 'one bin', pairs: [2, 40], object: { '2': 40 } },
    { name: 'three bins', pairs: [-2, 10, 0, 79, 3, 11], object: { '3': 11, '-2': 10, '0': 79 } },
    { name: 'a bin beyond the dense range', pairs: [-1, 20, 5000, 20], object: { '5000': 20, '-1': 20 } },
  ])('quantiles of pairs and of the object kept before agree: $name', ({ pairs, object }) => {
    expect(quantilesOf(pairs)).toEqual(quantilesOf(object));
  });
});

describe('tallies a merge makes', () => {
  // One layout, every field present (absent ones undefined) in one order: the slot reads millions
  // of tally fields, and objects of one shape keep those reads monomorphic.
  const LAYOUT = ['abs', 'err', 'cov', 'n', 'hist', 'bands', 'lvn', 'lvc', 'reg', 'ctr', 'cor'];

  it.each([
    ['the full merge', mergeRecords, 5],
    ["a slot's record (the tallies a later part adds)", slotRecord, 2],
  ])('%s: every tally it builds has the one layout', (_name, merge, built) => {
    const given = parts();
    const own = new Set(
      given.flatMap((part) => Object.values(part).flatMap((h) => Object.values(h).flatMap(Object.values))),
    );
    const merged = merge(given);
    const made = Object.values(merged)
      .flatMap((h) => Object.values(h).flatMap(Object.values))
      .filter((tally) => !own.has(tally));
    expect(made).toHaveLength(built);
    for (const tally of made) expect(Object.keys(tally as object)).toEqual(LAYOUT);
  });
});
