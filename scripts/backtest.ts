/**
 * `npm run backtest -- --input observations.csv [--json]`: replays an observations export (the CSV
 * `export_observations` writes; extra columns ignored, rows in any order) as the service would have
 * forecast it, and prints per horizon, overall and per lane, the MAE of the champion, the model,
 * persistence and profile, the champion's bias and interval coverage, and n.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  BacktestInputError,
  formatBacktest,
  parseObservationsCsv,
  runBacktest,
} from '../functions/core/forecast/backtest.ts';

const USAGE = 'usage: npm run backtest -- --input observations.csv [--json]';

function fail(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

let values: { input?: string | undefined; json?: boolean | undefined };
try {
  ({ values } = parseArgs({
    options: { input: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: false,
  }));
} catch (error: unknown) {
  fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, 2);
}
if (!values.input) fail(`--input is required: the CSV file to replay\n${USAGE}`, 2);

let text: string;
try {
  text = await readFile(values.input, 'utf8');
} catch (error: unknown) {
  const code = (error as { code?: string }).code;
  fail(`cannot read ${values.input}${code ? ` (${code})` : ''}: name an existing CSV file with --input`, 1);
}
try {
  const result = runBacktest(parseObservationsCsv(text));
  console.log(values.json ? JSON.stringify(result, null, 2) : formatBacktest(result));
} catch (error: unknown) {
  if (error instanceof BacktestInputError) fail(`${values.input}: ${error.message}`, 1);
  throw error;
}
