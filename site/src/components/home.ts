/**
 * The home page: My crossings first, then every crossing grouped by region (the region with the
 * fastest wait first), narrowed as the visitor types in the search box, with the filters folded
 * into one line that says what is shown. The dense table of every lane is built only on a wide
 * screen; a phone never builds it.
 */
import { placeName } from '../../../functions/core/catalogue/place-name';
import { type Region, regionOf } from '../../../functions/core/catalogue/regions';
import {
  ageText,
  type CurrentPort,
  el,
  freshnessText,
  type LaneWait,
  label,
  lanesRow,
  offlineNote,
  plural,
  type Strings,
  siteCurrent,
  waitKey,
  waitText,
} from './client';
import { distanceKm, favourites, type Position, savedFilters, saveFilters, toggleFavourite } from './prefs';

type HomeStrings = Strings & { regions: Record<Region, string>; french: Record<string, string> };

const groups = document.getElementById('groups') as HTMLElement;
const form = document.getElementById('filters') as HTMLFormElement;
const search = document.getElementById('q') as HTMLInputElement;
const summary = document.getElementById('summary') as HTMLElement;
const nearStatus = document.getElementById('near-status') as HTMLElement;
const sortSelect = document.getElementById('f-sort') as HTMLSelectElement;
const t = JSON.parse(groups.dataset.strings ?? '{}') as HomeStrings;
const H = t.home;
const T = t.travel;
const lang = groups.dataset.lang ?? 'en';
const prefix = lang === 'en' ? '' : `/${lang}`;
const wide = window.matchMedia('(min-width: 48rem)');
let doc: { ports: CurrentPort[] } | null = null;
let offline = false;
let now = () => Date.now();
let position: Position | null = null;
let renders = 0;

// The visitor's last choices of border, direction, mode, lane and order win over the defaults.
for (const [name, value] of Object.entries(savedFilters())) {
  const select = form.elements.namedItem(name) as HTMLSelectElement | null;
  if (
    select instanceof HTMLSelectElement &&
    value !== 'near' &&
    [...select.options].some((o) => o.value === value)
  )
    select.value = value;
}

const portName = (port: CurrentPort) =>
  placeName({ name: port.name, crossing: t.french[port.id] ?? port.crossing });
const distance = (port: CurrentPort) =>
  position && port.location ? distanceKm(position, port.location) : Number.POSITIVE_INFINITY;

/** Search text of a port: names, cities and state, without case or accents. */
const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
const haystack = new Map<string, string>();
function matches(port: CurrentPort, query: string): boolean {
  if (!query) return true;
  let text = haystack.get(port.id);
  if (text === undefined) {
    text = fold(
      [
        port.name,
        port.crossing,
        port.city,
        port.twinCity,
        port.state,
        t.french[port.id],
        t.regions[regionOf(port)],
      ]
        .filter(Boolean)
        .join(' '),
    );
    haystack.set(port.id, text);
  }
  return query.split(/\s+/).every((word) => text.includes(word));
}

function filters(): Record<string, string> {
  const f: Record<string, string> = {};
  for (const [k, v] of new FormData(form)) f[k] = String(v);
  return f;
}

/** The one line that says what is shown: mode · lane · direction (and border when chosen). */
function foldText(f: Record<string, string>): string {
  const parts = [
    f.mode ? label(t, f.mode) : H.any,
    f.lane ? label(t, f.lane) : H.any,
    f.direction ? label(t, f.direction) : T.bothDirections,
  ];
  if (f.border) parts.push(label(t, f.border));
  return parts.join(' · ');
}

function starButton(port: CurrentPort): HTMLButtonElement {
  const on = favourites().includes(port.id);
  return el(
    'button',
    {
      type: 'button',
      class: 'star',
      'aria-pressed': String(on),
      'aria-label': H.star.replace('{name}', portName(port)),
      'data-star': port.id,
    },
    on ? '★' : '☆',
  );
}

/** The lanes a card shows: per direction, the chosen mode and lane (passenger standard by default). */
function cardLanes(port: CurrentPort, f: Record<string, string>): LaneWait[] {
  const mode = f.mode || 'passenger';
  const lane = f.lane || 'standard';
  return port.current.lanes.filter(
    (l) => l.mode === mode && l.lane === lane && (!f.direction || l.direction === f.direction),
  );
}

