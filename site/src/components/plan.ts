/**
 * A region's plan: for a day (today or tomorrow, port-local) and a window of hours, the expected
 * wait of one lane at every crossing of the region, hour by hour: the forecast where it reaches
 * (up to 24 hours ahead, with its 80% band), else the typical week (ours, else CBP's, labelled).
 * Opened in the evening, it proposes tomorrow morning (06:00-10:00).
 */
import type { Strings } from '../i18n';
import { getJson, siteCurrent } from './client';
import { type LaneForecast, laneForecasts } from './forecast';
import { savedFilters } from './prefs';
import { type TypicalWeek, typicalWeek } from './typical';

interface PlanPort {
  id: string;
  slug: string;
  name: string;
  zone: string;
}
type PlanStrings = Strings & { port: { days: string[] } };

const list = document.getElementById('plan') as HTMLElement;
const form = document.getElementById('plan-form') as HTMLFormElement;
const bestLine = document.getElementById('plan-best') as HTMLElement;
const t = JSON.parse(list.dataset.strings ?? '{}') as PlanStrings;
const T = t.travel;
const ports = JSON.parse(list.dataset.ports ?? '[]') as PlanPort[];
const forecasts = new Map<string, LaneForecast[]>();
const weeks = new Map<string, Promise<TypicalWeek>>();
let now = () => Date.now();

/** Port-local wall clock of an instant: date (YYYY-MM-DD), weekday (0 = Sunday), hour. */
function local(ms: number, zone: string) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
      weekday: 'short',
    })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    day: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday ?? ''),
    hour: Number(parts.hour),
  };
}
const pad = (h: number) => `${String(h).padStart(2, '0')}:00`;

function setDefaults(): void {
  const first = ports[0];
  const here = local(now(), first?.zone ?? 'UTC');
  // In the evening the question is tomorrow morning; earlier, the next few hours of today.
  const evening = here.hour >= 15;
  const day = evening ? '1' : '0';
  const from = evening ? 6 : Math.min(here.hour + 1, 20);
  const to = evening ? 10 : Math.min(from + 4, 24);
  (form.querySelector(`input[name=day][value="${day}"]`) as HTMLInputElement).checked = true;
  (form.elements.namedItem('from') as HTMLSelectElement).value = String(from);
  (form.elements.namedItem('to') as HTMLSelectElement).value = String(to);
  const saved = savedFilters();
  for (const name of ['direction', 'mode', 'lane'] as const) {
    const select = form.elements.namedItem(name) as HTMLSelectElement;
    if (saved[name] && [...select.options].some((o) => o.value === saved[name])) select.value = saved[name];
  }
  const lane = form.elements.namedItem('lane') as HTMLSelectElement;
  if (!saved.lane) lane.value = 'standard';
}

interface HourWait {
  hour: number;
  minutes: number;
  low?: number;
  high?: number;
  source: 'forecast' | 'ours' | 'cbp';
}

async function waitsOf(port: PlanPort, f: Record<string, string>): Promise<HourWait[]> {
  const zone = port.zone;
  const dayMs = now() + Number(f.day) * 86_400_000;
  const target = local(dayMs, zone);
  const from = Number(f.from);
  const to = Math.max(from + 1, Number(f.to));
  const lane = (forecasts.get(port.id) ?? []).find(
    (x) => x.direction === f.direction && x.mode === f.mode && x.lane === f.lane,
  );
  const out = new Map<number, HourWait>();
  for (const p of lane?.points ?? []) {
    const at = Date.parse(p.at);
    if (at < now()) continue;
    const when = local(at, zone);
    if (when.date !== target.date || when.hour < from || when.hour >= to) continue;
    // The first point of each hour (hourly horizons land on the hour).
    if (!out.has(when.hour))
      out.set(when.hour, {
        hour: when.hour,
        minutes: p.delayMinutes,
        low: p.low,
        high: p.high,
        source: 'forecast',
      });
  }
  if (out.size < to - from) {
    let week = weeks.get(port.id);
    if (!week) {
      week = typicalWeek(port.id);
      weeks.set(port.id, week);
    }
    const typical = await week;
    for (let h = from; h < to; h += 1) {
      if (out.has(h)) continue;
      const a = typical.hours.find(
        (x) =>
          x.direction === f.direction &&
          x.mode === f.mode &&
          x.lane === f.lane &&
          x.dayOfWeek === target.day &&
          x.hour === h,
      );
      if (a && typical.source) out.set(h, { hour: h, minutes: a.minutes, source: typical.source });
    }
  }
  return [...out.values()].sort((a, b) => a.hour - b.hour);
}

let rendering = 0;
async function render(): Promise<void> {
  const ticket = ++rendering;
  const f: Record<string, string> = {};
  for (const [k, v] of new FormData(form)) f[k] = String(v);
  const results = await Promise.all(ports.map(async (port) => ({ port, waits: await waitsOf(port, f) })));
  if (ticket !== rendering) return;
  let best: { port: PlanPort; wait: HourWait } | null = null;
  for (const { port, waits } of results) {
    const item = list.querySelector(`li[data-port-id="${port.id}"]`) as HTMLElement;
    const hours = item.querySelector('.plan-hours') as HTMLElement;
    const source = item.querySelector('.plan-source') as HTMLElement;
    const lowest = waits.reduce<HourWait | null>(
      (m, w) => (m === null || w.minutes < m.minutes ? w : m),
      null,
    );
    if (lowest && (!best || lowest.minutes < best.wait.minutes)) best = { port, wait: lowest };
    if (waits.length === 0) {
      const none = document.createElement('li');
      none.className = 'muted';
      none.textContent = T.planNone;
      hours.replaceChildren(none);
      source.textContent = '';
      continue;
    }
    hours.replaceChildren(
      ...waits.map((w) => {
        const li = document.createElement('li');
        li.dataset.hour = String(w.hour);
        li.dataset.source = w.source;
        if (w === lowest) li.className = 'best';
        const band =
          w.low !== undefined && w.high !== undefined ? ` (${Math.round(w.low)}–${Math.round(w.high)})` : '';
        li.textContent = `${pad(w.hour)} ${Math.round(w.minutes)} ${t.labels.min}${band}`;
        return li;
      }),
    );
    const sources = [...new Set(waits.map((w) => w.source))].map((s) =>
      s === 'forecast' ? T.planSourceForecast : s === 'cbp' ? T.planSourceCbp : T.planSourceOurs,
    );
    source.textContent = T.planFrom.replace('{source}', sources.join(', '));
  }
  bestLine.textContent = best
    ? T.planBest
        .replace('{name}', best.port.name)
        .replace('{time}', pad(best.wait.hour))
        .replace('{min}', String(Math.round(best.wait.minutes)))
    : '';
}

async function load(): Promise<void> {
  try {
    // The service's clock: the plan's "today" is the service's, even on a device set wrong.
    now = (await siteCurrent()).now;
  } catch {
    // Offline with nothing kept: the device's clock.
  }
  setDefaults();
  await Promise.all(
    ports.map(async (port) => {
      try {
        const { body } = await getJson<unknown>(`/v1/port-forecast/${encodeURIComponent(port.id)}.json`, {
          keep: true,
        });
        forecasts.set(port.id, laneForecasts(body));
      } catch {
        forecasts.set(port.id, []);
      }
    }),
  );
  await render();
}

form.addEventListener('change', () => {
  render();
});
form.addEventListener('submit', (event) => event.preventDefault());
load();
