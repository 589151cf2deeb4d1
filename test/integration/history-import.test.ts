/**
 * `npm run import` on the embedded stores: the shared real Cascade Gateway file (Peace Arch,
 * southbound cars, 2013-2016), whose averages must equal an independent computation from the file;
 * a second import that changes nothing; a malformed file refused by the command with nothing
 * changed; and an export of one service imported into a second one, giving the same averages.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAnotherWriterOf } from '../../functions/adapters/dynamo/lease.ts';
import { importReadings } from '../../functions/core/history/import.ts';
import { readCascadeGatewayCsv, readExportCsv } from '../../functions/core/history/import-files.ts';
import type { HourlyAverage, Observation } from '../../functions/core/model.ts';
import { DOCUMENT_KEYS } from '../../functions/core/views/view-paths.ts';
import { toCsv } from '../../functions/mcp/tools/export-observations.ts';
import { publishEndpoints, unpublishEndpoints } from '../../infra/local/dynamo.ts';
import { type EmbeddedStores, startEmbeddedStores } from '../../infra/local/embedded-stores.ts';
import { TABLES } from '../../infra/manifest.ts';
import { runScript, type ScriptRun } from './cli.ts';
import { startStack, type TestStack } from './stack.ts';

const REAL = fileURLToPath(
  new URL(
    '../../../shared/data/real/cascade-gateway__peace-arch-southbound-cars__2013-2016__hourly.csv',
    import.meta.url,
  ),
);
const realPresent = existsSync(REAL);
const SCRIPT = fileURLToPath(new URL('../../scripts/import.ts', import.meta.url));
const LANE = { portId: '300402', direction: 'into-us', mode: 'passenger', lane: 'standard' } as const;
const NOW = Date.parse('2026-11-27T12:00:00Z');
const clock = { now: () => NOW };

function runImport(dataDir: string, ...args: string[]): Promise<ScriptRun> {
  return runScript(SCRIPT, args, { DATA_DIR: dataDir });
}

/**
 * The independent computation: straight from the file's text, the mean and count of the non-empty
 * values per weekday and hour of the wall-clock time it prints (Pacific, the port's own time).
 */
function fromFile(text: string): Map<string, { mean: number; samples: number }> {
  const sums = new Map<string, { sum: number; samples: number }>();
  for (const line of text.split('\n').slice(1)) {
    const [time = '', value = ''] = line.trim().split(',');
    if (value === '') continue;
    const dayOfWeek = new Date(`${time.slice(0, 10)}T00:00:00Z`).getUTCDay();
    const key = `${dayOfWeek}#${Number(time.slice(11, 13))}`;
    const entry = sums.get(key) ?? { sum: 0, samples: 0 };
    entry.sum += Number(value);
    entry.samples += 1;
    sums.set(key, entry);
  }
  return new Map([...sums].map(([key, { sum, samples }]) => [key, { mean: sum / samples, samples }]));
}

