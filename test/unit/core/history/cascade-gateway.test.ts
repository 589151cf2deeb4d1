import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../../functions/core/errors.ts';
import {
  CascadeGatewayFormatError,
  parseCascadeGatewayCsv,
} from '../../../../functions/core/history/cascade-gateway.ts';

const ZONE = 'America/Los_Angeles';
const HEADER = 'Group Starts,Avg - Delay (Peace Arch South Cars)';
const csv = (...rows: string[]) => [HEADER, ...rows].join('\n');

describe('parseCascadeGatewayCsv', () => {
  it('reads the series name and each hour as a reading at the end of its hour, in UTC', () => {
    const parsed = parseCascadeGatewayCsv(csv('2013-01-01 00:00:00,0.0', '2013-01-01 01:00:00,12.5'), ZONE);
    expect(parsed.series).toBe('Peace Arch South Cars');
    expect(parsed.readings).toEqual([
      {
        line: 2,
        localTime: '2013-01-01 00:00:00',
        startMs: Date.parse('2013-01-01T08:00:00Z'),
        atMs: Date.parse('2013-01-01T09:00:00Z'),
        delayMinutes: 0,
        ambiguous: false,
      },
      {
        line: 3,
        localTime: '2013-01-01 01:00:00',
        startMs: Date.parse('2013-01-01T09:00:00Z'),
        atMs: Date.parse('2013-01-01T10:00:00Z'),
        delayMinutes: 12.5,
        ambiguous: false,
      },
    ]);
    expect(parsed.skipped).toEqual([]);
  });

  it.each([
    {
      name: 'spring forward: the grid names 02:00, which never existed, and the hours around it keep their offsets',
      rows: ['2013-03-10 01:00:00,1.0', '2013-03-10 02:00:00,', '2013-03-10 03:00:00,3.0'],
      starts: ['2013-03-10T09:00:00Z', '2013-03-10T10:00:00Z'],
      ambiguous: [false, false],
      skipped: [{ line: 3, localTime: '2013-03-10 02:00:00', reason: 'nonexistent-time' }],
    },
    {
      name: 'spring forward with a value in the skipped hour: still no reading',
      rows: ['2014-03-09 02:00:00,4.2'],
      starts: [],
      ambiguous: [],
      skipped: [{ line: 2, localTime: '2014-03-09 02:00:00', reason: 'nonexistent-time' }],
    },
    {
      name: 'fall back: the repeated 1 am appears once, read as the daylight one and flagged',
      rows: ['2013-11-03 00:00:00,1.0', '2013-11-03 01:00:00,2.0', '2013-11-03 02:00:00,3.0'],
      starts: ['2013-11-03T07:00:00Z', '2013-11-03T08:00:00Z', '2013-11-03T10:00:00Z'],
      ambiguous: [false, true, false],
      skipped: [],
    },
    {
      name: 'an empty value is a missing measurement, not 0',
      rows: ['2013-06-01 10:00:00,', '2013-06-01 11:00:00,5.5'],
      starts: ['2013-06-01T18:00:00Z'],
      ambiguous: [false],
      skipped: [{ line: 2, localTime: '2013-06-01 10:00:00', reason: 'no-value' }],
    },
  ])('$name', ({ rows, starts, ambiguous, skipped }) => {
    const parsed = parseCascadeGatewayCsv(csv(...rows), ZONE);
    expect(parsed.readings.map((r) => new Date(r.startMs).toISOString().replace('.000', ''))).toEqual(starts);
    expect(parsed.readings.map((r) => r.ambiguous)).toEqual(ambiguous);
    expect(parsed.readings.every((r) => r.atMs === r.startMs + 3_600_000)).toBe(true);
    expect(parsed.skipped).toEqual(skipped);
  });

  it('accepts a byte-order mark, CRLF line ends and a trailing empty line', () => {
    const parsed = parseCascadeGatewayCsv(`\uFEFF${HEADER}\r\n2013-01-01 00:00:00,0.7\r\n\r\n`, ZONE);
    expect(parsed.readings.map((r) => r.delayMinutes)).toEqual([0.7]);
  });

  it('reads the wall clock in the zone it is given', () => {
    const parsed = parseCascadeGatewayCsv(csv('2013-01-01 00:00:00,1.0'), 'America/New_York');
    expect(parsed.readings[0]?.startMs).toBe(Date.parse('2013-01-01T05:00:00Z'));
  });

  it.each([
    { name: 'an empty file', text: '', line: 1, fix: 'the file is empty' },
    { name: 'another header', text: 'time,delay\n2013-01-01 00:00:00,1', line: 1, fix: 'Avg - Delay' },
    {
      name: 'a bad time',
      text: csv('2013-01-01T00:00:00Z,1.0'),
      line: 2,
      fix: 'write it as 2013-03-10 02:00:00',
    },
    { name: 'an impossible date', text: csv('2013-02-30 00:00:00,1.0'), line: 2, fix: 'not a calendar time' },
    {
      name: 'a negative average',
      text: csv('2013-01-01 00:00:00,1', '2013-01-01 01:00:00,-2'),
      line: 3,
      fix: '>= 0',
    },
    { name: 'a word for a number', text: csv('2013-01-01 00:00:00,closed'), line: 2, fix: 'leave it empty' },
    { name: 'a third field', text: csv('2013-01-01 00:00:00,1.0,x'), line: 2, fix: '3 fields' },
    { name: 'an unclosed quote', text: csv('2013-01-01 00:00:00,"1.0'), line: 2, fix: 'not readable as CSV' },
  ])('refuses $name with its line and the fix', ({ text, line, fix }) => {
    let caught: unknown;
    try {
      parseCascadeGatewayCsv(text, ZONE);
    } catch (error: unknown) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CascadeGatewayFormatError);
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as CascadeGatewayFormatError).line).toBe(line);
    expect((caught as Error).message).toContain(`line ${line}: `);
    expect((caught as Error).message).toContain(fix);
  });
});
