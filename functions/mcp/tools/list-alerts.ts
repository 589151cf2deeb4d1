import * as z from 'zod';
import { AlertViewSchema, alertView } from '../alert-view.ts';
import { defineTool } from '../define-tool.ts';
import { sentences } from '../tool-kit.ts';

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
    const ports = new Map((await deps.readApi.listPorts()).map((port) => [port.id, port]));
    return {
      structured: {
        generatedAt: new Date(deps.clock.now()).toISOString(),
        count: alerts.length,
        alerts: alerts.map((a) => alertView(a, ports.get(a.portId)?.timeZone ?? 'UTC')),
      },
      text: sentences(
        alerts.length === 0 ? 'You have no alerts' : `You have ${alerts.length} alert(s)`,
        ...alerts.map(
          (a) =>
            `${a.id}: ${ports.get(a.portId)?.name ?? a.portId} ${a.direction} ${a.mode} ${a.lane} ${a.comparison} ${a.thresholdMinutes} min, fired ${a.firings.length} time(s)${a.lastFiredAt ? `, last at ${a.lastFiredAt}` : ''}`,
        ),
      ),
    };
  },
});
