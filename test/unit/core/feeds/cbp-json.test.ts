import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../../../functions/core/errors.ts';
import { parseCbpJson } from '../../../../functions/core/feeds/cbp-json.ts';
import {
  at,
  lanesPerPort,
  ownFixture,
  readingOf,
  sharedFeedsDir,
  sharedFeedsMissing,
  sharedFeedsPresent,
} from './cbp-fixtures.ts';

const SINGLE_CAPTURE =
  'cbp-api-bwtpublicmod-300401__WSDOT-GIS-border-crossings-postman__2022-07-01T0042Z.json';
/** The real bwtpublicmod/300401 capture, read from ../shared (never copied into the project). */
const singleCapture = () => readFileSync(join(sharedFeedsDir, SINGLE_CAPTURE));

const text = (name: string) => new TextDecoder().decode(ownFixture(name));

describe('parseCbpJson: bwtnew array (test/fixtures/cbp/bwtnew-quirks.json)', () => {
  const feed = parseCbpJson(ownFixture('bwtnew-quirks.json'), { fetchedAt: at('2022-06-29T17:25:15Z') });

  it('reads every port of the top-level array and states no declared count', () => {
    expect(feed).toMatchObject({ source: 'cbp', format: 'cbp-json', declaredPortCount: null });
    expect(feed.ports).toHaveLength(6);
    for (const count of lanesPerPort(feed).values()) expect(count).toBe(7);
  });

  it('takes generatedAt as the latest port date+time, reading Arizona ports on the clock CBP maps them to', () => {
    // Nogales prints 11:25:16 (Mountain with DST), Douglas 10:25:16 (Pacific with DST): both are
    // 17:25:16 UTC. Read on Arizona time, Nogales would claim 18:25:16.
    expect(feed.generatedAt).toBe('2022-06-29T17:25:16Z');
  });

  it.each([
    [
      '011501',
      'passenger',
      'standard',
      '2022-06-28T19:00:00Z',
      'Calais At 3:00 pm EDT under 13:25 rolls back a day',
    ],
    ['011501', 'commercial', 'standard', '2022-06-29T17:00:00Z', 'Calais At 1:00 pm EDT stays on the day'],
    [
      '360401',
      'passenger',
      'standard',
      '2022-06-28T19:00:00Z',
      'International Falls At 2:00 pm CDT rolls back',
    ],
    ['260401', 'passenger', 'standard', '2022-06-29T17:00:00Z', 'Nogales At 10:00 am MST is Arizona time'],
    ['260101', 'passenger', 'standard', '2022-06-29T15:00:00Z', 'Douglas At 8:00 am PST is Arizona time'],
    ['250401', 'passenger', 'standard', '2022-06-29T17:00:00Z', 'San Ysidro At 10:00 am PDT'],
  ])('resolves %s %s %s to %s (%s)', (id, mode, lane, iso) => {
    expect(readingOf(feed, id, mode, lane)?.observedAt).toBe(iso);
  });

  it('reads all-string values: "" is no value, "N/A" maximum_lanes is null, numbers keep their value', () => {
    expect(readingOf(feed, '250401', 'passenger', 'standard')).toMatchObject({
      delayMinutes: 80,
      lanesOpen: 14,
      maxLanes: 34,
    });
    expect(readingOf(feed, '011501', 'pedestrian', 'standard')?.maxLanes).toBeNull();
    expect(feed.ports.find((p) => p.portId === '250401')).toMatchObject({ crossing: null, notice: null });
  });

  it('reads a port without the optional automation, segment and tolerance keys', () => {
    expect(readingOf(feed, '070801', 'passenger', 'standard')?.status).toBe('update-pending');
  });

  it('never gives Update Pending a delay of 0', () => {
    const pending = feed.readings.filter((r) => r.status === 'update-pending');
    expect(pending.length).toBeGreaterThan(0);
    for (const reading of pending) expect(reading).toMatchObject({ delayMinutes: null, lanesOpen: null });
  });
});

