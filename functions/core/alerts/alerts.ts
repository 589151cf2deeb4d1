/**
 * Pro alerts: one port lane watched for a wait below or above a threshold. Evaluated after each
 * ingest against the latest readings; a reading that is not fresh never fires (DESIGN.md
 * section 1: alerts that respect staleness). Each firing is recorded on the alert (conditionally:
 * once per reading, never on a deleted alert) and then delivered to its signed webhook with
 * bounded concurrency under a deadline, so slow receivers never hold up the ingest; retries that
 * do not fit are carried over to a later evaluation in the alert itself.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { mapLimit } from '../concurrency.ts';
import type { Direction, Lane, LatestReading, Mode } from '../model.ts';
import type { Clock, LatestStore } from '../stores.ts';
import { laneKey, latestByLane, readingProblem } from './engine.ts';

/** Firings kept on an alert (the newest first). */
export const MAX_FIRINGS_KEPT = 20;
/** Alerts one user may have. */
export const MAX_ALERTS_PER_OWNER = 25;

export interface AlertFiring {
  /**
   * Stable across retries: the `webhook-id` header and the payload's `id`, so a receiver can drop
   * duplicates. Firings recorded before ids existed have none (their delivery is final).
   */
  id?: string;
  firedAt: string;
  delayMinutes: number;
  observedAt: string;
  delivery: {
    /** `pending`: attempts remain and the next one is due at `nextAttemptAt` (a later cycle). */
    status: 'pending' | 'delivered' | 'failed' | 'no-webhook';
    attempts: number;
    error: string | null;
    nextAttemptAt?: string | null;
  };
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

/**
 * The alerts table. Every write is conditional on the alert still existing, so an evaluation in
 * flight never brings a deleted alert back.
 */
export interface AlertStore {
  listByOwner(owner: string): Promise<Alert[]>;
  get(owner: string, id: string): Promise<Alert | undefined>;
  /** Creates the alert; never overwrites one with the same id. */
  put(alert: Alert): Promise<void>;
  /** Deletes the owner's alert; false when the owner has no alert with that id. */
  delete(owner: string, id: string): Promise<boolean>;
  /** Every alert (evaluation). */
  all(): Promise<Alert[]>;
  /**
   * Records `firing` on the alert as read (`alert`), only if the alert still exists and no firing
   * was recorded since it was read: false otherwise, and the firing must then not be delivered.
   * This makes a reading fire once even when two evaluations overlap.
   */
  recordFiring(alert: Alert, firing: AlertFiring): Promise<boolean>;
  /**
   * Replaces the delivery state of the firing `firingId`, only if the alert still exists and the
   * firing's attempts still number `expectedAttempts`: false otherwise (deleted, or another
   * evaluation made that attempt).
   */
  updateDelivery(
    owner: string,
    id: string,
    firingId: string,
    expectedAttempts: number,
    delivery: AlertFiring['delivery'],
    /** Where the firing was last seen in the alert's list (saves a read when it has not moved). */
    indexHint?: number,
  ): Promise<boolean>;
}

/** The outcome of one delivery attempt. */
export type DeliveryAttempt = { ok: true } | { ok: false; retryable: boolean; error: string };

export interface AlertDelivery {
  /** One attempt to deliver `firing`, bounded by `timeoutMs`. Never throws. */
  attempt(alert: Alert, firing: AlertFiring, timeoutMs: number): Promise<DeliveryAttempt>;
}

/** How deliveries are retried and bounded within one evaluation. */
export interface DeliveryPolicy {
  /** Attempts per firing, over all cycles. */
  attempts: number;
  /** Wait before the second attempt; each further one doubles it. */
  backoffMs: number;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** Total time the deliveries of one evaluation may take; what is left is due in a later cycle. */
  deadlineMs: number;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  attempts: 4,
  backoffMs: 1_000,
  concurrency: 8,
  deadlineMs: 15_000,
};

/** Whether `delay` meets the alert's condition. */
export function conditionMet(alert: Pick<Alert, 'comparison' | 'thresholdMinutes'>, delay: number): boolean {
  return alert.comparison === 'below' ? delay < alert.thresholdMinutes : delay > alert.thresholdMinutes;
}

/** Why an alert does not fire on `reading` now, or null when it fires. */
export function whyNotFiring(alert: Alert, reading: LatestReading | undefined, nowMs: number): string | null {
  // The engine's rule for every kind of alert: open, with a wait and its own time, fresh.
  const problem = readingProblem(reading, nowMs);
  if (problem || !reading || reading.delayMinutes === null) return problem ?? 'no reading for this lane';
  if (!conditionMet(alert, reading.delayMinutes)) return 'condition not met';
  if (alert.lastFiredObservedAt === reading.observedAt) return 'already fired on this reading';
  if (alert.lastFiredAt && nowMs - Date.parse(alert.lastFiredAt) < alert.cooldownMinutes * 60_000) {
    return 'cooling down';
  }
  return null;
}

export interface AlertEvaluation {
  evaluated: number;
  /** `gone`: the alert was deleted while its firing was being delivered. */
  fired: { alertId: string; owner: string; delivery: AlertFiring['delivery']['status'] | 'gone' }[];
  /** Delivery jobs run (new firings with a webhook, plus retries carried over and due). */
  deliveries: number;
  /** Firings left pending for a later cycle. */
  pending: number;
}

interface DeliveryJob {
  alert: Alert;
  firing: AlertFiring & { id: string };
  /** The firing's place in the alert's list after this evaluation recorded its own firings. */
  index: number;
  /** Index in `fired` of the firing's entry, when it fired in this evaluation. */
  firedIndex: number | null;
}

/**
 * Evaluates every alert against the latest readings, records each firing (once per reading), then
 * delivers with bounded concurrency under a total deadline. Retries that fit before the deadline
 * run now; the rest stay `pending` on the alert and are picked up by a later evaluation.
 */
export async function evaluateAlerts(deps: {
  alerts: AlertStore;
  latest: LatestStore;
  /** The lane readings the engine read once for every kind of alert; read from `latest` otherwise. */
  readings?: ReadonlyMap<string, LatestReading>;
  /** The engine's deadline on `timer`; `policy.deadlineMs` from now otherwise. */
  deadline?: number;
  delivery: AlertDelivery;
  clock: Clock;
  policy?: Partial<DeliveryPolicy>;
  log?: (line: string) => void;
  /** Elapsed-time source for the deadline (the wall clock may be simulated). */
  timer?: () => number;
  sleep?: (ms: number) => Promise<void>;
  newId?: () => string;
}): Promise<AlertEvaluation> {
  const policy = { ...DEFAULT_DELIVERY_POLICY, ...deps.policy };
  const timer = deps.timer ?? (() => performance.now());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  const newId = deps.newId ?? (() => `wh_${randomUUID()}`);
  const deadline = deps.deadline ?? timer() + policy.deadlineMs;
  const alerts = await deps.alerts.all();
  if (alerts.length === 0) return { evaluated: 0, fired: [], deliveries: 0, pending: 0 };
  const byLane = deps.readings ?? (await latestByLane(deps.latest));
  // Each alert: its retries that are due, then whether it fires now. Recorded `concurrency` at a time.
  const perAlert = await mapLimit(alerts, policy.concurrency, async (alert) => {
    const nowMs = deps.clock.now();
    // Retries of earlier firings that are due now (oldest first).
    const jobs: DeliveryJob[] = [];
    for (const [index, earlier] of alert.firings.entries()) {
      const due = earlier.delivery.nextAttemptAt ? Date.parse(earlier.delivery.nextAttemptAt) <= nowMs : true;
      if (earlier.id && earlier.delivery.status === 'pending' && due && alert.webhookUrl) {
        jobs.unshift({ alert, firing: earlier as DeliveryJob['firing'], index, firedIndex: null });
      }
    }
    const reading = byLane.get(laneKey(alert));
    if (whyNotFiring(alert, reading, nowMs) !== null || !reading?.observedAt) return { jobs, firing: null };
    const firing: AlertFiring & { id: string } = {
      id: newId(),
      firedAt: new Date(nowMs).toISOString(),
      delayMinutes: reading.delayMinutes ?? 0,
      observedAt: reading.observedAt,
      delivery: alert.webhookUrl
        ? { status: 'pending', attempts: 0, error: null, nextAttemptAt: new Date(nowMs).toISOString() }
        : { status: 'no-webhook', attempts: 0, error: null },
    };
    // Recorded before delivery, so a crash while delivering never fires the same reading twice;
    // conditional, so an overlapping evaluation or a deletion in flight wins.
    if (!(await deps.alerts.recordFiring(alert, firing))) {
      deps.log?.(`alert ${alert.id}: not fired (deleted, or this reading fired elsewhere)`);
      return { jobs, firing: null };
    }
    // The new firing goes first in the list: the earlier ones move one place down.
    for (const job of jobs) job.index += 1;
    return { jobs, firing };
  });
  const fired: AlertEvaluation['fired'] = [];
  const jobs: DeliveryJob[] = [];
  for (const [index, { jobs: carried, firing }] of perAlert.entries()) {
    const alert = alerts[index] as Alert;
    jobs.push(...carried);
    if (!firing) continue;
    fired.push({ alertId: alert.id, owner: alert.owner, delivery: firing.delivery.status });
    if (alert.webhookUrl) jobs.push({ alert, firing, index: 0, firedIndex: fired.length - 1 });
    else deps.log?.(`alert ${alert.id} fired (${firing.delayMinutes} min): no webhook`);
  }

  let pending = 0;
  await mapLimit(jobs, policy.concurrency, async (job) => {
    const final = await deliverUntilDeadline(job, deps, policy, deadline, timer, sleep);
    if (final === 'pending') pending += 1;
    if (job.firedIndex !== null) {
      const entry = fired[job.firedIndex];
      if (entry) entry.delivery = final;
    }
    deps.log?.(`alert ${job.alert.id} fired (${job.firing.delayMinutes} min): webhook ${final}`);
  });
  return { evaluated: alerts.length, fired, deliveries: jobs.length, pending };
}

async function deliverUntilDeadline(
  job: DeliveryJob,
  deps: Parameters<typeof evaluateAlerts>[0],
  policy: DeliveryPolicy,
  deadline: number,
  timer: () => number,
  sleep: (ms: number) => Promise<void>,
): Promise<AlertFiring['delivery']['status'] | 'gone'> {
  const { alert, firing } = job;
  let attempts = firing.delivery.attempts;
  while (true) {
    const left = deadline - timer();
    if (left <= 0) return 'pending';
    // Claim the attempt first: a deleted alert, or one whose attempt another evaluation took, stops here.
    const claimed = await deps.alerts.updateDelivery(
      alert.owner,
      alert.id,
      firing.id,
      attempts,
      { status: 'pending', attempts: attempts + 1, error: 'delivery in progress', nextAttemptAt: null },
      job.index,
    );
    if (!claimed) return 'gone';
    attempts += 1;
    const result = await deps.delivery.attempt(alert, firing, left);
    const nowMs = deps.clock.now();
    let delivery: AlertFiring['delivery'];
    if (result.ok) delivery = { status: 'delivered', attempts, error: null };
    else if (!result.retryable || attempts >= policy.attempts) {
      delivery = { status: 'failed', attempts, error: result.error };
    } else {
      const wait = policy.backoffMs * 2 ** (attempts - 1);
      delivery = {
        status: 'pending',
        attempts,
        error: result.error,
        nextAttemptAt: new Date(nowMs + wait).toISOString(),
      };
      if (
        !(await deps.alerts.updateDelivery(alert.owner, alert.id, firing.id, attempts, delivery, job.index))
      ) {
        return 'gone';
      }
      // Retry within this evaluation when the wait and a useful attempt fit before the deadline.
      if (timer() + wait < deadline - 100) {
        await sleep(wait);
        continue;
      }
      return 'pending';
    }
    await deps.alerts.updateDelivery(alert.owner, alert.id, firing.id, attempts, delivery, job.index);
    return delivery.status;
  }
}

/**
 * An alert's webhook secret (the HMAC-SHA256 key of its signatures): derived from the service's
 * signing key and the alert id, shown once at creation and never stored.
 */
export function webhookSecretOf(signingKey: string, alertId: string): string {
  return `whsec_${createHmac('sha256', signingKey).update(`webhook:${alertId}`).digest('base64url')}`;
}