function card(port: CurrentPort, lanes: LaneWait[], nowMs: number): HTMLLIElement {
  const li = el('li', { class: 'card', 'data-port-id': port.id });
  const name = el(
    'a',
    { href: `${prefix}/ports/${port.slug}/`, class: 'name', translate: 'no' },
    portName(port),
  );
  const dl = el('dl', { class: 'dirs' });
  for (const lane of lanes) {
    const dt = el('dt', {}, label(t, lane.direction));
    dt.append(
      el(
        'span',
        { class: 'meta' },
        `${ageText(t, lane.observedAt ?? lane.fetchedAt, nowMs)} · ${freshnessText(t, lane, offline)}`,
      ),
    );
    dl.append(
      dt,
      el(
        'dd',
        { class: 'wait num', 'data-direction': lane.direction, 'data-status': lane.status },
        waitText(t, lane),
      ),
    );
  }
  const km = distance(port);
  if (Number.isFinite(km)) dl.append(el('dd', { class: 'distance' }, `${Math.round(km)} ${H.km}`));
  li.append(name, starButton(port), dl);
  return li;
}

type Row = { port: CurrentPort; lanes: LaneWait[]; key: number };

function compare(f: Record<string, string>) {
  return (a: Row, b: Row): number => {
    if (f.sort === 'near')
      return distance(a.port) - distance(b.port) || a.port.name.localeCompare(b.port.name);
    if (f.sort === 'name' || a.key === b.key) return a.port.name.localeCompare(b.port.name);
    if (!Number.isFinite(a.key)) return 1;
    if (!Number.isFinite(b.key)) return -1;
    return (f.sort === 'wait-desc' ? -1 : 1) * (a.key - b.key);
  };
}

function render(): void {
  const f = filters();
  (document.getElementById('fold-text') as HTMLElement).textContent = foldText(f);
  if (!doc) return;
  const nowMs = now();
  const order = compare(f);
  const favs = favourites();
  const query = fold(search.value.trim());

  const rows: Row[] = doc.ports
    .filter((port) => (!f.border || port.border === f.border) && matches(port, query))
    .map((port) => {
      const lanes = cardLanes(port, f);
      return { port, lanes, key: Math.min(...lanes.map(waitKey)) };
    })
    .filter((x) => x.lanes.length > 0);

  // My crossings first, sorted by wait, whatever the search.
  const mine = doc.ports
    .filter((port) => favs.includes(port.id))
    .map((port) => {
      const lanes = cardLanes(port, { ...f, direction: '' });
      return { port, lanes, key: Math.min(...lanes.map(waitKey)) };
    })
    .sort(compare({ ...f, sort: f.sort === 'near' ? 'near' : 'wait-asc' }));
  (document.getElementById('mine') as HTMLElement).replaceChildren(
    ...mine.map((x) => card(x.port, x.lanes, nowMs)),
  );
  (document.getElementById('mine-box') as HTMLElement).hidden = mine.length === 0;

  // Near me and a search answer in one list, nearest or shortest first; otherwise by region,
  // the region with the fastest crossing first.
  const sections: { region: Region | null; rows: Row[] }[] = [];
  if (f.sort === 'near' || query) sections.push({ region: null, rows: rows.sort(order) });
  else {
    const byRegion = new Map<Region, Row[]>();
    for (const row of rows) {
      const region = regionOf(row.port);
      byRegion.set(region, [...(byRegion.get(region) ?? []), row]);
    }
    for (const [region, list] of byRegion) sections.push({ region, rows: list.sort(order) });
    const best = (s: { rows: Row[] }) => Math.min(...s.rows.map((r) => r.key));
    sections.sort((a, b) =>
      f.sort === 'name'
        ? (t.regions[a.region as Region] ?? '').localeCompare(t.regions[b.region as Region] ?? '')
        : (f.sort === 'wait-desc' ? -1 : 1) *
          (best(a) === best(b)
            ? 0
            : Number.isFinite(best(a))
              ? Number.isFinite(best(b))
                ? best(a) - best(b)
                : -1
              : 1),
    );
  }
  const build = ({ region, rows: list }: (typeof sections)[number]) => {
    const section = el('section', { class: 'region', ...(region ? { 'data-region': region } : {}) });
    if (region) {
      const h2 = el('h2');
      const fastest = list.find((r) => Number.isFinite(r.key));
      h2.append(el('span', {}, t.regions[region]));
      if (fastest)
        h2.append(
          el('span', { class: 'fastest' }, T.fastest.replace('{wait}', `${fastest.key} ${t.labels.min}`)),
        );
      h2.append(el('a', { class: 'plan', href: `${prefix}/plan/${region}/` }, T.plan));
      section.append(h2);
    }
    const ul = el('ul', { class: 'cards' });
    ul.append(...list.map((x) => card(x.port, x.lanes, nowMs)));
    section.append(ul);
    return section;
  };
  // The first screen's regions at once; the others in short tasks after it, so a slow phone
  // answers a tap in between (a newer render cancels what is left of an older one).
  const ticket = ++renders;
  groups.replaceChildren(...sections.slice(0, 2).map(build));
  if (rows.length === 0 && query)
    groups.append(el('p', { id: 'no-match' }, T.noMatch.replace('{q}', search.value.trim())));
  const rest = sections.slice(2);
  const next = () => {
    if (ticket !== renders || rest.length === 0) return;
    groups.append(...rest.splice(0, 2).map(build));
    setTimeout(next, 0);
  };
  setTimeout(next, 0);

  const laneCount = rows.reduce((n, r) => n + r.lanes.length, 0);
  summary.textContent = T.shown
    .replace('{lanes}', plural(lang, T.lanes, laneCount))
    .replace('{crossings}', plural(lang, T.crossings, rows.length));
  if (wide.matches) table(f, query, order, nowMs);
}

