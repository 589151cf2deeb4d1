/** What the port page's scripts share: the page's data, its strings, its lane keys and clock. */
import type { Strings } from '../i18n';
import { label } from './client';
import { savedFilters } from './prefs';

export type PortStrings = Strings & { offline: string; zone: string };

export const root = document.getElementById('port') as HTMLElement;
export const t = JSON.parse(root.dataset.strings ?? '{}') as PortStrings;
export const T = t.travel;
export const lang = root.dataset.lang ?? 'en';
export const id = root.dataset.id ?? '';
export const q = encodeURIComponent(id);
export const zone = root.dataset.tz ?? 'UTC';
export const key = (x: { direction: string; mode: string; lane: string }) =>
  `${x.direction}|${x.mode}|${x.lane}`;
export const keyLabel = (k: string) =>
  k
    .split('|')
    .map((p) => label(t, p))
    .join(' · ');
/** The lane a traveller asked for on the home page, else the passenger standard lane. */
export const chosen = savedFilters();
export const preferredKeys = ['into-us', 'into-canada'].map(
  (d) => `${d}|${chosen.mode || 'passenger'}|${chosen.lane || 'standard'}`,
);
preferredKeys.push('into-us|passenger|standard', 'into-canada|passenger|standard');

export const widthOf = (box: HTMLElement) => Math.max(280, Math.min(640, Math.round(box.clientWidth || 360)));
export const FONT = 13;
export const clock = (iso: string | number) =>
  new Intl.DateTimeFormat(lang, { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
export const localDay = (ms: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(ms));
