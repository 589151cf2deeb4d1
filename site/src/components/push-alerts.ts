/**
 * Wait alerts by Web Push on a port page and under My crossings: subscribe this browser
 * (`PushManager.subscribe` with the service's VAPID key, then `POST /push/subscriptions`), list
 * the alerts this browser holds (kept in localStorage with their delete tokens, which the server
 * shows only once), renew them (`PUT`) so they outlive the 90 days, delete them (`DELETE`), and
 * move them to the browser's new subscription when it replaced the one they were made for.
 */
import { laneOffered } from '../../../functions/core/alerts/push-lanes';
import type { Direction, Lane, Mode } from '../../../functions/core/model';
import type { Strings } from '../i18n';
import { el } from './client';
import { favourites } from './prefs';
import { HELD_ALERTS as STORE } from './push-held';

interface PortInfo {
  id: string;
  name: string;
  border: 'mx' | 'ca';
  directions: Direction[];
}

interface HeldAlert {
  id: string;
  token: string;
  portId: string;
  portName: string;
  direction: Direction;
  mode: Mode;
  lane: Lane;
  below: number;
  quiet: { from: string; to: string } | null;
  renewedAt: number;
  /** The lane as the form named it when the alert was made. */
  laneText?: string;
  /** The push subscription (its endpoint) the alert was made for; absent on alerts kept before it was stored. */
  endpoint?: string;
  /** The language the alert's messages are written in (absent: the page's). */
  lang?: string;
}

const RENEW_EVERY_MS = 7 * 86_400_000;
const LANES: readonly [Direction, Mode, Lane][] = (['into-us', 'into-canada'] as const).flatMap((d) =>
  (['passenger', 'pedestrian', 'commercial'] as const).flatMap((m) =>
    (['standard', 'ready', 'sentri', 'nexus', 'fast'] as const).map((l): [Direction, Mode, Lane] => [
      d,
      m,
      l,
    ]),
  ),
);

const root = document.getElementById('push-alerts') as HTMLElement;
const t = JSON.parse(root.dataset.strings ?? '{}') as Pick<Strings, 'push'> & {
  labels?: Record<string, string>;
};
const p = t.push;
const lang = root.dataset.lang ?? 'en';
const fixedPort = root.dataset.port ? (JSON.parse(root.dataset.port) as PortInfo) : null;
const form = document.getElementById('push-form') as HTMLFormElement;
const status = document.getElementById('push-status') as HTMLElement;
const list = document.getElementById('push-list') as HTMLUListElement;
const none = document.getElementById('push-none') as HTMLElement;
const portSelect = document.getElementById('push-port') as HTMLSelectElement | null;
const laneSelect = document.getElementById('push-lane') as HTMLSelectElement;
let ports: PortInfo[] = fixedPort ? [fixedPort] : [];

const label = (key: string) => t.labels?.[key] ?? key;

function held(): HeldAlert[] {
  try {
    const value = JSON.parse(localStorage.getItem(STORE) ?? '[]') as unknown;
    return Array.isArray(value) ? (value as HeldAlert[]) : [];
  } catch {
    return [];
  }
}

function keep(alerts: HeldAlert[]): void {
  try {
    localStorage.setItem(STORE, JSON.stringify(alerts));
  } catch {
    // Storage full or disabled: the alert works, but this page cannot list it later.
  }
}

const say = (text: string) => {
  status.textContent = text;
};

function describe(alert: HeldAlert): string {
  const quiet = alert.quiet
    ? ` · ${p.quietShort.replace('{from}', alert.quiet.from).replace('{to}', alert.quiet.to)}`
    : '';
  const lane = alert.laneText ?? `${label(alert.direction)} · ${label(alert.mode)} · ${label(alert.lane)}`;
  return `${alert.portName} · ${lane} · ${p.belowShort.replace('{n}', String(alert.below))}${quiet}`;
}

function render(): void {
  const shown = held().filter((a) => !fixedPort || a.portId === fixedPort.id);
  list.replaceChildren(
    ...shown.map((alert) => {
      const item = el('li', {}, describe(alert));
      const button = el('button', { type: 'button', 'data-delete': alert.id, class: 'link' }, p.delete);
      button.setAttribute('aria-label', `${p.delete}: ${describe(alert)}`);
      item.append(' ', button);
      return item;
    }),
  );
  none.hidden = shown.length > 0;
}

