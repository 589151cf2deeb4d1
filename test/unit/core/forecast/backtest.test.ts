/**
 * The backtest on four weeks of simulator export (the CSV export_observations writes, from the
 * observations an ingest polling every 5 minutes stores), and its handling of bad input.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPort } from '../../../../functions/core/catalogue/catalogue.ts';
import {
  BacktestInputError,
  type BacktestResult,
  parseObservationsCsv,
  runBacktest,
} from '../../../../functions/core/forecast/backtest.ts';
import type { Observation } from '../../../../functions/core/model.ts';
import { toCsv } from '../../../../functions/mcp/tools/export-observations.ts';
import { observationsSeen } from '../../../../infra/local/simulator/model.ts';

// A Mexican-border port with automated lanes, a Canadian-border CBP port, a CBSA office.
const PORTS = ['250401', '090101', 'cbsa-north-portal'];
const FROM = Date.parse('2026-02-01T00:00:00Z');
const TO = Date.parse('2026-03-01T00:00:00Z');

function simulatorExport(): string {
  const polls: number[] = [];
  for (let t = FROM; t <= TO; t += 5 * 60_000) polls.push(t + 4 * 60_000);
  const rows: Observation[] = [];
  for (const id of PORTS) {
    const port = getPort(id);
    if (!port) throw new Error(id);
    for (const o of observationsSeen(port, polls))
      rows.push({ ...o, maxLanes: null, fetchedAt: o.observedAt });
  }
  // Rows in any order: the export is per port; shuffle them deterministically.
  rows.sort((a, b) => (a.observedAt.slice(-5) + a.lane).localeCompare(b.observedAt.slice(-5) + b.lane));
  return toCsv(rows);
}

describe('backtest on four weeks of simulator export', () => {
  let result: BacktestResult;

  beforeAll(() => {
    result = runBacktest(parseObservationsCsv(simulatorExport()));
  }, 600_000);

  it('covers every port and at least four weeks', () => {
    expect(result.ports).toBe(PORTS.length);
    expect(Date.parse(result.to) - Date.parse(result.from)).toBeGreaterThanOrEqual(
      28 * 86_400_000 - 3_600_000,
    );
    expect(result.overall.every((h) => h.champion.n > 1000)).toBe(true);
  });

  it("the champion's MAE is at most that of persistence and of profile at every horizon to 6 h (0.1 min, as published)", () => {
    for (const h of result.overall) {
      expect(h.champion.mae, `+${h.horizonMinutes} min`).not.toBeNull();
      expect(h.champion.mae as number, `+${h.horizonMinutes} min vs persistence`).toBeLessThanOrEqual(
        h.persistence.mae as number,
      );
      // Beyond 6 h, four weeks hold a day and a half per horizon before its first 50 scores, when
      // the model is published whatever the record: there the champion may lose 0.1 min to the
      // profile (this simulator draws each hour afresh, so nothing beats the profile there).
      const slack = h.horizonMinutes > 360 ? 0.1 : 0;
      expect(h.champion.mae as number, `+${h.horizonMinutes} min vs profile`).toBeLessThanOrEqual(
        (h.profile.mae as number) + slack + 1e-9,
      );
    }
  });

  it.each([180, 360])('the model beats persistence by at least 20%% at +%i min', (horizon) => {
    const h = result.overall.find((f) => f.horizonMinutes === horizon);
    expect((h?.model.mae ?? Number.POSITIVE_INFINITY) / (h?.persistence.mae ?? 0)).toBeLessThanOrEqual(0.8);
  });

  it('the 80% intervals cover between 70% and 90% of the actuals at every horizon', () => {
    for (const h of result.overall) {
      expect(h.champion.coverage, `+${h.horizonMinutes} min`).toBeGreaterThanOrEqual(0.7);
      expect(h.champion.coverage, `+${h.horizonMinutes} min`).toBeLessThanOrEqual(0.9);
    }
  });

  it('reports every lane by horizon', () => {
    expect(result.byLane.length).toBeGreaterThan(PORTS.length);
    for (const lane of result.byLane) expect(lane.horizons.map((h) => h.horizonMinutes)).toHaveLength(27);
  });
});

describe('backtest input', () => {
  const header = 'portId,direction,mode,lane,status,delayMinutes,lanesOpen,maxLanes,observedAt,source';
  const good = '250401,into-us,passenger,standard,open,45,10,24,2026-03-01T10:00:00Z,cbp';

  it('reads extra columns, any column order, quoted fields and rows in any order', () => {
    const rows = parseObservationsCsv(
      [
        'note,observedAt,portId,direction,mode,lane,delayMinutes',
        '"a, ""quoted"" note",2026-03-01T11:00:00Z,250401,into-us,passenger,standard,50',
        'x,2026-03-01T10:00:00Z,250401,into-us,passenger,standard,',
      ].join('\r\n'),
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]?.delayMinutes).toBe(50);
    expect(rows[1]?.delayMinutes).toBeNull();
  });

  it.each([
    ['', /line 1: the file is empty/],
    ['portId,direction,mode,lane\n', /line 1: the header lacks delayMinutes, observedAt/],
    [`${header}\n`, /line 2: the file has a header but no rows/],
    [
      `${header}\n${good}\n250401,into-mexico,passenger,standard,open,45,10,24,2026-03-01T10:00:00Z,cbp`,
      /line 3: direction "into-mexico" is not one of/,
    ],
    [`${header}\n${good.replace('passenger', 'bus')}`, /line 2: mode "bus"/],
    [`${header}\n${good.replace('standard', 'vip')}`, /line 2: lane "vip"/],
    [`${header}\n${good.replace(',45,', ',-3,')}`, /line 2: delayMinutes "-3" is not a number of minutes/],
    [`${header}\n${good.replace(',45,', ',soon,')}`, /line 2: delayMinutes "soon"/],
    [
      `${header}\n${good.replace('2026-03-01T10:00:00Z', '03/01/2026 10:00')}`,
      /line 2: observedAt "03\/01\/2026 10:00" is not an ISO 8601 UTC time/,
    ],
    [`${header}\n250401,into-us,passenger`, /line 2: 3 fields where the header has 10/],
    [`${header}\n${good}\n"unterminated,into-us`, /line 3: a quoted field is never closed/],
  ])('refuses %j with one line naming the row and the fix', (text, message) => {
    expect(() => parseObservationsCsv(text)).toThrow(BacktestInputError);
    expect(() => parseObservationsCsv(text)).toThrow(message);
  });
});

describe('npm run backtest', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'backtest-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['scripts/backtest.ts', ...args], { encoding: 'utf8', timeout: 120_000 });

  it('prints one error line naming the row and exits 1 on a malformed file', async () => {
    const file = join(dir, 'bad.csv');
    await writeFile(
      file,
      'portId,direction,mode,lane,delayMinutes,observedAt\n250401,into-us,passenger,standard,12,yesterday\n',
    );
    const out = run('--input', file);
    expect(out.status).toBe(1);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/bad\.csv: line 2: observedAt "yesterday"/);
  });

  it('exits 2 with the usage without --input', () => {
    const out = run();
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(
      /usage: npm run backtest -- --input FILE \[--format observations\|cascade-gateway\]/,
    );
  });

  it('prints JSON with --json', async () => {
    const file = join(dir, 'small.csv');
    const lines = ['portId,direction,mode,lane,delayMinutes,observedAt'];
    for (let i = 0; i < 12; i++) {
      lines.push(
        `250401,into-us,passenger,standard,${20 + i},${new Date(FROM + i * 3_600_000).toISOString()}`,
      );
    }
    await writeFile(file, `${lines.join('\n')}\n`);
    const out = run('--input', file, '--json');
    expect(out.status).toBe(0);
    const body = JSON.parse(out.stdout) as BacktestResult;
    expect(body.ports).toBe(1);
    // Twelve hours of one lane: no profile hour has two samples, so nothing is forecast or scored.
    expect(body.overall.every((h) => h.champion.n === 0)).toBe(true);
  });
});
