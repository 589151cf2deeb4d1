import * as z from 'zod';
import { guarded, liberal, ok, READ_ONLY, requireScope, type ToolRegistrar } from '../tool-kit.ts';
import { AlertViewSchema, alertView } from './alert-schema.ts';

const OutputSchema = z.object({
  generatedAt: z.string(),
  count: z.number().int(),
  alerts: z.array(AlertViewSchema),
});

export const registerListAlerts: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'list_alerts',
    {
      title: 'List my alerts',
      description:
        'Your alerts with their recent firings (time, wait in minutes, the reading observedAt, webhook ' +
        'delivery status and attempts). Only your own alerts. Requires a Pro plan (sign-in, scope "alerts").',
      inputSchema: liberal(z.object({})),
      outputSchema: OutputSchema,
      annotations: READ_ONLY,
    },
    async (_input, ctx) =>
      guarded(async () => {
        const owner = requireScope(ctx.http?.authInfo, 'alerts', deps.settings.upgradeUrl);
        if (typeof owner !== 'string') return owner;
        const alerts = await deps.alerts.listByOwner(owner);
        return ok(
          OutputSchema,
          {
            generatedAt: new Date(deps.clock.now()).toISOString(),
            count: alerts.length,
            alerts: alerts.map(alertView),
          },
          `${alerts.length} alert(s)${alerts.length ? `: ${alerts.map((a) => `${a.id} (${a.firings.length} firing(s))`).join(', ')}` : ''}.`,
        );
      }),
  );
};