function fillLanes(): void {
  // A port page lists its lanes in the HTML.
  if (fixedPort) return;
  const port = fixedPort ?? ports.find((x) => x.id === portSelect?.value);
  const chosen = laneSelect.value;
  const offered = port ? LANES.filter(([d, m, l]) => laneOffered(port, d, m, l)) : [];
  laneSelect.replaceChildren(
    ...offered.map(([d, m, l]) =>
      el('option', { value: `${d}|${m}|${l}` }, `${label(d)} · ${label(m)} · ${label(l)}`),
    ),
  );
  const values = offered.map((x) => x.join('|'));
  laneSelect.value = values.includes(chosen) ? chosen : (values[0] ?? '');
}

async function loadPorts(): Promise<void> {
  if (fixedPort || !portSelect) return;
  const mine = favourites();
  if (mine.length > 0 && ports.length === 0) {
    const response = await fetch('/api/v1/ports', { headers: { accept: 'application/json' } });
    if (response.ok) ports = ((await response.json()) as { ports: PortInfo[] }).ports;
  }
  const chosen = portSelect.value;
  const options = ports.filter((x) => mine.includes(x.id));
  portSelect.replaceChildren(...options.map((x) => el('option', { value: x.id }, x.name)));
  portSelect.value = options.some((x) => x.id === chosen) ? chosen : (options[0]?.id ?? '');
  form.hidden = options.length === 0;
  (document.getElementById('push-mine-none') as HTMLElement | null)?.toggleAttribute(
    'hidden',
    options.length > 0,
  );
  fillLanes();
}

const supported = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

async function registration(): Promise<ServiceWorkerRegistration> {
  return (await navigator.serviceWorker.getRegistration('/')) ?? navigator.serviceWorker.register('/sw.js');
}

async function problemText(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: string; title?: string };
    return body.detail ?? body.title ?? String(response.status);
  } catch {
    return String(response.status);
  }
}

/** The service's VAPID public key (base64url). */
async function vapidKey(): Promise<string> {
  const response = await fetch('/push/vapid-public-key', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(await problemText(response));
  return ((await response.json()) as { publicKey: string }).publicKey;
}

type AlertSettings = Pick<HeldAlert, 'portId' | 'direction' | 'mode' | 'lane' | 'below' | 'quiet'>;

/** `POST /push/subscriptions`: the response, 201 with the new alert's id and token when made. */
function postAlert(
  subscription: PushSubscription,
  alert: AlertSettings,
  alertLang: string,
): Promise<Response> {
  const { portId, direction, mode, lane, below, quiet } = alert;
  return fetch('/push/subscriptions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, application/problem+json' },
    body: JSON.stringify({
      subscription: subscription.toJSON(),
      alert: { port_id: portId, direction, mode, lane, below_minutes: below, ...(quiet ? { quiet } : {}) },
      lang: alertLang,
    }),
  });
}

async function subscribe(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const data = new FormData(form);
  const port = fixedPort ?? ports.find((x) => x.id === data.get('port'));
  const [direction, mode, lane] = String(data.get('lane') ?? '').split('|') as [Direction, Mode, Lane];
  const below = Number(data.get('below'));
  if (!port || !lane) return say(p.pickLane);
  if (!Number.isInteger(below) || below < 1 || below > 240) return say(p.badBelow);
  const quiet = data.get('quiet') ? { from: String(data.get('from')), to: String(data.get('to')) } : null;
  const button = form.querySelector('button[type=submit]') as HTMLButtonElement;
  button.disabled = true;
  say(p.working);
  try {
    if ((await Notification.requestPermission()) !== 'granted') return say(p.denied);
    const manager = (await registration()).pushManager;
    const subscription =
      (await manager.getSubscription()) ??
      (await manager.subscribe({ userVisibleOnly: true, applicationServerKey: await vapidKey() }));
    const settings: AlertSettings = { portId: port.id, direction, mode, lane, below, quiet };
    const response = await postAlert(subscription, settings, lang);
    if (response.status !== 201) return say(p.failed.replace('{detail}', await problemText(response)));
    const { id, token } = (await response.json()) as { id: string; token: string };
    const alert: HeldAlert = {
      id,
      token,
      ...settings,
      portName: port.name,
      renewedAt: Date.now(),
      laneText: laneSelect.selectedOptions[0]?.textContent ?? undefined,
      endpoint: subscription.endpoint,
      lang,
    };
    keep([...held(), alert]);
    render();
    say(p.done.replace('{alert}', describe(alert)));
  } catch (error) {
    say(p.failed.replace('{detail}', error instanceof Error ? error.message : String(error)));
  } finally {
    button.disabled = false;
  }
}

