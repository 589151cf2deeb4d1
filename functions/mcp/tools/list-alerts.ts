import * as z from 'zod';
import { placeName } from '../../core/catalogue/place-name.ts';
import type { PublishedPort } from '../../core/views/views.ts';
import { AlertViewSchema, alertView } from '../alert-view.ts';
import { defineTool } from '../define-tool.ts';
import { sentences } from '../tool-kit.ts';

const OutputSchema = z.object({
  generatedAt: z.string(),
  count: z.number().int(),
  alerts: z.array(AlertViewSchema),
});

/** A port's name as the texts give it, or its id when it is no longer listed. */
const placeOf = (portId: string, ports: ReadonlyMap<string, PublishedPort>) => {
  const port = ports.get(portId);
  return port ? placeName(port) : portId;
};

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
            `${a.id}: ${placeOf(a.portId, ports)} ${a.direction} ${a.mode} ${a.lane} ${a.comparison} ${a.thresholdMinutes} min, fired ${a.firings.length} time(s)${a.lastFiredAt ? `, last at ${a.lastFiredAt}` : ''}`,
        ),
      ),
    };
  },
});
