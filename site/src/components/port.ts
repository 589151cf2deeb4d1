/**
 * A port page: its lanes now (one row each, fitting a phone), the forecast of one lane for the
 * next 24 hours with the best time to leave today and tomorrow, the last 24 hours, and the typical
 * week (ours, else CBP's, labelled so) for the hours the port is open. The typical week is read
 * only when its section comes near the screen.
 */
import type { Strings } from '../i18n';
import { ageText, el, getJson, label, lanesRow, offlineNote, plural, siteCurrent } from './client';
import { horizonText, type LaneForecast, laneForecasts } from './forecast';
import { savedFilters } from './prefs';
import { type TypicalHour, type TypicalWeek, typicalWeek } from './typical';

interface Obs {
  direction: string;
  mode: string;
  lane: string;
  status: string;
  delayMinutes: number | null;
  observedAt: string;
}
type PortStrings = Strings & { offline: string; zone: string };

const root = document.getElementById('port') as HTMLElement;
const t = JSON.parse(root.dataset.strings ?? '{}') as PortStrings;
const T = t.travel;
const lang = root.dataset.lang ?? 'en';
const id = root.dataset.id ?? '';
const q = encodeURIComponent(id);
const zone = root.dataset.tz ?? 'UTC';
const key = (x: { direction: string; mode: string; lane: string }) => `${x.direction}|${x.mode}|${x.lane}`;
const keyLabel = (k: string) =>
  k
    .split('|')
    .map((p) => label(t, p))
    .join(' · ');
/** The lane a traveller asked for on the home page, else the passenger standard lane. */
const chosen = savedFilters();
const preferredKeys = ['into-us', 'into-canada'].map(
  (d) => `${d}|${chosen.mode || 'passenger'}|${chosen.lane || 'standard'}`,
);
preferredKeys.push('into-us|passenger|standard', 'into-canada|passenger|standard');

async function current(): Promise<void> {
  const status = document.getElementById('lanes-status') as HTMLElement;
  try {
    const fetched = await siteCurrent();
    const { body, now } = fetched;
    offlineNote(t, t.offline, fetched);
    const port = body.ports.find((p) => p.id === id);
    const tbody = document.createElement('tbody');
    for (const lane of port?.current.lanes ?? [])
      tbody.append(lanesRow(t, lane, now(), undefined, fetched.offline));
    (document.querySelector('#lanes tbody') as HTMLElement).replaceWith(tbody);
    status.textContent = port ? '' : t.labels.none;
    status.hidden = Boolean(port);
    (document.getElementById('closed') as HTMLElement).hidden = port?.current.status !== 'closed';
    (document.getElementById('notice') as HTMLElement).textContent = port?.current.notice ?? t.port.noNotice;
  } catch (error) {
    status.textContent = t.labels.error.replace('{status}', (error as Error).message);
  }
}

