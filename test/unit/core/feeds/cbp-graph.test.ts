/**
 * CBP's hourly graph (feeds.md 2.5): table-driven over the real capture of
 * `../shared/fixtures/feeds/` (Blaine Pacific Highway, 2022-06-30, taken at 17:43 PDT), and over
 * hand-written documents for the quirks the capture does not show.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../../../functions/core/errors.ts';
import { graphMinutes, type ParsedGraph, parseCbpGraph } from '../../../../functions/core/feeds/cbp-graph.ts';
import { sharedFeedsDir, sharedFeedsMissing, sharedFeedsPresent } from './cbp-fixtures.ts';

const CAPTURE =
  'cbp-api-bwtwaittimegraph-02300401-2022-06-30__WSDOT-GIS-border-crossings-postman__2022-07-01T0043Z.json';

/** [mode, lane, hour, average, min, max, why] read by hand from the capture. */
type Spot = [string, string, number, number, number | null, number | null, string];

const SPOTS: Spot[] = [
  ['commercial', 'standard', 0, 7, 0, 15, 'first slot'],
  [
    'commercial',
    'standard',
    2,
    10,
    0,
    20,
    "today's value is empty at 2 am (a missed report); the average is there",
  ],
  ['commercial', 'standard', 23, 6, 5, 10, "last slot: today's value not yet known, the average is"],
  ['passenger', 'standard', 10, 12, 5, 30, 'private_slot is the passenger mode'],
  ['passenger', 'nexus', 11, 8, 0, 10, 'fast_lane_* of the private slots is NEXUS on the Canadian border'],
  ['passenger', 'nexus', 0, 0, 0, 0, 'a lane CBP runs keeps its real zeros'],
];

describe.skipIf(!sharedFeedsPresent)(
  `the real graph capture (${sharedFeedsPresent ? sharedFeedsDir : sharedFeedsMissing})`,
  () => {
    const parsed = (): ParsedGraph => parseCbpGraph(readFileSync(join(sharedFeedsDir, CAPTURE)), 'ca');

    it('reads the port number and the date the graph is for', () => {
      const graph = parsed();
      expect(graph.portNumber).toBe('300401');
      expect(graph.date).toBe('2022-06-30');
    });

    it.each(SPOTS)(
      '%s %s at %i h: average %i, min %s, max %s (%s)',
      (mode, lane, hour, average, min, max) => {
        const wait = parsed().typical.find((w) => w.mode === mode && w.lane === lane && w.hour === hour);
        expect(wait).toEqual({ mode, lane, hour, averageMinutes: average, minMinutes: min, maxMinutes: max });
      },
    );

    it('gives 24 hours of each lane CBP runs there, and leaves out the all-zero ones', () => {
      const lanes = new Map<string, number>();
      for (const w of parsed().typical)
        lanes.set(`${w.mode}/${w.lane}`, (lanes.get(`${w.mode}/${w.lane}`) ?? 0) + 1);
      // Commercial FAST, passenger Ready and both pedestrian lanes are zero all day at Pacific Highway.
      expect(Object.fromEntries(lanes)).toEqual({
        'commercial/standard': 24,
        'passenger/standard': 24,
        'passenger/nexus': 24,
      });
    });

    it('reads the same minutes as the raw JSON for every value it keeps', () => {
      const raw = JSON.parse(readFileSync(join(sharedFeedsDir, CAPTURE), 'utf8'))[0];
      for (const w of parsed().typical.filter((t) => t.mode === 'passenger' && t.lane === 'standard')) {
        const slot = raw.private_time_slots.private_slot[w.hour];
        expect(w.averageMinutes).toBe(Number(slot.standard_lane_average_wait));
        expect(w.maxMinutes).toBe(Number(slot.standard_lane_max_wait));
      }
    });
  },
);

/** A graph document in CBP's shape, with the given passenger standard slots. */
function graph(slots: Record<string, string>[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify([
    {
      port_number: '250401',
      port_name: 'San Ysidro',
      crossing_name: '',
      date: '2026-11-27',
      private_time_slots: { private_slot: slots },
      ...extra,
    },
  ]);
}

const slot = (time: number, average: string, min = '0', max = '60') => ({
  time: String(time),
  standard_lane_today_wait: '',
  standard_lane_average_wait: average,
  standard_lane_min_wait: min,
  standard_lane_max_wait: max,
});

describe('parseCbpGraph on hand-written documents', () => {
  it.each([
    ['an empty average', slot(7, ''), []],
    ['an average of spaces', slot(7, '  '), []],
    ['N/A', slot(7, 'N/A'), []],
    ['a negative number', slot(7, '-5'), []],
  ])('gives no value for %s, never 0', (_why, given, expected) => {
    expect(parseCbpGraph(graph([slot(6, '30'), given]), 'mx').typical.filter((w) => w.hour === 7)).toEqual(
      expected,
    );
  });

  it('keeps an empty minimum or maximum as null beside a real average', () => {
    const [wait] = parseCbpGraph(graph([slot(8, '25', '', '')]), 'mx').typical;
    expect(wait).toEqual({
      mode: 'passenger',
      lane: 'standard',
      hour: 8,
      averageMinutes: 25,
      minMinutes: null,
      maxMinutes: null,
    });
  });

  it('names the trusted-traveller lane by border: SENTRI on the Mexican border', () => {
    const doc = graph([
      { time: '9', fast_lane_average_wait: '12', fast_lane_min_wait: '5', fast_lane_max_wait: '30' },
    ]);
    expect(parseCbpGraph(doc, 'mx').typical[0]?.lane).toBe('sentri');
    expect(parseCbpGraph(doc, 'ca').typical[0]?.lane).toBe('nexus');
  });

  it('reads pedestrian lanes under CBP\'s "pedestrain" spelling', () => {
    const doc = graph([], {
      pedestrain_time_slots: {
        pedestrain_slot: [{ time: '14', standard_lane_average_wait: '40', ready_lane_average_wait: '' }],
      },
    });
    expect(parseCbpGraph(doc, 'mx').typical).toEqual([
      {
        mode: 'pedestrian',
        lane: 'standard',
        hour: 14,
        averageMinutes: 40,
        minMinutes: null,
        maxMinutes: null,
      },
    ]);
  });

  it('skips slots whose hour is not 0-23', () => {
    expect(parseCbpGraph(graph([slot(24, '10'), slot(3, '10')]), 'mx').typical.map((w) => w.hour)).toEqual([
      3,
    ]);
  });

  it.each([
    ['not JSON', '<html>error</html>', /not JSON/],
    ['a truncated document', graph([slot(1, '5')]).slice(0, 40), /not JSON/],
    ['an empty array', '[]', /no port object/],
    ['no date', JSON.stringify([{ port_number: '250401' }]), /date/],
    ['no slot at all', JSON.stringify([{ port_number: '250401', date: '2026-11-27' }]), /no hourly slot/],
  ])('refuses %s with a FeedFormatError', (_why, text, message) => {
    expect(() => parseCbpGraph(text, 'mx')).toThrow(FeedFormatError);
    expect(() => parseCbpGraph(text, 'mx')).toThrow(message);
  });

  it.each([
    ['7', 7],
    [' 12 ', 12],
    ['2.5', 2.5],
    [9, 9],
    ['', null],
    [null, null],
    ['1 hr', null],
    [Number.NaN, null],
  ])('reads the minute value %j as %s', (given, expected) => {
    expect(graphMinutes(given)).toBe(expected);
  });
});