describe.skipIf(!realPresent)(
  `importing the real Cascade Gateway file (${realPresent ? REAL : 'absent: ../shared/data/real is missing, skipped'})`,
  () => {
    let dataDir: string;
    let embedded: EmbeddedStores;
    let text: string;
    /** The shared file imported into the embedded stores, under the ingest's lease as the command does. */
    const importFile = () => {
      const { readings, skipped } = readCascadeGatewayCsv(text, LANE);
      return importReadings(
        {
          ...embedded.stores,
          clock,
          exclusive: asAnotherWriterOf(embedded.stores.dynamo, TABLES.health.name, 'import', 60_000),
        },
        readings,
        skipped,
      );
    };
    const averagesDocument = async () =>
      (await embedded.stores.documents.get(DOCUMENT_KEYS.averages('300402')))?.body;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'border-waits-import-'));
      embedded = await startEmbeddedStores(dataDir, clock);
      // The command attaches to these stores, as to a running npm start.
      await publishEndpoints(dataDir, embedded.endpoints);
      text = readFileSync(REAL, 'utf8');
    }, 60_000);
    afterAll(async () => {
      await unpublishEndpoints(dataDir);
      await embedded?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('gives the mean and sample count of every port-local weekday and hour, as computed from the file alone', async () => {
      const summary = await importFile();
      expect(summary).toMatchObject({
        read: 35_064,
        written: 34_458,
        alreadyThere: 0,
        skipped: 606,
        ports: ['300402'],
      });
      const expected = fromFile(text);
      const averages = await embedded.stores.rollups.averages('300402');
      expect(averages).toHaveLength(168);
      expect(expected.size).toBe(168);
      for (const a of averages) {
        const want = expected.get(`${a.dayOfWeek}#${a.hour}`);
        expect(a).toMatchObject({ direction: 'into-us', mode: 'passenger', lane: 'standard' });
        expect(a.samples, `${a.dayOfWeek} ${a.hour}`).toBe(want?.samples);
        // Published to 0.1 minute: the stored mean is the file's mean, rounded.
        expect(Math.abs(a.averageDelayMinutes - (want?.mean ?? Number.NaN))).toBeLessThanOrEqual(0.05 + 1e-9);
      }
      // Republished at once: the CDN document is the stored averages (their public fields).
      expect(JSON.parse((await averagesDocument()) ?? '[]')).toEqual(
        averages.map(({ recent: _, ...average }) => average),
      );
    }, 180_000);

    it('changes nothing on a second import of the same file', async () => {
      const before = await averagesDocument();
      const summary = await importFile();
      expect(summary).toMatchObject({ written: 0, alreadyThere: 34_458, skipped: 606, ports: [] });
      expect(await averagesDocument()).toBe(before);
    }, 180_000);

    it('refuses a malformed file with one line naming the line and the fix, exit 1, and changes nothing', async () => {
      const before = await averagesDocument();
      const bad = join(dataDir, 'bad.csv');
      // Good rows first: the whole file is checked before anything is written.
      await writeFile(bad, `${text.split('\n').slice(0, 500).join('\n')}\n2017-01-01 00:00:00,12,3\n`);
      const result = await runImport(
        dataDir,
        '--input',
        bad,
        '--format',
        'cascade-gateway',
        '--port',
        '300402',
        '--direction',
        'into-us',
        '--mode',
        'passenger',
        '--lane',
        'standard',
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        `${bad}: line 501: 3 fields where the format has 2 (time, average); fix or drop the row`,
      ]);
      expect(result.stdout).toBe('');
      expect(await averagesDocument()).toBe(before);
    }, 60_000);
  },
);

describe('an export of one service imported into a second one', () => {
  const AT = Date.parse('2026-11-20T06:05:00Z');
  const PORTS = ['250401', '300401', 'cbsa-north-portal'];
  let first: TestStack;
  let second: TestStack;

  beforeAll(async () => {
    first = await startStack({ atMs: AT, ports: PORTS });
    second = await startStack({ atMs: AT, ports: PORTS });
    // Two days of hourly ingests on the first service.
    for (let hour = 0; hour < 48; hour++) {
      first.clock.set(AT + hour * 3_600_000);
      await first.service.ingestNow();
    }
    second.clock.set(first.clock.now());
  }, 300_000);
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it('gives the same averages, and imports nothing the second time', async () => {
    const rows: Observation[] = [];
    for (const port of PORTS) {
      let path: string | null = `/api/v1/wait-observations?port_id=${port}&hours=336`;
      while (path) {
        const page: { body: { next: string | null; observations: Observation[] } } = await first.json(path);
        const { body } = page;
        rows.push(...body.observations.map((o) => ({ ...o, portId: port })));
        path = body.next;
      }
    }
    expect(rows.length).toBeGreaterThan(500);
    const file = join(second.service.dataDir, 'export.csv');
    await writeFile(file, toCsv(rows));
    const once = await runImport(second.service.dataDir, '--input', file);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout).toMatch(
      new RegExp(
        `^import: ${rows.length.toLocaleString('en-US')} rows read, ${rows.length.toLocaleString('en-US')} written, 0 already there`,
      ),
    );
    const averages = async (stack: TestStack, port: string) =>
      (await stack.json<HourlyAverage[]>(`/api/v1/port-hourly-averages?port_id=${port}`)).body;
    for (const port of PORTS) {
      const mine = await averages(first, port);
      expect(mine.length, port).toBeGreaterThan(0);
      expect(await averages(second, port), port).toEqual(mine);
    }
    const twice = await runImport(second.service.dataDir, '--input', file);
    expect(twice.stdout).toMatch(/ 0 written, /);
    expect(readExportCsv(toCsv(rows), NOW)).toHaveLength(rows.length);
  }, 300_000);
});