/** A chart as wide as its box, so 13 px in the drawing is 13 px on the screen. */
const widthOf = (box: HTMLElement) => Math.max(280, Math.min(640, Math.round(box.clientWidth || 360)));
const FONT = 13;
const clock = (iso: string | number) =>
  new Intl.DateTimeFormat(lang, { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
const localDay = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(ms));

const COLORS = ['#0b4f8a', '#b3261e', '#1d5e20', '#7a4d00', '#5b2a86'];
async function chart(): Promise<void> {
  const box = document.getElementById('chart') as HTMLElement;
  try {
    const { body } = await getJson<{ from: string; to: string; observations: Obs[] }>(
      `/api/v1/wait-observations?port_id=${q}&hours=24`,
    );
    const series = new Map<string, { x: number; y: number }[]>();
    for (const o of body.observations) {
      if (o.status !== 'open' || o.delayMinutes === null) continue;
      const list = series.get(key(o)) ?? [];
      list.push({ x: Date.parse(o.observedAt), y: o.delayMinutes });
      series.set(key(o), list);
    }
    if (series.size === 0) {
      box.replaceChildren(el('p', {}, t.port.chartNone));
      return;
    }
    const from = Date.parse(body.from);
    const to = Date.parse(body.to);
    const all = [...series.values()].flat();
    const maxY = Math.max(10, ...all.map((p) => p.y));
    const W = widthOf(box);
    const H = 170;
    const P = 40;
    const sx = (x: number) => P + ((x - from) / Math.max(1, to - from)) * (W - P - 4);
    const sy = (y: number) => H - 22 - (y / maxY) * (H - 22 - FONT - 4);
    const keys = [...series.keys()].slice(0, COLORS.length);
    const lines = keys.map((k, i) => {
      const pts = (series.get(k) ?? []).sort((a, b) => a.x - b.x);
      const d = pts.map((p, j) => `${j ? 'L' : 'M'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join('');
      const first = pts[0];
      const dots =
        pts.length === 1 && first
          ? `<circle cx="${sx(first.x)}" cy="${sy(first.y)}" r="3" fill="${COLORS[i]}"/>`
          : '';
      return `<path d="${d}" fill="none" stroke="${COLORS[i]}" stroke-width="2"/>${dots}`;
    });
    const ticks = [0, 0.5, 1]
      .map((f) => {
        const x = from + f * (to - from);
        return `<text x="${sx(x).toFixed(1)}" y="${H - 4}" font-size="${FONT}" text-anchor="${f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}">${clock(x)}</text>`;
      })
      .join('');
    const summary = `${t.port.chartLabel}${t.travel.colon}${keys
      .map((k) => {
        const ys = (series.get(k) ?? []).map((p) => p.y);
        return `${keyLabel(k)} ${Math.min(...ys)}–${Math.max(...ys)} ${t.labels.min}`;
      })
      .join('; ')}`;
    box.innerHTML = `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${summary.replace(/"/g, '')}"><line x1="${P}" y1="${H - 22}" x2="${W}" y2="${H - 22}" stroke="#767676"/><text x="0" y="${FONT}" font-size="${FONT}">${maxY} ${t.labels.min}</text><text x="0" y="${H - 22}" font-size="${FONT}">0</text>${lines.join('')}${ticks}</svg>`;
    const legend = el('ul', { class: 'legend' });
    keys.forEach((k, i) => {
      const li = el('li');
      const swatch = el('span', { 'aria-hidden': 'true' }, '■ ');
      swatch.style.color = COLORS[i] ?? '#000';
      li.append(swatch, keyLabel(k));
      legend.append(li);
    });
    box.append(legend);
  } catch (error) {
    box.replaceChildren(el('p', {}, t.labels.error.replace('{status}', (error as Error).message)));
  }
}

// The typical week: a heatmap of the open hours (rows) by day (columns), and the best hours.
let week: TypicalWeek = { source: null, hours: [] };
const select = document.getElementById('series') as HTMLSelectElement;
const detail = (a: TypicalHour) =>
  a.samples !== undefined
    ? ` (${plural(lang, T.samples, a.samples)}${typeof a.median === 'number' ? `, ${t.port.median} ${a.median} ${t.labels.min}` : ''})`
    : typeof a.min === 'number' && typeof a.max === 'number'
      ? ` (${a.min}–${a.max} ${t.labels.min})`
      : '';
function heatmap(): void {
  const chosenHours = week.hours.filter((a) => key(a) === select.value);
  const max = Math.max(1, ...chosenHours.map((a) => a.minutes));
  for (const td of document.querySelectorAll<HTMLElement>('#heatmap td[data-day]')) {
    const d = Number(td.dataset.day);
    const h = Number(td.dataset.hour);
    const a = chosenHours.find((x) => x.dayOfWeek === d && x.hour === h);
    const day = t.port.days[d];
    if (!a) {
      td.textContent = '';
      td.style.background = '';
      td.setAttribute('aria-label', `${day} ${h}:00${t.travel.colon}${t.port.noData}`);
      continue;
    }
    const m = Math.round(a.minutes);
    const share = a.minutes / max;
    td.textContent = String(m);
    td.style.background = `hsl(${210 - share * 200} 70% ${92 - share * 22}%)`;
    td.setAttribute('aria-label', `${day} ${h}:00${t.travel.colon}${m} ${t.labels.min}${detail(a)}`);
    td.title = td.getAttribute('aria-label') ?? '';
  }
  const open = new Set((root.dataset.open ?? '').split(',').map(Number));
  const best = el('ol', { id: 'best' });
  for (const a of chosenHours
    .filter((x) => open.has(x.hour))
    .sort((x, y) => x.minutes - y.minutes)
    .slice(0, 5)) {
    best.append(
      el(
        'li',
        {},
        `${t.port.days[a.dayOfWeek]} ${a.hour}:00–${a.hour + 1}:00${t.travel.colon}${Math.round(a.minutes)} ${t.labels.min}${detail(a)}`,
      ),
    );
  }
  if (!best.children.length) best.append(el('li', {}, t.port.bestNone));
  (document.getElementById('best') as HTMLElement).replaceWith(best);
}

async function loadTypical(): Promise<void> {
  week = await typicalWeek(id);
  const keys = [...new Set(week.hours.map(key))];
  select.replaceChildren(...keys.map((k) => el('option', { value: k }, keyLabel(k))));
  select.value = preferredKeys.find((k) => keys.includes(k)) ?? keys[0] ?? '';
  select.hidden = keys.length === 0;
  (document.querySelector('label[for=series]') as HTMLElement).hidden = keys.length === 0;
  const source = document.getElementById('heatmap-source') as HTMLElement;
  if (week.source === 'cbp') source.textContent = `${T.typicalCbp} ${t.port.heatmapNote}`;
  heatmap();
}

// Forecasts: the next 24 hours of one lane as a line in its 80% band, the best time to leave
// today and tomorrow (port-local), what the band means and how often it held, and the track record.
const forecastSelect = document.getElementById('forecast-lane') as HTMLSelectElement;
let forecasts: LaneForecast[] = [];
let forecastNow = () => Date.now();
const one = (x: number | null | undefined) =>
  typeof x === 'number' ? (Math.round(x * 10) / 10).toString() : '—';
const methodText = (method: string | null) =>
  (T.methods as Record<string, string>)[method ?? ''] ?? T.methods.model;
/** The reasons in the page's language, from the codes the API gives beside its English text. */
export function reasonText(f: LaneForecast): string {
  const reasons = T.reasons as Record<string, string>;
  const codes = f.reasonCodes.length ? f.reasonCodes : ['other'];
  return [...new Set(codes.map((c) => reasons[c] ?? reasons.other))].join('; ');
}

type Series = 'model' | 'persistence' | 'profile' | 'published';
function trackRecord(f: LaneForecast): string {
  const method = (
    f.skill.some((h) => h.published) ? 'published' : f.method && f.method !== 'mixed' ? f.method : 'model'
  ) as Series;
  const scored = f.skill.filter((h) => (h[method]?.n ?? 0) > 0);
  const hour = scored.find((h) => h.horizonMinutes === 60);
  if (hour?.[method]) {
    return t.port.track
      .replace('{n}', String(hour[method].n))
      .replace('{mae}', one(hour[method].mae))
      .replace('{base}', one(hour.persistence?.mae));
  }
  const best = scored.sort((a, b) => (b[method]?.n ?? 0) - (a[method]?.n ?? 0))[0];
  if (!best?.[method]) return t.port.trackNone;
  return t.port.trackOther
    .replace('{n}', String(best[method].n))
    .replace('{mae}', one(best[method].mae))
    .replace('{h}', horizonText(best.horizonMinutes));
}

/** How often the published band held: the coverage of what was published, weighed by n. */
function held(f: LaneForecast): number | null {
  let n = 0;
  let covered = 0;
  for (const h of f.skill) {
    const s = h.published ?? h.model;
    if (!s || s.coverage === null || s.n === 0) continue;
    n += s.n;
    covered += s.coverage * s.n;
  }
  return n >= 20 ? Math.round((covered / n) * 100) : null;
}

function bestOf(points: LaneForecast['points'], day: string, nowMs: number) {
  return points
    .filter((p) => Date.parse(p.at) >= nowMs && localDay(Date.parse(p.at)) === day)
    .sort((a, b) => a.delayMinutes - b.delayMinutes || Date.parse(a.at) - Date.parse(b.at))[0];
}

function drawForecast(): void {
  const box = document.getElementById('forecast-chart') as HTMLElement;
  const f = forecasts.find((x) => key(x) === forecastSelect.value);
  const issued = document.getElementById('forecast-issued') as HTMLElement;
  const bestToday = document.getElementById('forecast-best') as HTMLElement;
  const bestTomorrow = document.getElementById('forecast-best-tomorrow') as HTMLElement;
  const band = document.getElementById('forecast-band') as HTMLElement;
  const track = document.getElementById('forecast-track') as HTMLElement;
  if (!f || f.points.length === 0) {
    box.replaceChildren(
      el(
        'p',
        { id: 'forecast-none' },
        f ? t.port.forecastWhy.replace('{reason}', reasonText(f)) : t.port.forecastNone,
      ),
    );
    for (const p of [issued, bestToday, bestTomorrow, band]) p.textContent = '';
    track.textContent = f ? trackRecord(f) : '';
    return;
  }
  const pts = [...f.points].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const firstPoint = pts[0] as (typeof pts)[number];
  const lastPoint = pts[pts.length - 1] as (typeof pts)[number];
  const x0 = Date.parse(f.issuedAt ?? firstPoint.at);
  const x1 = Date.parse(lastPoint.at);
  const maxY = Math.ceil(Math.max(10, ...pts.map((p) => p.high)));
  const W = widthOf(box);
  const H = 190;
  const P = 40;
  const base = H - 22;
  const sx = (iso: string | number) =>
    (
      P +
      (((typeof iso === 'number' ? iso : Date.parse(iso)) - x0) / Math.max(1, x1 - x0)) * (W - P - 6)
    ).toFixed(1);
  const sy = (y: number) => (base - (y / maxY) * (base - FONT - 6)).toFixed(1);
  const bandPoints = `${pts.map((p) => `${sx(p.at)},${sy(p.high)}`).join(' ')} ${[...pts]
    .reverse()
    .map((p) => `${sx(p.at)},${sy(p.low)}`)
    .join(' ')}`;
  const line = pts.map((p, i) => `${i ? 'L' : 'M'}${sx(p.at)},${sy(p.delayMinutes)}`).join('');
  // Time labels at least 70 px apart, so they never run into each other.
  let lastTick = Number.NEGATIVE_INFINITY;
  const ticks = pts
    .filter((p) => {
      const x = Number(sx(p.at));
      if (x - lastTick < 70 || x > W - 30) return false;
      lastTick = x;
      return true;
    })
    .map(
      (p) =>
        `<text x="${sx(p.at)}" y="${H - 4}" font-size="${FONT}" text-anchor="middle">${clock(p.at)}</text>`,
    )
    .join('');
  // Midnight, port-local: where tomorrow starts.
  const nowMs = forecastNow();
  const tomorrow = pts.find((p) => localDay(Date.parse(p.at)) !== localDay(nowMs));
  const midnight = tomorrow
    ? `<line x1="${sx(tomorrow.at)}" y1="${FONT + 4}" x2="${sx(tomorrow.at)}" y2="${base}" stroke="#767676" stroke-dasharray="3 3"/><text x="${Number(sx(tomorrow.at)) + 4}" y="${FONT * 2 + 4}" font-size="${FONT}">${T.tomorrow}</text>`
    : '';
  const summary = `${t.port.forecastLabel}${t.travel.colon}${pts.map((p) => `${clock(p.at)} ${p.delayMinutes} (${p.low}–${p.high})`).join(', ')} ${t.labels.min}`;
  box.innerHTML = `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${summary.replace(/"/g, '')}"><polygon class="band" points="${bandPoints}"/><path class="expected" d="${line}"/><line x1="${P}" y1="${base}" x2="${W}" y2="${base}" stroke="#767676"/><text x="0" y="${FONT}" font-size="${FONT}">${maxY} ${t.labels.min}</text><text x="0" y="${base}" font-size="${FONT}">0</text>${midnight}${ticks}</svg><p class="small"><span class="key-line" aria-hidden="true">━</span> ${t.port.expected} · <span class="key-band" aria-hidden="true">■</span> ${t.port.band}</p>`;
  issued.textContent = T.issued
    .replace('{age}', ageText(t, f.issuedAt, nowMs))
    .replace('{method}', methodText(f.method));
  const sentence = (day: string, dayWord: string) => {
    const pick = bestOf(pts, day, nowMs);
    return pick
      ? T.bestLeaveDay
          .replace('{day}', dayWord)
          .replace('{time}', `${clock(pick.at)} (${t.zone})`)
          .replace('{min}', String(Math.round(pick.delayMinutes)))
          .replace('{low}', String(Math.round(pick.low)))
          .replace('{high}', String(Math.round(pick.high)))
      : T.bestLeaveNoneDay.replace('{day}', dayWord);
  };
  bestToday.textContent = sentence(localDay(nowMs), T.dayToday);
  bestTomorrow.textContent = tomorrow ? sentence(localDay(Date.parse(tomorrow.at)), T.dayTomorrow) : '';
  const pct = held(f);
  band.textContent = `${T.band}${pct === null ? '' : ` ${T.held.replace('{pct}', new Intl.NumberFormat(lang).format(pct))}`}`;
  track.textContent = trackRecord(f);
}

async function loadForecast(): Promise<void> {
  try {
    const fetched = await getJson<unknown>(`/v1/port-forecast/${encodeURIComponent(id)}.json`, {
      keep: true,
    });
    forecasts = laneForecasts(fetched.body);
    forecastNow = fetched.now;
  } catch {
    forecasts = [];
  }
  const keys = forecasts.map(key);
  const was = forecastSelect.value;
  forecastSelect.replaceChildren(...forecasts.map((f) => el('option', { value: key(f) }, keyLabel(key(f)))));
  const withPoints = (k: string) => (forecasts.find((f) => key(f) === k)?.points.length ?? 0) > 0;
  forecastSelect.value = keys.includes(was)
    ? was
    : (preferredKeys.find((k) => keys.includes(k) && withPoints(k)) ??
      keys.find(withPoints) ??
      preferredKeys.find((k) => keys.includes(k)) ??
      keys[0] ??
      '');
  forecastSelect.hidden = keys.length === 0;
  (document.querySelector('label[for=forecast-lane]') as HTMLElement).hidden = keys.length === 0;
  drawForecast();
}

forecastSelect.addEventListener('change', drawForecast);
select.addEventListener('change', heatmap);
loadForecast();
current();
chart();
// The typical week is the heaviest document: read it when its section comes near the screen.
const heat = document.getElementById('heatmap-title') as HTMLElement;
if ('IntersectionObserver' in window) {
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      loadTypical();
    },
    { rootMargin: '600px 0px' },
  );
  observer.observe(heat);
} else loadTypical();
setInterval(current, 60_000);
