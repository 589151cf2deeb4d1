/**
 * Stable codes for the reasons a forecast document gives in English (`reason`), so a client can
 * say them in its own language: the site translates the codes, and keeps the English for none.
 * Each part of a reason (parts are joined by "; ") has one code; a part this table does not know
 * is `other`. No imports: the site's browser scripts read this file too.
 */
export const REASON_CODES = [
  'no-recent-reading',
  'no-wait-now',
  'not-enough-history',
  'partial-history',
  'no-champion-yet',
  'champion-lowest-error',
  'champion-differs',
  'cbp-typical',
  'other',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

/** The first pattern a part matches gives its code (the forecaster's own wordings). */
const PATTERNS: readonly (readonly [RegExp, ReasonCode])[] = [
  [/^no reading with a wait/i, 'no-recent-reading'],
  [/^the lane reports no wait/i, 'no-wait-now'],
  [/^not enough history for \d+ of \d+/i, 'partial-history'],
  [/not enough history|no model forecast for this point/i, 'not-enough-history'],
  [/^no champion yet|^no track record yet/i, 'no-champion-yet'],
  [/^lowest mean absolute error/i, 'champion-lowest-error'],
  [/^the champion differs by horizon/i, 'champion-differs'],
  [/\bCBP'?s typical wait|typical wait \(CBP|from CBP/i, 'cbp-typical'],
];

/** The codes of a reason, one per part, in order, without repeats; `[]` for no reason. */
export function reasonCodes(reason: string | null | undefined): ReasonCode[] {
  if (!reason) return [];
  const codes = reason
    .split(/;\s*/)
    .filter((part) => part.trim() !== '')
    .map((part) => PATTERNS.find(([pattern]) => pattern.test(part.trim()))?.[1] ?? 'other');
  return [...new Set(codes)];
}