/** The dense table of every lane the filters keep: wide screens only. */
function table(
  f: Record<string, string>,
  query: string,
  order: (a: Row, b: Row) => number,
  nowMs: number,
): void {
  if (!doc) return;
  const rows: (Row & { lane: LaneWait })[] = [];
  for (const port of doc.ports) {
    if ((f.border && port.border !== f.border) || !matches(port, query)) continue;
    for (const lane of port.current.lanes) {
      if (f.direction && lane.direction !== f.direction) continue;
      if (f.mode && lane.mode !== f.mode) continue;
      if (f.lane && lane.lane !== f.lane) continue;
      rows.push({ port, lanes: [lane], lane, key: waitKey(lane) });
    }
  }
  rows.sort(order);
  const tableEl = el('table', { id: 'waits' });
  tableEl.append(el('caption', { class: 'vh' }, H.title));
  const head = el('tr');
  for (const text of [H.port, H.direction, H.mode, H.lane, H.wait, H.lanesOpen, H.updated, H.freshness])
    head.append(el('th', { scope: 'col' }, text));
  tableEl.append(el('thead'));
  tableEl.tHead?.append(head);
  const tbody = el('tbody');
  for (const { port, lane } of rows) {
    const th = el('th', { scope: 'row' });
    th.append(
      el('a', { href: `${prefix}/ports/${port.slug}/`, translate: 'no' }, portName(port)),
      ' ',
      starButton(port),
    );
    const tr = lanesRow(t, lane, nowMs, th, offline);
    tr.dataset.portId = port.id;
    tbody.append(tr);
  }
  tableEl.append(tbody);
  (document.getElementById('wide') as HTMLElement).replaceChildren(tableEl);
}

async function load(): Promise<void> {
  try {
    const fetched = await siteCurrent();
    doc = fetched.body;
    now = fetched.now;
    offline = fetched.offline;
    offlineNote(t, H.offline, fetched);
    render();
  } catch (error) {
    summary.textContent = t.labels.error.replace('{status}', (error as Error).message);
  }
}

document.addEventListener('click', (event) => {
  const star = (event.target as HTMLElement).closest<HTMLElement>('[data-star]');
  if (!star?.dataset.star) return;
  const within = star.closest('#mine') ? '#mine' : star.closest('#waits') ? '#waits' : '#groups';
  toggleFavourite(star.dataset.star);
  render();
  document.querySelector<HTMLElement>(`${within} [data-star="${star.dataset.star}"]`)?.focus();
});
(document.getElementById('near') as HTMLButtonElement).addEventListener('click', () => {
  if (!('geolocation' in navigator)) {
    nearStatus.textContent = H.nearFailed.replace('{reason}', 'geolocation');
    return;
  }
  nearStatus.textContent = H.locating;
  // Asked for only now, on the visitor's request; the position is used here and sent nowhere.
  navigator.geolocation.getCurrentPosition(
    (p) => {
      position = { lat: p.coords.latitude, lon: p.coords.longitude };
      (sortSelect.querySelector('option[value=near]') as HTMLOptionElement).disabled = false;
      sortSelect.value = 'near';
      nearStatus.textContent = H.nearDone;
      render();
    },
    (error) => {
      nearStatus.textContent = H.nearFailed.replace('{reason}', error.message || String(error.code));
    },
    { maximumAge: 300_000, timeout: 20_000 },
  );
});
form.addEventListener('change', (event) => {
  if (event.target === search) return;
  const { q: _q, ...chosen } = filters();
  saveFilters(chosen);
  render();
});
search.addEventListener('input', () => render());
form.addEventListener('submit', (event) => event.preventDefault());
wide.addEventListener('change', () => render());
// A wide screen has room for the filters: shown open there, folded into one line on a phone.
if (wide.matches) (document.getElementById('fold') as HTMLDetailsElement).open = true;
render();
load();
setInterval(load, 60_000);
