/** Small helpers shared by the browser scripts (bundled by Astro, no framework). */
import type { Current, LaneWait, PublishedPort } from '../../../functions/core/views';
import type { Strings } from '../i18n';

export type { LaneWait };

/** A port of `port-current?include=ports`, as the pages use it. */
export type CurrentPort = Pick<PublishedPort, 'id' | 'slug' | 'name' | 'crossing' | 'border' | 'hours'> & {
  current: Current;
};

export interface CurrentDoc {
  generatedAt: string;
  count: number;
  ports: CurrentPort[];
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

export function ageText(t: Strings, iso: string | null, nowMs: number): string {
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
}

/** GET a JSON document; `now()` follows the service clock so ages agree with the published freshness. */
export async function getJson<T>(url: string): Promise<Fetched<T>> {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(String(response.status));
  const body = (await response.json()) as T;
  const received = Date.now();
  const generated = (body as { generatedAt?: string }).generatedAt;
  const base = generated ? Date.parse(generated) : received;
  return { body, now: () => base + (Date.now() - received) };
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

export function lanesRow(
  t: Strings,
  lane: LaneWait,
  nowMs: number,
  first?: HTMLElement,
): HTMLTableRowElement {
  const tr = el('tr');
  if (first) tr.append(first);
  tr.append(
    el('td', {}, label(t, lane.direction)),
    el('td', {}, label(t, lane.mode)),
    el('td', {}, label(t, lane.lane)),
    el('td', { class: 'num wait', 'data-status': lane.status }, waitText(t, lane)),
    el('td', { class: 'num' }, lane.lanesOpen === null ? '—' : String(lane.lanesOpen)),
    el('td', { class: 'num' }, ageText(t, lane.observedAt ?? lane.fetchedAt, nowMs)),
    el('td', { class: lane.freshness }, label(t, lane.freshness)),
  );
  return tr;
}
