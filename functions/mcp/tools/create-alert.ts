import * as z from 'zod';
import { type Alert, MAX_ALERTS_PER_OWNER, webhookSecretOf } from '../../core/alerts/alerts.ts';
import { webhookUrlProblem } from '../../core/alerts/webhook-target.ts';
import { placeName } from '../../core/catalogue/place-name.ts';
import { AlertViewSchema, alertView } from '../alert-view.ts';
import { defineTool, requireLane, ToolError } from '../define-tool.ts';
import { PortLaneInputSchema } from '../tool-kit.ts';

const InputSchema = PortLaneInputSchema.extend({
  comparison: z
    .enum(['below', 'above'])
    .default('below')
    .describe('Fire when the wait drops below or rises above'),
  threshold_minutes: z.number().int().min(0).max(1440).describe('Threshold in minutes'),
  cooldown_minutes: z
    .number()
    .int()
    .min(5)
    .max(10080)
    .default(60)
    .describe('Minimum minutes between two firings, default 60'),
  webhook_url: z
    .string()
    .url()
    .max(2000)
    .optional()
    .describe('HTTPS URL that receives each firing as a signed JSON POST; leave out to only record firings'),
});

const OutputSchema = z.object({
  generatedAt: z.string(),
  alert: AlertViewSchema,
  webhookSecret: z
    .string()
    .nullable()
    .describe('HMAC-SHA256 key of the webhook-signature header; shown only now'),
  signature: z.string().describe('How to verify a delivery'),
});

export const createAlertTool = defineTool({
  name: 'create_alert',
  title: 'Create a wait-time alert',
  description:
    'Watch one crossing lane for a wait (minutes) below or above a threshold. Evaluated after every ingest ' +
    '(about each minute); fires only on fresh readings (at most 75 min old), at most once per cooldown; ' +
    'each firing is recorded (see list_alerts) and, with webhook_url, POSTed as JSON signed with ' +
    'HMAC-SHA256. Requires a Pro plan (sign-in, scope "alerts").',
  input: InputSchema,
  output: OutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scope: 'alerts',
  port: 'port_id',
  async run({ input, port, owner }, deps) {
    requireLane(port, input);
    if (input.webhook_url) {
      const problem = webhookUrlProblem(input.webhook_url, deps.settings.allowPrivateWebhooks);
      if (problem) throw new ToolError(`${problem}.`);
    }
    const nowIso = new Date(deps.clock.now()).toISOString();
    const id = `al_${deps.newId()}`;
    const secret = input.webhook_url ? webhookSecretOf(await deps.settings.webhookSigningKey(), id) : null;
    // A slot first (atomic), then the alert: concurrent calls cannot pass the cap.
    const reserved = await deps.alertQuota.reserve(
      owner,
      MAX_ALERTS_PER_OWNER,
      async () => (await deps.alerts.listByOwner(owner)).length,
    );
    if (!reserved) {
      throw new ToolError(
        `You have ${MAX_ALERTS_PER_OWNER} alerts, the most allowed; delete one with delete_alert first.`,
      );
    }
    const alert: Alert = {
      id,
      owner,
      portId: port.id,
      direction: input.direction,
      mode: input.mode,
      lane: input.lane,
      comparison: input.comparison,
      thresholdMinutes: input.threshold_minutes,
      cooldownMinutes: input.cooldown_minutes,
      webhookUrl: input.webhook_url ?? null,
      createdAt: nowIso,
      lastFiredAt: null,
      lastFiredObservedAt: null,
      firings: [],
    };
    try {
      await deps.alerts.put(alert);
    } catch (error: unknown) {
      await deps.alertQuota.release(owner).catch(() => undefined);
      throw error;
    }
    return {
      structured: {
        generatedAt: nowIso,
        alert: alertView(alert, port.timeZone),
        webhookSecret: secret,
        signature:
          'Header webhook-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with webhookSecret>',
      },
      text: `Alert ${alert.id} created: ${placeName(port)} ${alert.direction} ${alert.mode} ${alert.lane} ${alert.comparison} ${alert.thresholdMinutes} min.`,
    };
  },
});
