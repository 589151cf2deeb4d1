/**
 * The map: each marker coloured per direction (left half into the US, right half into Canada) by
 * its passenger standard wait; a tap opens a note with both directions' waits and a link to the
 * port page, instead of leaving at once. Without a network the last data kept is used, marked so.
 */
import type { Strings } from '../i18n';
import { type CurrentPort, el, type LaneWait, label, offlineNote, siteCurrent, waitText } from './client';

const list = document.getElementById('map-list') as HTMLElement;
const pop = document.getElementById('map-pop') as HTMLElement;
const t = JSON.parse(list.dataset.strings ?? '{}') as Strings & { offline: string };
const ports = new Map<string, CurrentPort>();
let offline = false;

const passengerStandard = (lanes: LaneWait[], direction: string) =>
  lanes.find((l) => l.direction === direction && l.mode === 'passenger' && l.lane === 'standard');
const colourOf = (lane: LaneWait | undefined) => {
  const minutes = lane?.status === 'open' ? lane.delayMinutes : null;
  return minutes === null || minutes === undefined ? 'wx' : minutes < 15 ? 'w0' : minutes < 45 ? 'w1' : 'w2';
};
const text = (lane: LaneWait) => `${waitText(t, lane)}${offline ? ` (${t.labels.lastKnown})` : ''}`;

async function load(): Promise<void> {
  try {
    const fetched = await siteCurrent();
    offline = fetched.offline;
    offlineNote(t, t.offline, fetched);
    for (const port of fetched.body.ports) {
      ports.set(port.id, port);
      for (const shape of document.querySelectorAll(`#map a[data-port-id="${port.id}"] .m`)) {
        const lane = passengerStandard(port.current.lanes, shape.getAttribute('data-direction') ?? 'into-us');
        shape.setAttribute('class', `m ${colourOf(lane)}`);
      }
      const cell = document.querySelector(`#map-list li[data-port-id="${port.id}"] .wait`);
      const lanes = ['into-us', 'into-canada'].flatMap((d) => {
        const lane = passengerStandard(port.current.lanes, d);
        return lane ? [`${label(t, d)}${t.travel.colon}${text(lane)}`] : [];
      });
      if (cell) cell.textContent = lanes.join(' · ');
    }
  } catch {
    // The map and the list stay usable without numbers; the next attempt is a minute away.
  }
}

/**
 * A tap anywhere within a marker's touch target (24 px across on a phone) opens the nearest
 * marker's note: the targets overlap where crossings are close, the nearest one wins.
 */
const svg = document.getElementById('map') as unknown as SVGSVGElement;
const targets = [...svg.querySelectorAll<SVGCircleElement>('circle.hit')].map((c) => ({
  x: Number(c.getAttribute('cx')),
  y: Number(c.getAttribute('cy')),
  r: Number(c.getAttribute('r')),
  marker: c.closest('a') as Element,
}));
svg.addEventListener('click', (event) => {
  const matrix = svg.getScreenCTM()?.inverse();
  if (!matrix) return;
  const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix);
  const near = targets
    .map((target) => ({ target, d: Math.hypot(target.x - at.x, target.y - at.y) }))
    .filter((x) => x.d <= x.target.r)
    .sort((a, b) => a.d - b.d)[0];
  if (!near) return;
  event.preventDefault();
  const marker = near.target.marker;
  const id = marker.getAttribute('data-port-id') ?? '';
  // The name as the list below prints it (the drawing carries none, to stay light).
  const name = document.querySelector(`#map-list li[data-port-id="${id}"] a`)?.textContent ?? id;
  const href = marker.getAttribute('href') ?? '#';
  const port = ports.get(id);
  const rows = ['into-us', 'into-canada'].flatMap((d) => {
    const lane = port && passengerStandard(port.current.lanes, d);
    return lane ? [el('p', {}, `${label(t, d)}${t.travel.colon}${text(lane)}`)] : [];
  });
  const link = el('a', { href }, t.travel.mapTap.replace('{name}', name));
  const title = el('p', { translate: 'no' });
  title.append(el('strong', {}, name));
  pop.replaceChildren(title, ...rows, link);
  pop.hidden = false;
  pop.scrollIntoView({ block: 'nearest' });
});
load();
setInterval(load, 60_000);
