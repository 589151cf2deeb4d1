import * as z from 'zod';
import {
  DIRECTIONS,
  LANES,
  MODES,
  OBSERVATION_CSV_COLUMNS,
  type Observation,
  RETENTION_HOURS,
} from '../../core/model.ts';
import { EXPORTS_PREFIX } from '../../core/stores.ts';
import { PortIdSchema } from '../../core/views/queries.ts';
import { defineTool, ToolError } from '../define-tool.ts';
import { lookBackHours } from '../tool-kit.ts';

const MAX_PORTS = 10;
const MAX_ROWS = 100_000;

const InputSchema = z.object({
  port_ids: z.array(PortIdSchema).min(1).max(MAX_PORTS).describe(`1-${MAX_PORTS} crossings (ids or slugs)`),
  hours: lookBackHours(`Look-back window, 1-${RETENTION_HOURS} hours`),
  format: z.enum(['csv', 'json']).default('csv'),
  direction: z.enum(DIRECTIONS).optional(),
  mode: z.enum(MODES).optional(),
  lane: z.enum(LANES).optional(),
});

const OutputSchema = z.object({
  generatedAt: z.string(),
  source: z.string(),
  format: z.enum(['csv', 'json']),
  ports: z.array(z.string()),
  timeZones: z
    .record(z.string(), z.string())
    .describe("Each port's IANA time zone, by port id (observedAt, from and to are UTC)"),
  from: z.string(),
  to: z.string(),
  rows: z.number().int(),
  bytes: z.number().int(),
  delivery: z.enum(['inline', 'link']),
  url: z.string().nullable().describe('Short-lived download URL (link delivery)'),
  expiresAt: z.string().nullable(),
});

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(rows: readonly Observation[]): string {
  const lines = [OBSERVATION_CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(OBSERVATION_CSV_COLUMNS.map((c) => csvCell(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export const exportObservationsTool = defineTool({
  name: 'export_observations',
  title: 'Export observations',
  description:
    `Observations (waits in minutes, observedAt in UTC, source) of 1-${MAX_PORTS} crossings over up to ${RETENTION_HOURS} hours ` +
    'as CSV or JSON. Small exports come inline as an embedded resource; larger ones as a resource link ' +
    'to a download URL that expires (15 minutes by default). Requires a Business plan (sign-in, scope "history").',
  input: InputSchema,
  output: OutputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  scope: 'history',
  port: 'port_ids',
  async run({ input, ports }, deps) {
    const portIds = ports.map((port) => port.id);
    const rows: Observation[] = [];
    let from = '';
    let to = '';
    for (const portId of portIds) {
      // The whole window, page by page (each page's cursor keeps the first page's window).
      let cursor: string | undefined;
      do {
        const result = await deps.readApi.observations({
          port_id: portId,
          hours: input.hours,
          direction: input.direction,
          mode: input.mode,
          lane: input.lane,
          cursor,
        });
        if (cursor === undefined) {
          from = result.body.from;
          to = result.body.to;
        }
        for (const o of result.body.observations) rows.push({ portId, fetchedAt: '', ...o });
        cursor = result.nextCursor ?? undefined;
      } while (cursor !== undefined && rows.length <= MAX_ROWS);
    }
    if (rows.length > MAX_ROWS) {
      throw new ToolError(`That is ${rows.length} rows, above ${MAX_ROWS}; export fewer ports or hours.`);
    }
    const nowMs = deps.clock.now();
    const body =
      input.format === 'csv'
        ? toCsv(rows)
        : `${JSON.stringify({ ports: portIds, from, to, observations: rows.map(({ fetchedAt: _f, ...o }) => o) })}\n`;
    const bytes = Buffer.byteLength(body, 'utf8');
    const mimeType = input.format === 'csv' ? 'text/csv' : 'application/json';
    const name = `observations-${portIds.join('-')}-${input.hours}h.${input.format}`;
    const summary = {
      generatedAt: new Date(nowMs).toISOString(),
      source: 'stored observations of the CBP and CBSA feeds',
      format: input.format,
      ports: portIds,
      timeZones: Object.fromEntries(ports.map((port) => [port.id, port.timeZone])),
      from,
      to,
      rows: rows.length,
      bytes,
    };
    if (bytes <= deps.settings.exportInlineMaxBytes) {
      return {
        structured: { ...summary, delivery: 'inline' as const, url: null, expiresAt: null },
        text: `${rows.length} observations of ${portIds.join(', ')} from ${from} to ${to}, inline (${bytes} bytes).`,
        content: [
          { type: 'resource', resource: { uri: `border-waits://exports/${name}`, mimeType, text: body } },
        ],
      };
    }
    const ttl = deps.settings.exportUrlTtlSeconds;
    const key = `${EXPORTS_PREFIX}${deps.newId()}/${name}`;
    const url = await deps.exports.publish(key, body, mimeType, ttl);
    const expiresAt = new Date(nowMs + ttl * 1000).toISOString();
    return {
      structured: { ...summary, delivery: 'link' as const, url, expiresAt },
      text: `${rows.length} observations of ${portIds.join(', ')} from ${from} to ${to} (${bytes} bytes); download them before ${expiresAt}.`,
      content: [
        { type: 'resource_link', uri: url, name, mimeType, size: bytes, description: `Expires ${expiresAt}` },
      ],
    };
  },
});