describe('parseCbpJson: Spanish bwtpublicmod (test/fixtures/cbp/bwtpublicmod-es.json)', () => {
  const feed = parseCbpJson(text('bwtpublicmod-es.json'), { fetchedAt: at('2026-06-01T22:10:00Z') });

  it('reads Frontera mexicana/canadiense and Abierto/Cerrado', () => {
    expect(feed.ports.map((p) => [p.portId, p.border, p.portStatus])).toEqual([
      ['250401', 'mx', 'open'],
      ['230401', 'mx', 'open'],
      ['230501', 'mx', 'closed'],
      ['300401', 'ca', 'open'],
    ]);
    expect(feed.generatedAt).toBe('2026-06-01T22:10:00Z');
  });

  it.each([
    ['commercial', 'standard', 'open', 20],
    ['commercial', 'fast', 'not-applicable', null],
    ['passenger', 'standard', 'open', 45],
    ['passenger', 'sentri', 'open', 0],
    ['passenger', 'ready', 'lanes-closed', null],
    ['pedestrian', 'standard', 'update-pending', null],
    ['pedestrian', 'ready', 'update-pending', null],
  ])(
    'reads San Ysidro %s %s as %s with %j minutes, case- and accent-insensitively',
    (mode, lane, status, minutes) => {
      expect(readingOf(feed, '250401', mode, lane)).toMatchObject({ status, delayMinutes: minutes });
    },
  );

  it.each([
    ['250401', 'passenger', 'standard', '2026-06-01T22:00:00Z', 'En 3:00 pm PDT'],
    ['250401', 'passenger', 'sentri', '2026-06-01T19:00:00Z', 'En Mediodía PDT'],
    ['230401', 'passenger', 'standard', '2026-06-01T05:00:00Z', 'En Medianoche CDT'],
  ])('resolves %s %s %s to %s (%s)', (id, mode, lane, iso) => {
    expect(readingOf(feed, id, mode, lane)?.observedAt).toBe(iso);
  });

  it('overrides the lanes of a Cerrado port with port-closed', () => {
    const lanes = feed.readings.filter((r) => r.portId === '230501');
    expect(lanes.map((r) => r.status)).toEqual(Array(7).fill('port-closed'));
  });

  it('names the trusted-traveller lane nexus on the Frontera canadiense', () => {
    expect(readingOf(feed, '300401', 'passenger', 'nexus')?.delayMinutes).toBe(5);
  });
});

