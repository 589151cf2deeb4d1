/**
 * A port page: its lanes now (one row each, fitting a phone) and the forecast of one lane for the
 * next 24 hours with the best time to leave today and tomorrow. What lies below (the last 24 hours,
 * the typical week) is loaded by port-below.ts when it nears the screen.
 */
import { ageText, el, getJson, lanesRow, offlineNote, siteCurrent } from './client';
import { horizonText, type LaneForecast, laneForecasts } from './forecast';
import { clock, FONT, id, key, keyLabel, lang, localDay, preferredKeys, T, t, widthOf } from './port-shared';

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
    (document.getElementById('closed') as HTMLElement).hidden = port?.current.status !== 'closed';
    (document.getElementById('notice') as HTMLElement).textContent = port?.current.notice ?? t.port.noNotice;
  } catch (error) {
    status.textContent = t.labels.error.replace('{status}', (error as Error).message);
  }
}

/** A chart as wide as its box, so 13 px in the drawing is 13 px on the screen. */
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
loadForecast();
current();
const below = document.getElementById('chart') as HTMLElement;
const loadBelow = () => import('./port-below');
if ('IntersectionObserver' in window) {
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      loadBelow();
    },
    { rootMargin: '400px 0px' },
  );
  observer.observe(below);
} else loadBelow();
setInterval(current, 60_000);
