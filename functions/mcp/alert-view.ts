/** An alert as the alert tools (create_alert, list_alerts) show it to its owner. */
import * as z from 'zod';
import type { Alert } from '../core/alerts/alerts.ts';
import { DIRECTIONS, LANES, MODES } from '../core/model.ts';

/** An alert as its owner sees it (never the webhook secret). */
export const AlertViewSchema = z.object({
  id: z.string(),
  portId: z.string(),
  timeZone: z.string().describe("The port's IANA time zone (the alert's times are UTC)"),
  direction: z.enum(DIRECTIONS),
  mode: z.enum(MODES),
  lane: z.enum(LANES),
  comparison: z.enum(['below', 'above']),
  thresholdMinutes: z.number(),
  cooldownMinutes: z.number(),
  webhookUrl: z.string().nullable(),
  createdAt: z.string(),
  lastFiredAt: z.string().nullable(),
  firings: z.array(
    z.object({
      firedAt: z.string(),
      delayMinutes: z.number(),
      observedAt: z.string(),
      delivery: z.object({
        /** `pending`: a retry is due at `nextAttemptAt`, in a later ingest cycle. */
        status: z.enum(['pending', 'delivered', 'failed', 'no-webhook']),
        attempts: z.number().int(),
        error: z.string().nullable(),
        nextAttemptAt: z.string().nullable().optional(),
      }),
    }),
  ),
});

export function alertView(alert: Alert, timeZone: string): z.input<typeof AlertViewSchema> {
  const { owner: _owner, lastFiredObservedAt: _last, ...view } = alert;
  return { ...view, timeZone };
}
