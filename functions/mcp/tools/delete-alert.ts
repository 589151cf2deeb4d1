import * as z from 'zod';
import { guarded, liberal, ok, requireScope, type ToolRegistrar, toolError } from '../tool-kit.ts';

const InputSchema = z.object({
  alert_id: z
    .string()
    .regex(/^al_[A-Za-z0-9-]{1,64}$/, 'an alert id such as al_...')
    .describe('Id from list_alerts'),
});

const OutputSchema = z.object({ generatedAt: z.string(), deleted: z.string() });

export const registerDeleteAlert: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'delete_alert',
    {
      title: 'Delete an alert',
      description:
        'Deletes one of your alerts and its firing history. Requires a Pro plan (sign-in, scope "alerts").',
      inputSchema: liberal(InputSchema),
      outputSchema: OutputSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (input, ctx) =>
      guarded(async () => {
        const owner = requireScope(ctx.http?.authInfo, 'alerts', deps.settings.upgradeUrl);
        if (typeof owner !== 'string') return owner;
        // Another user's alert is indistinguishable from a missing one.
        if (!(await deps.alerts.delete(owner, input.alert_id))) {
          return toolError(`You have no alert ${input.alert_id}; list_alerts shows yours.`);
        }
        await deps.alertQuota.release(owner);
        return ok(
          OutputSchema,
          { generatedAt: new Date(deps.clock.now()).toISOString(), deleted: input.alert_id },
          `Alert ${input.alert_id} deleted.`,
        );
      }),
  );
};