describe('parseCbpJson: single bwtpublicmod/{n} object and the PHP conversion', () => {
  it.skipIf(!sharedFeedsPresent)(
    `reads the single port object of bwtpublicmod/300401 (${sharedFeedsMissing} if absent)`,
    () => {
      const feed = parseCbpJson(new Uint8Array(singleCapture()), {
        fetchedAt: at('2022-07-01T00:42:13Z'),
      });
      expect(feed.ports.map((p) => p.portId)).toEqual(['300401']);
      expect(feed.generatedAt).toBe('2022-07-01T00:42:13Z');
      expect(readingOf(feed, '300401', 'commercial', 'standard')).toMatchObject({
        status: 'open',
        delayMinutes: 20,
        lanesOpen: 2,
        maxLanes: 3,
        observedAt: '2022-07-01T00:00:00Z',
      });
      expect(feed.readings.length + feed.rejects.length).toBe(7);
    },
  );

  const php = parseCbpJson(ownFixture('bwt-php.json'), { fetchedAt: at('2023-11-10T06:55:05Z') });

  it('reads the PHP simplexml form: Eastern header, number_of_ports, {} as no value', () => {
    expect(php).toMatchObject({ generatedAt: '2023-11-10T06:55:05Z', declaredPortCount: 4 });
    expect(php.ports).toHaveLength(4);
    expect(php.ports.find((p) => p.portId === 'L01901')).toMatchObject({ crossing: null, notice: null });
    expect(readingOf(php, '020901', 'commercial', 'fast')).toMatchObject({
      status: 'not-applicable',
      delayMinutes: null,
    });
  });

  it('reads a construction_notice that is absent, {} or text', () => {
    expect(php.ports.map((p) => p.notice)).toEqual([
      null,
      null,
      'Port closes at 10 pm; use El Paso BOTA after hours.',
      null,
    ]);
  });

  it.each<[string, string, string, string | undefined, string]>([
    [
      '020901',
      'passenger',
      'standard',
      '2023-11-09T12:00:00Z',
      'Derby Line At 7:00 am EST rolls back to 11/9',
    ],
    ['230401', 'passenger', 'nexus', undefined, 'Laredo is on the Mexican border: no nexus lane'],
    ['230401', 'passenger', 'sentri', '2023-11-10T06:00:00Z', 'At Midnight CST'],
  ])('resolves %s %s %s to %s (%s)', (id, mode, lane, iso) => {
    expect(readingOf(php, id, mode, lane)?.observedAt).toBe(iso);
  });

  it('overrides the stale lanes of closed Santa Teresa with port-closed', () => {
    expect(php.readings.filter((r) => r.portId === '240801').every((r) => r.status === 'port-closed')).toBe(
      true,
    );
  });

  it('reads a lone PHP port object (simplexml makes one <port> an object, not an array)', () => {
    const value = JSON.parse(text('bwt-php.json')) as { port: unknown[] };
    const feed = parseCbpJson({ ...value, number_of_ports: '1', port: value.port[0] });
    expect(feed.ports.map((p) => p.portId)).toEqual(['020901']);
  });
});

describe('parseCbpJson input forms and unusable documents', () => {
  it('reads bytes, text and an already parsed value alike', () => {
    const bytes = ownFixture('bwtnew-quirks.json');
    const options = { fetchedAt: at('2022-06-29T17:25:15Z') };
    const fromBytes = parseCbpJson(bytes, options);
    expect(parseCbpJson(new TextDecoder().decode(bytes), options)).toEqual(fromBytes);
    expect(parseCbpJson(JSON.parse(new TextDecoder().decode(bytes)), options)).toEqual(fromBytes);
    expect(parseCbpJson(`\uFEFF${new TextDecoder().decode(bytes)}`, options)).toEqual(fromBytes);
  });

  it.skipIf(!sharedFeedsPresent)(
    'reads numbers where CBP writes strings, and ignores null and boolean values',
    () => {
      const value = JSON.parse(singleCapture().toString('utf8'));
      value.commercial_vehicle_lanes.standard_lanes.delay_minutes = 20;
      value.commercial_vehicle_lanes.standard_lanes.lanes_open = null;
      value.construction_notice = false;
      const feed = parseCbpJson(value, { fetchedAt: at('2022-07-01T00:42:13Z') });
      expect(readingOf(feed, '300401', 'commercial', 'standard')).toMatchObject({
        delayMinutes: 20,
        lanesOpen: null,
      });
      expect(feed.ports[0]?.notice).toBeNull();
    },
  );

  it.each([
    ['truncated JSON', text('bwtnew-quirks.json').slice(0, 4370)],
    ['an empty array', '[]'],
    ['an unknown object', '{"portCrossings": []}'],
    ['a number', '42'],
    ['null', 'null'],
    ['not JSON', '<html></html>'],
    ['an empty document', ''],
    ['ports without port numbers', '[{"border":"Canadian Border"},{"port_number":""},7]'],
    ['a PHP conversion without ports', '{"last_updated_date":"2023-11-10","port":[]}'],
  ])('throws FeedFormatError for %s', (_name, input) => {
    expect(() => parseCbpJson(input)).toThrow(FeedFormatError);
  });

  it('throws FeedFormatError for a parsed value of no known shape', () => {
    expect(() => parseCbpJson(undefined)).toThrow(FeedFormatError);
    expect(() => parseCbpJson({ ports: [] })).toThrow(FeedFormatError);
  });
});
