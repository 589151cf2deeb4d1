/**
 * Pro alerts: one port lane watched for a wait below or above a threshold. Evaluated after each
 * ingest against the latest readings; a reading that is not fresh never fires (DESIGN.md
 * section 1: alerts that respect staleness). Each firing is recorded on the alert and handed to
 * the delivery (a signed webhook), whose outcome is recorded too.
 */
import { createHmac } from 'node:crypto';
import { freshnessOf } from './freshness.ts';
import type { Direction, Lane, LatestReading, Mode } from './model.ts';
import type { Clock, LatestStore } from './stores.ts';

/** Firings kept on an alert (the newest first). */
export const MAX_FIRINGS_KEPT = 20;
/** Alerts one user may have. */
export const MAX_ALERTS_PER_OWNER = 25;

export interface AlertFiring {
  firedAt: string;
  delayMinutes: number;
  observedAt: string;
  delivery: { status: 'delivered' | 'failed' | 'no-webhook'; attempts: number; error: string | null };
}

export interface Alert {
  id: string;
  /** The token subject that created it: alerts are only ever read and deleted by their owner. */
  owner: string;
  portId: string;
  direction: Direction;
  mode: Mode;
  lane: Lane;
  comparison: 'below' | 'above';
  thresholdMinutes: number;
  cooldownMinutes: number;
  webhookUrl: string | null;
  createdAt: string;
  lastFiredAt: string | null;
  /** `observedAt` of the reading that last fired: one reading fires at most once. */
  lastFiredObservedAt: string | null;
  firings: AlertFiring[];
}

export interface AlertStore {
  listByOwner(owner: string): Promise<Alert[]>;
  get(owner: string, id: string): Promise<Alert | undefined>;
  put(alert: Alert): Promise<void>;
  /** Deletes the owner's alert; false when the owner has no alert with that id. */
  delete(owner: string, id: string): Promise<boolean>;
  /** Every alert (evaluation). */
  all(): Promise<Alert[]>;
}

export interface AlertDelivery {
  deliver(alert: Alert, firing: Omit<AlertFiring, 'delivery'>): Promise<AlertFiring['delivery']>;
}

/** Whether `delay` meets the alert's condition. */
export function conditionMet(alert: Pick<Alert, 'comparison' | 'thresholdMinutes'>, delay: number): boolean {
  return alert.comparison === 'below' ? delay < alert.thresholdMinutes : delay > alert.thresholdMinutes;
}

/** Why an alert does not fire on `reading` now, or null when it fires. */
export function whyNotFiring(alert: Alert, reading: LatestReading | undefined, nowMs: number): string | null {
  if (!reading) return 'no reading for this lane';
  if (reading.status !== 'open' || reading.delayMinutes === null) return `lane ${reading.status}`;
  if (!reading.observedAt) return 'reading without its own time';
  if (freshnessOf(reading.source, Date.parse(reading.observedAt), nowMs) !== 'fresh')
    return 'reading not fresh';
  if (!conditionMet(alert, reading.delayMinutes)) return 'condition not met';
  if (alert.lastFiredObservedAt === reading.observedAt) return 'already fired on this reading';
  if (alert.lastFiredAt && nowMs - Date.parse(alert.lastFiredAt) < alert.cooldownMinutes * 60_000) {
    return 'cooling down';
  }
  return null;
}

export interface AlertEvaluation {
  evaluated: number;
  fired: { alertId: string; owner: string; delivery: AlertFiring['delivery']['status'] }[];
}

/** Evaluates every alert against the latest readings; fires, records and delivers. */
export async function evaluateAlerts(deps: {
  alerts: AlertStore;
  latest: LatestStore;
  delivery: AlertDelivery;
  clock: Clock;
  log?: (line: string) => void;
}): Promise<AlertEvaluation> {
  const alerts = await deps.alerts.all();
  if (alerts.length === 0) return { evaluated: 0, fired: [] };
  const { readings } = await deps.latest.all();
  const byLane = new Map(readings.map((r) => [`${r.portId}|${r.direction}|${r.mode}|${r.lane}`, r]));
  const fired: AlertEvaluation['fired'] = [];
  for (const alert of alerts) {
    const nowMs = deps.clock.now();
    const reading = byLane.get(`${alert.portId}|${alert.direction}|${alert.mode}|${alert.lane}`);
    if (whyNotFiring(alert, reading, nowMs) !== null || !reading?.observedAt) continue;
    const firing = {
      firedAt: new Date(nowMs).toISOString(),
      delayMinutes: reading.delayMinutes ?? 0,
      observedAt: reading.observedAt,
    };
    // Recorded before delivery, so a crash while delivering never fires the same reading twice.
    const recorded: Alert = {
      ...alert,
      lastFiredAt: firing.firedAt,
      lastFiredObservedAt: firing.observedAt,
      firings: [
        { ...firing, delivery: { status: 'failed' as const, attempts: 0, error: 'delivery pending' } },
        ...alert.firings,
      ].slice(0, MAX_FIRINGS_KEPT),
    };
    await deps.alerts.put(recorded);
    const delivery = alert.webhookUrl
      ? await deps.delivery.deliver(alert, firing).catch((error: unknown) => ({
          status: 'failed' as const,
          attempts: 0,
          error: error instanceof Error ? error.message : String(error),
        }))
      : { status: 'no-webhook' as const, attempts: 0, error: null };
    const [, ...older] = recorded.firings;
    await deps.alerts.put({ ...recorded, firings: [{ ...firing, delivery }, ...older] });
    deps.log?.(`alert ${alert.id} fired (${firing.delayMinutes} min): webhook ${delivery.status}`);
    fired.push({ alertId: alert.id, owner: alert.owner, delivery: delivery.status });
  }
  return { evaluated: alerts.length, fired };
}

/**
 * An alert's webhook secret (the HMAC-SHA256 key of its signatures): derived from the service's
 * signing key and the alert id, shown once at creation and never stored.
 */
export function webhookSecretOf(signingKey: string, alertId: string): string {
  return `whsec_${createHmac('sha256', signingKey).update(`webhook:${alertId}`).digest('base64url')}`;
}
