/**
 * The map: each marker coloured per direction (left half into the US, right half into Canada) by
 * its passenger standard wait; a tap opens a note with both directions' waits and a link to the
 * port page, instead of leaving at once. Without a network the last data kept is used, marked so.
 * Zoom by buttons, a region's button, the keyboard, a pinch or a drag: each sets the drawing's
 * viewBox, markers keep their size on screen, and names appear beside them once there is room.
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

const SVG_NS = 'http://www.w3.org/2000/svg';
const svg = document.getElementById('map') as unknown as SVGSVGElement;
const zoomBox = document.getElementById('zoom') as HTMLElement;
const leads = document.getElementById('leads') as unknown as SVGGElement;
const labels = document.getElementById('labels') as unknown as SVGGElement;
const [, , WIDTH = 800, HEIGHT = 440] = (svg.getAttribute('viewBox') ?? '').split(' ').map(Number);
const MAX_ZOOM = Number(zoomBox.dataset.max ?? 100);
/** On-screen sizes of a label (CSS px): its height, and its gap from the marker's dot. */
const LABEL_HEIGHT = 15;
const LABEL_GAP = 3;
/** A marker's touch target, in map units at zoom 1 (24 CSS px on a phone). */
const HIT = Number(svg.dataset.hit ?? 27);

/** A marker: where it is drawn, its true place, and its touch target's radius (map units at zoom 1). */
interface Marker {
  a: SVGAElement;
  id: string;
  ox: number;
  oy: number;
  x: number;
  y: number;
  hit: number;
  dot: number;
  name: string;
}
const markers: Marker[] = [...svg.querySelectorAll<SVGAElement>('a[data-port-id]')].map((a) => {
  const [x = 0, y = 0] = (a.getAttribute('transform')?.match(/-?[\d.]+/g) ?? []).map(Number);
  const [ox = x, oy = y] = (a.dataset.o?.split(' ') ?? []).map(Number);
  const id = a.dataset.portId ?? '';
  const hit = document.createElementNS(SVG_NS, 'circle');
  hit.setAttribute('class', 'hit');
  hit.setAttribute('r', String(HIT));
  a.prepend(hit);
  return {
    a,
    id,
    ox,
    oy,
    x,
    y,
    hit: HIT,
    dot: Number(a.querySelector('.m')?.getAttribute('r') ?? 6),
    // The name as the list below prints it, in the page's language.
    name: document.querySelector(`#map-list li[data-port-id="${id}"] a`)?.textContent ?? id,
  };
});

/**
 * Where the markers go at a zoom: from their true places, neighbours closer than a dot and a gap
 * on screen are pushed apart (as the build does at zoom 1), so a deeper zoom brings each marker
 * back towards its real place. Computed once per level of zoom.
 */
const layouts = new Map<number, [number, number][]>([[1, markers.map((m) => [m.x, m.y])]]);
function layoutAt(k: number): [number, number][] {
  const known = layouts.get(k);
  if (known) return known;
  const r = (markers[0]?.dot ?? 6) / k;
  const gap = 2 * r + 1 / k;
  const at = markers.map((m) => [m.ox, m.oy] as [number, number]);
  for (let round = 0; round < 300; round += 1) {
    let moved = false;
    for (let i = 0; i < at.length; i += 1) {
      for (let j = i + 1; j < at.length; j += 1) {
        const a = at[i] as [number, number];
        const b = at[j] as [number, number];
        let dx = b[0] - a[0];
        let dy = b[1] - a[1];
        let d = Math.hypot(dx, dy);
        if (d >= gap) continue;
        if (d < 0.01 / k) {
          dx = Math.cos(j);
          dy = Math.sin(j);
          d = 1;
        }
        const push = (gap - d) / 2 + 0.05 / k;
        a[0] -= (dx / d) * push;
        a[1] -= (dy / d) * push;
        b[0] += (dx / d) * push;
        b[1] += (dy / d) * push;
        moved = true;
      }
    }
    if (!moved) break;
  }
  layouts.set(k, at);
  return at;
}

/** The view: its top-left corner and width in map units (its height follows the drawing's shape). */
const view = { x: 0, y: 0, w: WIDTH };
const zoomOf = () => WIDTH / view.w;
let measure: CanvasRenderingContext2D | null = null;
const widths = new Map<string, number>();
/** A label's width on screen, measured once with the page's font (no layout needed). */
function textWidth(text: string): number {
  let width = widths.get(text);
  if (width === undefined) {
    measure ??= document.createElement('canvas').getContext('2d');
    if (measure) measure.font = `13px ${getComputedStyle(svg).fontFamily}`;
    width = (measure?.measureText(text).width ?? text.length * 7) + 4;
    widths.set(text, width);
  }
  return width;
}

