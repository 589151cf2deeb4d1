/**
 * MCP is liberal in what it accepts: the SDK's own client sends numeric-looking ids as numbers and
 * numbers as strings ("24"), as the MCP Inspector CLI and many assistants do, and every tool
 * answers as it would the canonical spelling. What is wrong stays wrong, with the schema's message.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { coerceArguments } from '../../functions/mcp/tool-kit.ts';
import { connectClient, ERAS, tokenFor } from './mcp-support.ts';
import { startStack, type TestStack } from './stack.ts';

const AT = Date.parse('2026-11-18T17:10:30Z');

type Result = {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { text?: string }[];
};

describe.each(ERAS)('the SDK client sending numbers (%s)', (era) => {
  let stack: TestStack;
  let anonymous: Client;
  let business: Client;
  beforeAll(async () => {
    stack = await startStack({ atMs: AT });
    await stack.service.ingestNow();
    anonymous = await connectClient(stack, era);
    business = await connectClient(stack, era, await tokenFor(stack, 'business'));
  });
  afterAll(async () => {
    await anonymous?.close();
    await business?.close();
    await stack?.stop();
  });

  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Result;

  it.each([
    ['get_current_waits', { port_id: 250401 }, { port_id: '250401' }],
    ['get_current_waits', { port_id: 'SAN-YSIDRO' }, { port_id: '250401' }],
    [
      'compare_crossings',
      { direction: 'into-us', port_ids: ['San-Ysidro', 'L24501'] },
      { direction: 'into-us', port_ids: ['250401', 'l24501'] },
    ],
    [
      'best_time_to_cross',
      { port_id: 250401, direction: 'into-us', min_samples: '1', limit: '3' },
      { port_id: '250401', direction: 'into-us', min_samples: 1, limit: 3 },
    ],
    [
      'compare_crossings',
      { direction: 'into-us', port_ids: [250401, 250601], limit: '2' },
      { direction: 'into-us', port_ids: ['250401', '250601'], limit: 2 },
    ],
    ['get_wait_history', { port_id: 250401, hours: '2' }, { port_id: '250401', hours: 2 }],
    [
      'export_observations',
      { port_ids: [250401], hours: '1', format: 'json' },
      { port_ids: ['250401'], hours: 1, format: 'json' },
    ],
    [
      'create_alert',
      { port_id: 250401, direction: 'into-us', threshold_minutes: '20', cooldown_minutes: '30' },
      { port_id: '250401', direction: 'into-us', threshold_minutes: 20, cooldown_minutes: 30 },
    ],
  ] as const)('%s answers %j as it answers the canonical spelling', async (name, spelled, canonical) => {
    const client = ['get_wait_history', 'export_observations', 'create_alert'].includes(name)
      ? business
      : anonymous;
    const plain = await call(client, name, canonical);
    expect(plain.isError, JSON.stringify(plain.content)).toBeFalsy();
    const liberal = await call(client, name, spelled);
    expect(liberal.isError, JSON.stringify(liberal.content)).toBeFalsy();
    if (name !== 'create_alert' && name !== 'export_observations') {
      const { generatedAt: _a, ...left } = plain.structuredContent ?? {};
      const { generatedAt: _b, ...right } = liberal.structuredContent ?? {};
      expect(right).toEqual(left);
    }
  });

  it('still refuses what no spelling makes right, with the schema message', async () => {
    const wrong = await call(business, 'get_wait_history', { port_id: 250401, hours: 'two' });
    expect(wrong.isError).toBe(true);
    expect(JSON.stringify(wrong.content)).toMatch(/hours/);
    const negative = await call(anonymous, 'get_current_waits', { port_id: -5 });
    expect(negative.isError).toBe(true);
  });

  it('advertises the canonical types: ids are strings, hours a number', async () => {
    const { tools } = await anonymous.listTools();
    const current = tools.find((t) => t.name === 'get_current_waits');
    expect((current?.inputSchema.properties?.port_id as { type?: string } | undefined)?.type).toBe('string');
  });
});

describe('coerceArguments', () => {
  const schema = z.object({
    id: z.string(),
    ids: z.array(z.string()).optional(),
    hours: z.number().int().default(24),
    counts: z.array(z.number()).optional(),
    name: z.enum(['a', 'b']).optional(),
  });

  it('respells ids sent as numbers and numbers sent as strings, arrays element by element', () => {
    expect(coerceArguments(schema, { id: 250401, ids: [1, '2'], hours: ' 24 ', counts: ['3', 4] })).toEqual({
      id: '250401',
      ids: ['1', '2'],
      hours: 24,
      counts: [3, 4],
    });
  });

  it('leaves what it cannot respell for the schema to refuse', () => {
    const input = { id: { x: 1 }, hours: 'two', name: 7, extra: '5' };
    expect(coerceArguments(schema, input)).toEqual(input);
    expect(coerceArguments(schema, null)).toBeNull();
    expect(coerceArguments(schema, [1])).toEqual([1]);
    expect(coerceArguments(schema, { id: Number.NaN })).toEqual({ id: Number.NaN });
  });
});
