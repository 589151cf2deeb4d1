/**
 * Scopes are permissions; tiers are plans that entitle a user to scopes. Shared by the OAuth gate
 * (auth.ts), the tools (each states the scope it needs) and the development IdP.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';

export const SCOPES = { alerts: 'alerts', history: 'history' } as const;
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];
export const SCOPES_SUPPORTED: readonly Scope[] = ['alerts', 'history'];

export const TIERS = { pro: ['alerts'], business: ['alerts', 'history'] } as const satisfies Record<
  string,
  readonly Scope[]
>;
export type Tier = keyof typeof TIERS;

/** The tier that includes a scope, for messages. */
export const TIER_OF_SCOPE: Readonly<Record<Scope, Tier>> = { alerts: 'pro', history: 'business' };

/** The user's tier from the verified token, or null when the IdP states none. */
export function tierOf(auth: AuthInfo | undefined): Tier | null {
  const tier = auth?.extra?.tier;
  return typeof tier === 'string' && tier in TIERS ? (tier as Tier) : null;
}

/**
 * Whether the user's plan includes `scope`. A token that states no known plan is entitled to no
 * paid tool, whatever scopes it carries: scopes say what a client may ask for, the tier what the
 * user has paid for, and an IdP that forgets the claim must not open the paid tiers.
 */
export function planIncludes(auth: AuthInfo, scope: Scope): boolean {
  const tier = tierOf(auth);
  return tier !== null && (TIERS[tier] as readonly Scope[]).includes(scope);
}
