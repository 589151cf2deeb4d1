/**
 * The import's file readers refuse a malformed file whole, with one message naming the line and the
 * fix; good files give checked readings.
 */
import { describe, expect, it } from 'vitest';
import {
  ImportInputError,
  readCascadeGatewayCsv,
  readExportCsv,
} from '../../../../functions/core/history/import-files.ts';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const HEADER = 'portId,direction,mode,lane,status,delayMinutes,lanesOpen,maxLanes,observedAt,source';
const ROW = '250401,into-us,passenger,standard,open,45,12,24,2026-11-26T14:05:00.000Z,cbp';

describe('readExportCsv', () => {
  it('reads the rows export_observations writes, keeping status, lanes and source', () => {
    expect(
      readExportCsv(
        `${HEADER}\r\n${ROW}\r\n250401,into-us,passenger,ready,lanes-closed,,,24,2026-11-26T14:05:00Z,cbp\r\n`,
        NOW,
      ),
    ).toEqual([
      {
        portId: '250401',
        direction: 'into-us',
        mode: 'passenger',
        lane: 'standard',
        status: 'open',
        delayMinutes: 45,
        lanesOpen: 12,
        maxLanes: 24,
        observedAt: '2026-11-26T14:05:00.000Z',
        source: 'cbp',
      },
      {
        portId: '250401',
        direction: 'into-us',
        mode: 'passenger',
        lane: 'ready',
        status: 'lanes-closed',
        delayMinutes: null,
        lanesOpen: null,
        maxLanes: 24,
        observedAt: '2026-11-26T14:05:00.000Z',
        source: 'cbp',
      },
    ]);
  });

  it.each([
    ['', 'line 1: the file is empty'],
    ['portId,mode\n250401,passenger\n', 'line 1: the header lacks direction, lane, delayMinutes, observedAt'],
    [
      `${HEADER}\n${ROW}\n999999,into-us,passenger,standard,open,5,,,2026-11-26T14:05:00Z,cbp\n`,
      'line 3: portId "999999" is not a catalogued port',
    ],
    [
      `${HEADER}\n${ROW.replace('into-us', 'southbound')}\n`,
      'line 2: direction "southbound" is not one of into-us, into-canada',
    ],
    [
      `${HEADER}\n${ROW.replace('passenger,standard', 'passenger,express')}\n`,
      'line 2: lane "express" is not one of',
    ],
    [
      `${HEADER}\n${ROW.replace('2026-11-26T14:05:00.000Z', '11/26/2026 14:05')}\n`,
      'line 2: observedAt "11/26/2026 14:05" is not an ISO 8601 UTC time; write it as 2026-03-08T14:05:00Z',
    ],
    [
      `${HEADER}\n${ROW.replace('2026-11-26', '2026-12-26')}\n`,
      'line 2: observedAt "2026-12-26T14:05:00.000Z" is in the future',
    ],
    [
      `${HEADER}\n${ROW.replace(',45,', ',-3,')}\n`,
      'line 2: delayMinutes "-3" is not a number of minutes >= 0; leave it empty when the lane gave none',
    ],
    [`${HEADER}\n${ROW.replace(',open,', ',busy,')}\n`, 'line 2: status "busy" is not one of'],
    [`${HEADER}\n${ROW}\n250401,into-us\n`, 'line 3: 2 fields where the header has 10'],
    [`${HEADER}\n"${ROW}\n`, 'line 2:'],
  ])('refuses %j: %s', (text, message) => {
    expect(() => readExportCsv(text, NOW)).toThrow(ImportInputError);
    expect(() => readExportCsv(text, NOW)).toThrow(message);
  });
});

describe('readCascadeGatewayCsv', () => {
  const LANE = { portId: '300402', direction: 'into-us', mode: 'passenger', lane: 'standard' } as const;

  it('places each hourly average at the start of the hour it covers, in the port zone, and skips empty values', () => {
    const text =
      'Group Starts,Avg - Delay (Peace Arch South Cars)\n2013-07-01 08:00:00,12.5\n2013-07-01 09:00:00,\n';
    const { readings, skipped } = readCascadeGatewayCsv(text, LANE);
    expect(skipped).toBe(1);
    expect(readings).toEqual([
      expect.objectContaining({
        portId: '300402',
        delayMinutes: 12.5,
        observedAt: '2013-07-01T15:00:00.000Z',
        source: 'cbp',
      }),
    ]);
  });

  it('refuses an unknown port and a row it cannot read, naming the line', () => {
    expect(() =>
      readCascadeGatewayCsv('Group Starts,Avg - Delay (x)\n', { ...LANE, portId: '999999' }),
    ).toThrow(/--port 999999 is not a catalogued port/);
    expect(() =>
      readCascadeGatewayCsv(
        'Group Starts,Avg - Delay (x)\n2013-07-01 08:00:00,1\n07/01/2013 09:00,2\n',
        LANE,
      ),
    ).toThrow(/^line 3: /);
  });
});
