/** Small helpers shared by the browser scripts (bundled by Astro, no framework). */
import type { Current, LaneWait, PublishedPort, SiteLane } from '../../../functions/core/views/views';
import type { Strings } from '../i18n';

export type { LaneWait, Strings };

/** A count in words, through the language's plural rules (`1 sample`, `2 samples`). */
export function plural(
  lang: string,
  forms: { one: string; other: string } & Partial<Record<Intl.LDMLPluralRule, string>>,
  n: number,
): string {
  const rule = new Intl.PluralRules(lang).select(n);
  return (forms[rule] ?? forms.other).replace('{n}', new Intl.NumberFormat(lang).format(n));
}

/** A port as the pages use it: from the site's compact document, lanes expanded. */
export type CurrentPort = Pick<
  PublishedPort,
  'id' | 'slug' | 'name' | 'crossing' | 'border' | 'state' | 'city' | 'location'
> & {
  twinCity: string | null;
  current: Pick<Current, 'status' | 'notice'> & { lanes: LaneWait[] };
};

export interface CurrentDoc {
  generatedAt: string;
  ports: CurrentPort[];
}

interface SiteDoc {
  generatedAt: string;
  ports: (Omit<CurrentPort, 'current'> & Pick<Current, 'status' | 'notice'> & { lanes: SiteLane[] })[];
}

/** The site's compact current document (`/v1/site-current.json`), kept for offline use. */
export async function siteCurrent(): Promise<Fetched<CurrentDoc>> {
  const fetched = await getJson<SiteDoc>('/v1/site-current.json', { keep: true });
  const ports = fetched.body.ports.map(({ status, notice, lanes, ...port }) => ({
    ...port,
    current: {
      status,
      notice,
      lanes: lanes.map(
        ([direction, mode, lane, st, delayMinutes, lanesOpen, at, freshness]) =>
          ({
            direction,
            mode,
            lane,
            status: st,
            delayMinutes,
            lanesOpen,
            observedAt: at,
            fetchedAt: at,
            freshness,
            maxLanes: null,
            source: direction === 'into-us' ? 'cbp' : 'cbsa',
          }) as LaneWait,
      ),
    },
  }));
  return { ...fetched, body: { generatedAt: fetched.body.generatedAt, ports } };
}

/** Reads the strings a page put in `data-strings` of an element. */
export function stringsOf(el: HTMLElement): Strings {
  return JSON.parse(el.dataset.strings ?? '{}') as Strings;
}

export function label(t: Strings, key: string): string {
  return (t.labels as Record<string, string>)[key] ?? key;
}

/** The wait as text: minutes only for an open lane with a number; the status otherwise, never 0. */
export function waitText(t: Strings, lane: LaneWait): string {
  if (lane.status === 'open') {
    return lane.delayMinutes === null ? t.labels.noTime : `${lane.delayMinutes} ${t.labels.min}`;
  }
  return label(t, lane.status);
}

/** Sort key of a lane's wait: open lanes by minutes, everything else after them. */
export function waitKey(lane: LaneWait): number {
  return lane.status === 'open' && lane.delayMinutes !== null ? lane.delayMinutes : Number.POSITIVE_INFINITY;
}

export function ageText(t: Pick<Strings, 'labels'>, iso: string | null, nowMs: number): string {
  if (!iso) return '—';
  const minutes = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 60_000));
  if (minutes < 1) return t.labels.justNow;
  const n =
    minutes < 60
      ? `${minutes} min`
      : minutes < 48 * 60
        ? `${Math.floor(minutes / 60)} h ${minutes % 60} min`
        : `${Math.floor(minutes / 1440)} d`;
  return t.labels.ago.replace('{n}', n);
}

export interface Fetched<T> {
  body: T;
  /** The service's clock at reading time: the document's `generatedAt` plus time since the fetch. */
  now: () => number;
  /** True when the network failed and this is the last copy kept in the browser. */
  offline: boolean;
}

/** Cache of the last good data documents, so a page opened offline shows them (marked offline). */
const DATA_CACHE = 'border-waits-data';
const RECEIVED = 'x-received-at';

function fetched<T>(body: T, received: number, offline: boolean): Fetched<T> {
  const generated = (body as { generatedAt?: string }).generatedAt;
  const base = generated ? Date.parse(generated) : received;
  return { body, now: () => base + (Date.now() - received), offline };
}

async function keep(url: string, text: string, received: number): Promise<void> {
  if (!('caches' in globalThis)) return;
  const cache = await caches.open(DATA_CACHE);
  await cache.put(
    url,
    new Response(text, { headers: { 'content-type': 'application/json', [RECEIVED]: String(received) } }),
  );
}

async function lastKept<T>(url: string): Promise<Fetched<T> | null> {
  if (!('caches' in globalThis)) return null;
  const kept = await (await caches.open(DATA_CACHE)).match(url);
  if (!kept) return null;
  return fetched((await kept.json()) as T, Number(kept.headers.get(RECEIVED)) || Date.now(), true);
}

/**
 * GET a JSON document; `now()` follows the service clock so ages agree with the published freshness.
 * When the network fails, the last copy this browser kept is returned with `offline: true` (never as
 * current); an HTTP error is an error.
 */
export async function getJson<T>(url: string, options: { keep?: boolean } = {}): Promise<Fetched<T>> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
  } catch (error) {
    const last = await lastKept<T>(url).catch(() => null);
    if (last) return last;
    throw error;
  }
  if (!response.ok) throw new Error(String(response.status));
  const text = await response.text();
  const received = Date.now();
  if (options.keep) await keep(url, text, received).catch(() => undefined);
  return fetched(JSON.parse(text) as T, received, false);
}

/** Shows or clears a page's offline note: the data shown is the last received, with its age. */
export function offlineNote(t: Pick<Strings, 'labels'>, template: string, data: Fetched<unknown>): void {
  const note = document.getElementById('offline');
  if (!note) return;
  const generated = (data.body as { generatedAt?: string }).generatedAt ?? null;
  note.textContent = data.offline ? template.replace('{age}', ageText(t, generated, data.now())) : '';
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The freshness shown: offline, the last data is never shown as fresh. */
export function freshnessText(t: Strings, lane: LaneWait, offline: boolean): string {
  return offline ? t.labels.lastKnown : label(t, lane.freshness);
}

export function lanesRow(
  t: Strings,
  lane: LaneWait,
  nowMs: number,
  first?: HTMLElement,
  offline = false,
): HTMLTableRowElement {
  const tr = el('tr');
  if (first) tr.append(first);
  tr.append(
    el('td', {}, label(t, lane.direction)),
    el('td', {}, label(t, lane.mode)),
    el('td', {}, label(t, lane.lane)),
    el('td', { class: 'num wait', 'data-status': lane.status }, waitText(t, lane)),
    el(
      'td',
      // The label with the language's colon ("Voies ouvertes : 2" in French), shown by CSS on a phone.
      { class: 'num', 'data-label': `${t.home.lanesOpen}${t.travel.colon}` },
      lane.lanesOpen === null ? '—' : String(lane.lanesOpen),
    ),
    el('td', { class: 'num' }, ageText(t, lane.observedAt ?? lane.fetchedAt, nowMs)),
    el('td', { class: offline ? 'expired' : lane.freshness }, freshnessText(t, lane, offline)),
  );
  return tr;
}