/**
 * Draws the view: markers keep their size on screen, and from twice the whole map's scale each
 * gets its name beside it, unless the name would cover another name, another dot or the edge;
 * then the name is left out and the marker stays.
 */
function draw(): void {
  const k = Math.round(zoomOf() * 1000) / 1000;
  const h = (view.w * HEIGHT) / WIDTH;
  svg.setAttribute('viewBox', `${view.x} ${view.y} ${view.w} ${h}`);
  svg.classList.toggle('zoomed', k > 1);
  // Layouts by quarter steps of zoom (rounded down, so dots stay at least as far apart as they
  // need): a pinch then reuses a few layouts instead of computing one per frame.
  const at = layoutAt(k < 1.001 ? 1 : 2 ** (Math.floor(Math.log2(k) * 4 + 1e-9) / 4));
  const lines: SVGPathElement[] = [];
  for (const [i, m] of markers.entries()) {
    [m.x, m.y] = at[i] ?? [m.ox, m.oy];
    m.a.setAttribute('transform', `translate(${m.x} ${m.y}) scale(${1 / k})`);
    if (Math.hypot(m.x - m.ox, m.y - m.oy) * k > 1.5) {
      const line = document.createElementNS(SVG_NS, 'path');
      line.setAttribute('class', 'lead');
      line.setAttribute('d', `M${m.ox} ${m.oy}L${m.x} ${m.y}`);
      lines.push(line);
    }
  }
  leads.replaceChildren(...lines);
  const box = svg.getBoundingClientRect();
  const ppu = box.width / view.w;
  const placed: SVGTextElement[] = [];
  if (k >= 2 && ppu > 0) {
    const onScreen = markers
      .map((m) => ({ m, sx: (m.x - view.x) * ppu, sy: (m.y - view.y) * ppu, r: (m.dot / k) * ppu }))
      .filter(({ sx, sy }) => sx >= 0 && sy >= 0 && sx <= box.width && sy <= box.height);
    type Box = [number, number, number, number];
    const taken: Box[] = onScreen.map(({ sx, sy, r }) => [sx - r, sy - r, sx + r, sy + r]);
    const clear = (b: Box) =>
      b[0] >= 0 &&
      b[1] >= 0 &&
      b[2] <= box.width &&
      b[3] <= box.height &&
      taken.every((t) => b[0] >= t[2] || b[2] <= t[0] || b[1] >= t[3] || b[3] <= t[1]);
    for (const { m, sx, sy, r } of onScreen) {
      const width = textWidth(m.name);
      const top = sy - LABEL_HEIGHT / 2;
      const away = r + LABEL_GAP;
      // Right of the dot, left of it, above it, below it: the first place that is free.
      const side = (
        [
          [away, top - sy],
          [-away - width, top - sy],
          [-width / 2, -away - LABEL_HEIGHT],
          [-width / 2, away],
        ] as const
      )
        .map(([dx, dy]): Box => [sx + dx, sy + dy, sx + dx + width, sy + dy + LABEL_HEIGHT])
        .find(clear);
      if (!side) continue;
      taken.push(side);
      const text = document.createElementNS(SVG_NS, 'text');
      text.setAttribute('class', 'lbl');
      text.setAttribute('data-port-id', m.id);
      text.setAttribute('x', String(side[0] - sx + 2));
      text.setAttribute('y', String((side[1] + side[3]) / 2 - sy));
      text.setAttribute('transform', `translate(${m.x} ${m.y}) scale(${1 / ppu})`);
      text.textContent = m.name;
      placed.push(text);
    }
  }
  labels.replaceChildren(...placed);
}

let frame = 0;
const redraw = () => {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    draw();
  });
};
/** Keeps the view inside the drawing. */
function clamp(): void {
  view.w = Math.min(WIDTH, Math.max(WIDTH / MAX_ZOOM, view.w));
  view.x = Math.min(WIDTH - view.w, Math.max(0, view.x));
  view.y = Math.min(HEIGHT - (view.w * HEIGHT) / WIDTH, Math.max(0, view.y));
}
/** Zooms by `factor` keeping the map point (cx, cy) where it is on screen. */
function zoomBy(factor: number, cx: number, cy: number): void {
  const w = Math.min(WIDTH, Math.max(WIDTH / MAX_ZOOM, view.w / factor));
  view.x = cx - ((cx - view.x) * w) / view.w;
  view.y = cy - ((cy - view.y) * w) / view.w;
  view.w = w;
  clamp();
  redraw();
}
const centre = (): [number, number] => [view.x + view.w / 2, view.y + (view.w * HEIGHT) / WIDTH / 2];
/** Moves the view by a distance on screen (CSS px). */
function panBy(dx: number, dy: number): void {
  const ppu = svg.getBoundingClientRect().width / view.w;
  if (!ppu) return;
  view.x -= dx / ppu;
  view.y -= dy / ppu;
  clamp();
  redraw();
}
/** The map point under a point of the screen. */
function mapPoint(clientX: number, clientY: number): [number, number] {
  const box = svg.getBoundingClientRect();
  const ppu = box.width / view.w || 1;
  return [view.x + (clientX - box.left) / ppu, view.y + (clientY - box.top) / ppu];
}

