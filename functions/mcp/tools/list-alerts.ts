import * as z from 'zod';
import { AlertViewSchema, alertView } from '../alert-view.ts';
import { defineTool } from '../define-tool.ts';

const OutputSchema = z.object({
  generatedAt: z.string(),
  count: z.number().int(),
  alerts: z.array(AlertViewSchema),
});

export const listAlertsTool = defineTool({
  name: 'list_alerts',
  title: 'List my alerts',
  description:
    'Your alerts with their recent firings (time, wait in minutes, the reading observedAt, webhook ' +
    'delivery status and attempts). Only your own alerts. Requires a Pro plan (sign-in, scope "alerts").',
  input: z.object({}),
  output: OutputSchema,
  scope: 'alerts',
  async run({ owner }, deps) {
    const alerts = await deps.alerts.listByOwner(owner);
    return {
      structured: {
        generatedAt: new Date(deps.clock.now()).toISOString(),
        count: alerts.length,
        alerts: alerts.map(alertView),
      },
      text: `${alerts.length} alert(s)${alerts.length ? `: ${alerts.map((a) => `${a.id} (${a.firings.length} firing(s))`).join(', ')}` : ''}.`,
    };
  },
});