async function remove(id: string): Promise<void> {
  const alert = held().find((a) => a.id === id);
  if (!alert) return;
  try {
    const response = await fetch(`/push/subscriptions/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alert.token}` },
    });
    // 404: the service no longer holds it (expired, or its push service said it is gone).
    if (response.status !== 204 && response.status !== 404) {
      return say(p.failed.replace('{detail}', await problemText(response)));
    }
  } catch (error) {
    return say(p.failed.replace('{detail}', error instanceof Error ? error.message : String(error)));
  }
  const rest = held().filter((a) => a.id !== id);
  keep(rest);
  render();
  say(p.deleted);
  if (rest.length === 0 && supported) {
    // No alert left: this browser need not stay subscribed.
    await (await (await registration()).pushManager.getSubscription())?.unsubscribe().catch(() => false);
  }
}

/**
 * Moves the alerts this browser holds to its current push subscription when the browser replaced
 * the one they were made for (push services expire and rotate subscriptions; the old endpoint then
 * answers 410 and the service forgets its alerts): each is made again on the current subscription,
 * or a new one when the browser holds none, with its own settings, and the old one is deleted (a
 * 404 when the service already forgot it). An alert that cannot be made again now is kept as it
 * is, for the next visit. Alerts kept before their endpoint was stored move only when the browser
 * holds no subscription at all.
 */
async function reattach(): Promise<void> {
  const alerts = held();
  if (alerts.length === 0 || Notification.permission !== 'granted') return;
  const manager = (await registration()).pushManager;
  let subscription = await manager.getSubscription();
  const moving = alerts.filter(
    (alert) => !subscription || (alert.endpoint !== undefined && alert.endpoint !== subscription.endpoint),
  );
  if (moving.length === 0) return;
  subscription ??= await manager.subscribe({ userVisibleOnly: true, applicationServerKey: await vapidKey() });
  let moved = 0;
  for (const alert of moving) {
    const response = await postAlert(subscription, alert, alert.lang ?? lang).catch(() => null);
    if (response?.status !== 201) continue;
    const { id, token } = (await response.json()) as { id: string; token: string };
    await fetch(`/push/subscriptions/${encodeURIComponent(alert.id)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alert.token}` },
    }).catch(() => null);
    Object.assign(alert, { id, token, endpoint: subscription.endpoint, renewedAt: Date.now() });
    moved++;
  }
  if (moved > 0) {
    keep(alerts);
    render();
  }
}

/** Alerts older than a week are renewed (90 more days); one the service no longer has is dropped. */
async function renew(): Promise<void> {
  const now = Date.now();
  let changed = false;
  const alerts = held();
  for (const alert of alerts) {
    if (now - alert.renewedAt < RENEW_EVERY_MS) continue;
    const response = await fetch(`/push/subscriptions/${encodeURIComponent(alert.id)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${alert.token}` },
    }).catch(() => null);
    if (response?.status === 200) alert.renewedAt = now;
    else if (response?.status === 404) alert.id = '';
    else continue;
    changed = true;
  }
  if (changed) {
    keep(alerts.filter((a) => a.id));
    render();
  }
}

render();
if (!supported) {
  form.hidden = true;
  (document.getElementById('push-unsupported') as HTMLElement).hidden = false;
} else {
  form.addEventListener('submit', subscribe);
  portSelect?.addEventListener('change', fillLanes);
  portSelect?.addEventListener('focus', () => void loadPorts());
  fillLanes();
  loadPorts().catch(() => undefined);
}
list.addEventListener('click', (event) => {
  const button = (event.target as HTMLElement).closest<HTMLElement>('[data-delete]');
  if (button?.dataset.delete) void remove(button.dataset.delete);
});
// Moved first: an alert the service forgot with its old subscription is made again, not dropped.
(supported ? reattach() : Promise.resolve())
  .catch(() => undefined)
  .then(renew)
  .catch(() => undefined);
