/**
 * `npm run backtest -- --input FILE [--format observations|cascade-gateway] [--port ID --direction D
 * --mode M --lane L] [--forecasts OUT.csv] [--json]`: replays a record as the service would have
 * forecast it, and prints per horizon, overall and per lane, the MAE of the champion, the model,
 * persistence and profile, the champion's bias, its interval coverage overall and by level, and n.
 *
 * - `observations` (the default): the CSV `export_observations` writes (extra columns ignored,
 *   rows in any order).
 * - `cascade-gateway`: a Cascade Gateway Border Data Warehouse export (hourly averages of one
 *   series), read as the lane named by `--port`, `--direction`, `--mode` and `--lane`.
 * - `--forecasts OUT.csv` writes every scored published forecast, one per line, with a header.
 */
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  BacktestInputError,
  formatBacktest,
  parseObservationsCsv,
  rowsFromCascadeGateway,
  runBacktest,
  SCORED_FORECAST_COLUMNS,
  type ScoredForecast,
  scoredForecastLine,
} from '../functions/core/forecast/backtest.ts';
import { CascadeGatewayFormatError } from '../functions/core/history/cascade-gateway.ts';
import { DIRECTIONS, LANES, MODES } from '../functions/core/model.ts';

const USAGE =
  'usage: npm run backtest -- --input FILE [--format observations|cascade-gateway] [--port ID --direction D --mode M --lane L] [--forecasts OUT.csv] [--json]';

function fail(message: string, code: number): never {
  console.error(message);
  process.exit(code);
}

const options = {
  input: { type: 'string' },
  format: { type: 'string', default: 'observations' },
  port: { type: 'string' },
  direction: { type: 'string', default: 'into-us' },
  mode: { type: 'string', default: 'passenger' },
  lane: { type: 'string', default: 'standard' },
  forecasts: { type: 'string' },
  json: { type: 'boolean' },
} as const;
let values: ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];
try {
  ({ values } = parseArgs({ options, allowPositionals: false }));
} catch (error: unknown) {
  fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, 2);
}
if (!values.input) fail(`--input is required: the CSV file to replay\n${USAGE}`, 2);
if (values.format !== 'observations' && values.format !== 'cascade-gateway') {
  fail(`--format ${values.format} is not known: use observations or cascade-gateway\n${USAGE}`, 2);
}
const oneOf = (name: string, value: string, allowed: readonly string[]) => {
  if (!allowed.includes(value)) fail(`--${name} ${value} is not one of ${allowed.join(', ')}\n${USAGE}`, 2);
};
if (values.format === 'cascade-gateway') {
  if (!values.port)
    fail(`--format cascade-gateway needs --port: the port the series measures (e.g. 300402)\n${USAGE}`, 2);
  oneOf('direction', values.direction, DIRECTIONS);
  oneOf('mode', values.mode, MODES);
  oneOf('lane', values.lane, LANES);
}

let text: string;
try {
  text = await readFile(values.input, 'utf8');
} catch (error: unknown) {
  const code = (error as { code?: string }).code;
  fail(`cannot read ${values.input}${code ? ` (${code})` : ''}: name an existing CSV file with --input`, 1);
}
const out = values.forecasts ? createWriteStream(values.forecasts) : null;
out?.write(`${SCORED_FORECAST_COLUMNS.join(',')}\n`);
let buffered: string[] = [];
const onForecast = out
  ? (forecast: ScoredForecast) => {
      buffered.push(scoredForecastLine(forecast));
      if (buffered.length >= 4096) {
        out.write(`${buffered.join('\n')}\n`);
        buffered = [];
      }
    }
  : undefined;
try {
  const rows =
    values.format === 'cascade-gateway'
      ? rowsFromCascadeGateway(text, {
          portId: values.port as string,
          direction: values.direction as (typeof DIRECTIONS)[number],
          mode: values.mode as (typeof MODES)[number],
          lane: values.lane as (typeof LANES)[number],
        })
      : parseObservationsCsv(text);
  const result = runBacktest(rows, onForecast ? { onForecast } : {});
  console.log(values.json ? JSON.stringify(result, null, 2) : formatBacktest(result));
} catch (error: unknown) {
  if (error instanceof BacktestInputError || error instanceof CascadeGatewayFormatError) {
    fail(`${values.input}: ${error.message}`, 1);
  }
  throw error;
}
if (out) {
  if (buffered.length > 0) out.write(`${buffered.join('\n')}\n`);
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}
