/**
 * The tool registry is the one place a tool's scope is stated: the OAuth gate's TOOL_SCOPES is
 * derived from it, and each tool's description tells the assistant the same tier.
 */
import { describe, expect, it } from 'vitest';
import { requiredScopesFor, TOOL_SCOPES } from '../../../functions/mcp/auth.ts';
import { TOOLS } from '../../../functions/mcp/registry.ts';
import { TIER_OF_SCOPE } from '../../../functions/mcp/scopes.ts';

const PLAN_NAMES = { pro: 'Pro', business: 'Business' } as const;

describe('the tool registry', () => {
  it('names every tool once, verb_noun in snake_case', () => {
    const names = TOOLS.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z]+(_[a-z]+)+$/);
  });

  it('is where the gate reads each scope: TOOL_SCOPES lists exactly the tools that state one', () => {
    const stated = Object.fromEntries(TOOLS.flatMap((tool) => (tool.scope ? [[tool.name, tool.scope]] : [])));
    expect(TOOL_SCOPES).toEqual(stated);
    expect(Object.keys(TOOL_SCOPES).length).toBeGreaterThan(0);
  });

  it.each(TOOLS.map((tool) => [tool.name, tool] as const))(
    '%s: the gate asks for the scope the tool states',
    (name, tool) => {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } };
      expect(requiredScopesFor(body)).toEqual(tool.scope ? [tool.scope] : []);
    },
  );
});

describe('tool descriptions', () => {
  it.each(TOOLS.map((tool) => [tool.name, tool] as const))(
    '%s states the tier its scope belongs to',
    (_name, tool) => {
      const { description } = tool;
      if (tool.scope) {
        const plan = PLAN_NAMES[TIER_OF_SCOPE[tool.scope]];
        expect(description).toContain(`Requires a ${plan} plan (sign-in, scope "${tool.scope}")`);
      } else {
        expect(description).toMatch(/Anonymous/);
      }
    },
  );
});
