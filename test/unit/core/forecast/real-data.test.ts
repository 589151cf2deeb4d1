/**
 * The forecaster on real history nobody here wrote: four years (2013-2016) of Peace Arch
 * southbound cars from the Cascade Gateway Border Data Warehouse (`../shared/data/real/`), replayed
 * by the backtest exactly as the service would have forecast it, learning from each slot's past
 * only. Held against the figures of the forecaster before learning (the champion of commit
 * 5cf3206 on the same file: `npm run backtest -- --input <file> --format cascade-gateway --port 300402`).
 * Skipped, with a message, where `../shared` is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type BacktestResult,
  rowsFromCascadeGateway,
  runBacktest,
} from '../../../../functions/core/forecast/backtest.ts';

const FILE = fileURLToPath(
  new URL(
    '../../../../../shared/data/real/cascade-gateway__peace-arch-southbound-cars__2013-2016__hourly.csv',
    import.meta.url,
  ),
);
const present = existsSync(FILE);
if (!present) console.warn(`real-data forecast test skipped: ${FILE} is absent (../shared is not here)`);

/** MAE of the champion before learning, on this file, per horizon (minutes). */
const BEFORE: Record<number, number> = { 60: 3.9, 120: 4.8, 180: 5.1, 360: 5.4 };
/** The required gain over it, per horizon. */
const GAIN: Record<number, number> = { 60: 0.15, 120: 0.1, 180: 0.05, 360: 0.02 };

describe.skipIf(!present)('forecasts on four years of real Peace Arch history', () => {
  let result: BacktestResult;

  beforeAll(() => {
    const rows = rowsFromCascadeGateway(readFileSync(FILE, 'utf8'), {
      portId: '300402',
      direction: 'into-us',
      mode: 'passenger',
      lane: 'standard',
    });
    result = runBacktest(rows);
  }, 900_000);

  it.each(Object.keys(BEFORE).map(Number))(
    'beats the forecaster before learning at +%i min by the margin asked',
    (h) => {
      const figures = result.overall.find((f) => f.horizonMinutes === h);
      expect(figures?.champion.mae).not.toBeNull();
      expect(figures?.champion.mae as number).toBeLessThanOrEqual(
        (BEFORE[h] as number) * (1 - (GAIN[h] as number)),
      );
    },
  );

  it('is never worse than persistence by more than 2% up to 45 minutes', () => {
    for (const f of result.overall.filter((f) => f.horizonMinutes <= 45)) {
      expect(f.champion.mae as number, `+${f.horizonMinutes} min`).toBeLessThanOrEqual(
        (f.persistence.mae as number) * 1.02 + 0.05,
      );
    }
  });

  it('covers 75-85% with its 80% band at every horizon, and 72-88% where the forecast is 15 min or more', () => {
    for (const f of result.overall) {
      expect(f.champion.coverage as number, `+${f.horizonMinutes} min`).toBeGreaterThanOrEqual(0.75);
      expect(f.champion.coverage as number, `+${f.horizonMinutes} min`).toBeLessThanOrEqual(0.85);
      const long = (f.champion.coverageByLevel ?? []).filter((l) => l.level === '15-45' || l.level === '45+');
      const n = long.reduce((s, l) => s + l.n, 0);
      const covered = long.reduce((s, l) => s + (l.coverage ?? 0) * l.n, 0);
      expect(n, `+${f.horizonMinutes} min`).toBeGreaterThan(100);
      expect(covered / n, `+${f.horizonMinutes} min, 15 min or more`).toBeGreaterThanOrEqual(0.72);
      expect(covered / n, `+${f.horizonMinutes} min, 15 min or more`).toBeLessThanOrEqual(0.88);
    }
  });

  it('forecasts a day ahead', () => {
    const day = result.overall.find((f) => f.horizonMinutes === 1440);
    expect(day?.champion.n).toBeGreaterThan(30_000);
    expect(day?.champion.mae as number).toBeLessThanOrEqual(day?.profile.mae as number);
  });
});
