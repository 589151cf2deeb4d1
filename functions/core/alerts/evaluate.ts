/**
 * One evaluation of every alert after an ingest cycle: the latest readings are read once, then
 * the Pro alerts (webhooks) and the travellers' push alerts are evaluated side by side under one
 * delivery deadline, each kind on its own so that one failing (its secret unreadable, its table
 * unreachable) leaves the other to run.
 */
import type { Clock, LatestStore } from '../stores.ts';
import { type AlertDelivery, type AlertEvaluation, type AlertStore, evaluateAlerts } from './alerts.ts';
import { latestByLane } from './engine.ts';
import { evaluatePushAlerts, type PushAlertStore, type PushDelivery, type PushEvaluation } from './push.ts';

export interface AlertEngineDeps {
  latest: LatestStore;
  clock: Clock;
  /** Total time the deliveries may take, from now. */
  deadlineMs: number;
  /** Deliveries in flight at once, per kind. */
  concurrency: number;
  log?: (line: string) => void;
  timer?: () => number;
  /** The Pro alerts; their delivery is built when needed (it reads the webhook signing key). */
  webhooks?: {
    alerts: AlertStore;
    delivery: () => Promise<AlertDelivery>;
    attempts: number;
    backoffMs: number;
  };
  /** The push alerts; their delivery is built when needed (it reads the VAPID key). */
  push?: { store: PushAlertStore; delivery: () => Promise<PushDelivery>; timeoutMs: number };
}

export interface AlertEngineOutcome {
  webhooks: AlertEvaluation | null;
  push: PushEvaluation | null;
}

export async function evaluateAllAlerts(deps: AlertEngineDeps): Promise<AlertEngineOutcome> {
  const timer = deps.timer ?? (() => performance.now());
  const deadline = timer() + deps.deadlineMs;
  const readings = await latestByLane(deps.latest);
  const failed = (kind: string) => (error: unknown) => {
    deps.log?.(
      `alerts: ${kind} evaluation failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  };
  const { webhooks, push } = deps;
  const [webhookOutcome, pushOutcome] = await Promise.all([
    webhooks
      ? webhooks
          .delivery()
          .then((delivery) =>
            evaluateAlerts({
              alerts: webhooks.alerts,
              latest: deps.latest,
              readings,
              deadline,
              delivery,
              clock: deps.clock,
              timer,
              ...(deps.log ? { log: deps.log } : {}),
              policy: {
                attempts: webhooks.attempts,
                backoffMs: webhooks.backoffMs,
                concurrency: deps.concurrency,
                deadlineMs: deps.deadlineMs,
              },
            }),
          )
          .catch(failed('webhook'))
      : null,
    push
      ? push
          .delivery()
          .then((delivery) =>
            evaluatePushAlerts({
              store: push.store,
              readings,
              delivery,
              nowMs: deps.clock.now(),
              timer,
              deadline,
              concurrency: deps.concurrency,
              timeoutMs: push.timeoutMs,
              ...(deps.log ? { log: deps.log } : {}),
            }),
          )
          .catch(failed('push'))
      : null,
  ]);
  return { webhooks: webhookOutcome, push: pushOutcome };
}
