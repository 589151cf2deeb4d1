/**
 * `npm run bench -- site [runs] [/path ...]`: Lighthouse 12 on the site as a phone sees it (its
 * default mobile profile: a mid-range phone, simulated slow 4G and 4x CPU slowdown) in Debian's
 * Chromium, served by the local runtime fed by the simulator. Each page is measured `runs` times
 * (default 3), each in a fresh Chromium, and the median of each figure is printed, with the
 * targets of the site: performance >= 90, total blocking time <= 300 ms, layout shift <= 0.05,
 * accessibility 100. Pages default to the home, a port page, the map and a plan page, in English,
 * Spanish and French. On 2 shared cores the blocking time varies from run to run: take the median.
 */
import { existsSync } from 'node:fs';
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { buildSiteIfStale } from '../site-build.ts';
import { startBenchService } from './_local.ts';
import { median } from './_stats.ts';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  process.exit(2);
}
const args = process.argv.slice(2);
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
const named = args.filter((a) => a.startsWith('/'));
const pages = named.length
  ? named
  : ['', '/es', '/fr'].flatMap((l) => [
      `${l}/`,
      `${l}/ports/san-ysidro/`,
      `${l}/map/`,
      `${l}/plan/san-diego-tijuana/`,
    ]);
const TARGETS = { performance: 90, tbt: 300, cls: 0.05, accessibility: 100 };

buildSiteIfStale((line) => console.log(line));
const clock = { now: () => Date.now() };
const bench = await startBenchService('site', clock, { EDGE_RATE_LIMIT_PER_MINUTE: '100000' });
let failed = 0;
try {
  await bench.service.ingestNow();
  await bench.service.forecastNow();
  console.log(`Lighthouse 12 mobile, median of ${runs} runs per page (${new Date().toISOString()})`);
  console.log('page                              perf   TBT ms   CLS     LCP ms   a11y');
  for (const path of pages) {
    const figures = {
      performance: [] as number[],
      accessibility: [] as number[],
      tbt: [] as number[],
      cls: [] as number[],
      lcp: [] as number[],
    };
    for (let i = 0; i < runs; i += 1) {
      const chrome = await launch({
        chromePath: CHROMIUM,
        chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      });
      try {
        const result = await lighthouse(`${bench.service.url}${path}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility'],
        });
        const lhr = result?.lhr;
        if (!lhr) throw new Error(`Lighthouse gave no result for ${path}`);
        figures.performance.push(Math.round((lhr.categories.performance?.score ?? 0) * 100));
        figures.accessibility.push(Math.round((lhr.categories.accessibility?.score ?? 0) * 100));
        figures.tbt.push(lhr.audits['total-blocking-time']?.numericValue ?? Number.NaN);
        figures.cls.push(lhr.audits['cumulative-layout-shift']?.numericValue ?? Number.NaN);
        figures.lcp.push(lhr.audits['largest-contentful-paint']?.numericValue ?? Number.NaN);
      } finally {
        chrome.kill();
      }
    }
    const perf = median(figures.performance);
    const tbt = median(figures.tbt);
    const cls = median(figures.cls);
    const a11y = median(figures.accessibility);
    const ok =
      perf >= TARGETS.performance &&
      tbt <= TARGETS.tbt &&
      cls <= TARGETS.cls &&
      a11y >= TARGETS.accessibility;
    if (!ok) failed += 1;
    console.log(
      `${path.padEnd(32)} ${String(perf).padStart(5)} ${String(Math.round(tbt)).padStart(8)} ${cls.toFixed(3).padStart(7)} ${String(Math.round(median(figures.lcp))).padStart(8)} ${String(a11y).padStart(6)}  ${ok ? 'ok' : 'MISSES A TARGET'}  (perf ${figures.performance.join('/')}, TBT ${figures.tbt.map(Math.round).join('/')})`,
    );
  }
  console.log(failed === 0 ? 'every page meets the targets' : `${failed} page(s) miss a target`);
} finally {
  await bench.stop();
}
process.exit(failed === 0 ? 0 : 1);
