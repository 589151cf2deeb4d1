import * as z from 'zod';
import { defineTool, ToolError } from '../define-tool.ts';

const InputSchema = z.object({
  alert_id: z
    .string()
    .regex(/^al_[A-Za-z0-9-]{1,64}$/, 'an alert id such as al_...')
    .describe('Id from list_alerts'),
});

const OutputSchema = z.object({ generatedAt: z.string(), deleted: z.string() });

export const deleteAlertTool = defineTool({
  name: 'delete_alert',
  title: 'Delete an alert',
  description:
    'Deletes one of your alerts and its firing history. Requires a Pro plan (sign-in, scope "alerts").',
  input: InputSchema,
  output: OutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  scope: 'alerts',
  async run({ input, owner }, deps) {
    // Another user's alert is indistinguishable from a missing one.
    if (!(await deps.alerts.delete(owner, input.alert_id))) {
      throw new ToolError(`You have no alert ${input.alert_id}; list_alerts shows yours.`);
    }
    await deps.alertQuota.release(owner);
    return {
      structured: { generatedAt: new Date(deps.clock.now()).toISOString(), deleted: input.alert_id },
      text: `Alert ${input.alert_id} deleted.`,
    };
  },
});
