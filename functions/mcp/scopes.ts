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

/**
 * A tier name as the token states it, or null when it names none of ours. Own properties only: a
 * claim such as `constructor` or `__proto__` must not find what `Object.prototype` has.
 */
export function knownTier(tier: unknown): Tier | null {
  return typeof tier === 'string' && Object.hasOwn(TIERS, tier) ? (tier as Tier) : null;
}

/** The user's tier from the verified token, or null when the IdP states none. */
export function tierOf(auth: AuthInfo | undefined): Tier | null {
  return knownTier(auth?.extra?.tier);
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