zoomBox.addEventListener('click', (event) => {
  const button = (event.target as Element).closest('button');
  if (!button) return;
  const step = button.dataset.zoom;
  if (step === 'in') zoomBy(2, ...centre());
  else if (step === 'out') zoomBy(0.5, ...centre());
  else if (step === 'reset') Object.assign(view, { x: 0, y: 0, w: WIDTH });
  else if (button.dataset.view) {
    const [x = 0, y = 0, w = WIDTH] = button.dataset.view.split(' ').map(Number);
    Object.assign(view, { x, y, w });
  }
  clamp();
  redraw();
});
// The arrow keys move the view, + and - zoom, 0 shows the whole map, while a zoom button has focus.
zoomBox.addEventListener('keydown', (event) => {
  const step = 80;
  const moves: Record<string, [number, number]> = {
    ArrowLeft: [step, 0],
    ArrowRight: [-step, 0],
    ArrowUp: [0, step],
    ArrowDown: [0, -step],
  };
  const move = moves[event.key];
  if (move) panBy(...move);
  else if (event.key === '+' || event.key === '=') zoomBy(2, ...centre());
  else if (event.key === '-') zoomBy(0.5, ...centre());
  else if (event.key === '0') {
    Object.assign(view, { x: 0, y: 0, w: WIDTH });
    redraw();
  } else return;
  event.preventDefault();
});
// A pinch on a trackpad arrives as a wheel event with ctrlKey; a plain wheel scrolls the page.
svg.addEventListener(
  'wheel',
  (event) => {
    if (!event.ctrlKey) return;
    event.preventDefault();
    zoomBy(Math.exp(-event.deltaY / 200), ...mapPoint(event.clientX, event.clientY));
  },
  { passive: false },
);
// One finger (or the mouse) drags a zoomed map; two fingers pinch. At the whole map a vertical
// swipe still scrolls the page (touch-action: pan-y).
const pointers = new Map<number, { x: number; y: number }>();
let travelled = 0;
let dragged = false;
svg.addEventListener('pointerdown', (event) => {
  pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  if (pointers.size === 1) {
    travelled = 0;
    dragged = false;
  }
});
svg.addEventListener('pointermove', (event) => {
  const last = pointers.get(event.pointerId);
  if (!last) return;
  const [first, second] = [...pointers.values()];
  if (pointers.size === 2 && first && second) {
    const before = Math.hypot(first.x - second.x, first.y - second.y);
    last.x = event.clientX;
    last.y = event.clientY;
    const after = Math.hypot(first.x - second.x, first.y - second.y);
    if (before > 0 && after > 0)
      zoomBy(after / before, ...mapPoint((first.x + second.x) / 2, (first.y + second.y) / 2));
    dragged = true;
    return;
  }
  const dx = event.clientX - last.x;
  const dy = event.clientY - last.y;
  last.x = event.clientX;
  last.y = event.clientY;
  travelled += Math.hypot(dx, dy);
  if (zoomOf() > 1 && (event.pointerType !== 'mouse' || event.buttons === 1)) {
    if (travelled > 6) dragged = true;
    if (dragged) panBy(dx, dy);
  }
});
for (const type of ['pointerup', 'pointercancel', 'pointerleave'] as const)
  svg.addEventListener(type, (event) => pointers.delete(event.pointerId));

/**
 * A tap anywhere within a marker's touch target (24 px across on a phone, at every zoom) opens
 * the nearest marker's note: the targets overlap where crossings are close, the nearest one wins.
 */
svg.addEventListener('click', (event) => {
  if (dragged) {
    // The end of a drag or a pinch, not a tap.
    dragged = false;
    event.preventDefault();
    return;
  }
  const [x, y] = mapPoint(event.clientX, event.clientY);
  const k = zoomOf();
  const near = markers
    .map((marker) => ({ marker, d: Math.hypot(marker.x - x, marker.y - y) }))
    .filter((m) => m.d <= m.marker.hit / k)
    .sort((a, b) => a.d - b.d)[0];
  if (!near) return;
  event.preventDefault();
  const { id, name } = near.marker;
  const href = near.marker.a.getAttribute('href') ?? '#';
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
addEventListener('resize', redraw);
load();
setInterval(load, 60_000);
