/**
 * The port page below the fold: the last 24 hours and the typical week (ours, else CBP's, labelled
 * so) for the hours the port is open, with the best hours. Loaded when that part nears the screen,
 * so a phone runs none of it before the first screen is shown.
 */
import { el, getJson, plural } from './client';
import { clock, FONT, id, key, keyLabel, lang, preferredKeys, q, root, T, t, widthOf } from './port-shared';
import { type TypicalHour, type TypicalWeek, typicalWeek } from './typical';

interface Obs {
  direction: string;
  mode: string;
  lane: string;
  status: string;
  delayMinutes: number | null;
  observedAt: string;
}

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

select.addEventListener('change', heatmap);
chart();
loadTypical();
