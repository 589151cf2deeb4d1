/**
 * Stable codes for the reasons a forecast document gives in English (`reason`), so a client can
 * say them in its own language: the site translates the codes. The forecaster writes each part of a
 * reason with its code (parts are joined by "; " in `reason`, and their codes listed in
 * `reasonCodes`). No imports: the site's browser scripts read this file too.
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
  'port-hours',
  'other',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

/** One part of a reason: its English sentence and the code a client translates. */
export interface ReasonPart {
  code: ReasonCode;
  text: string;
}

/** The English reason (the parts' texts joined by "; ", null for none) and the parts' codes, in order, without repeats. */
export function reasonOf(parts: readonly (ReasonPart | null | undefined)[]): {
  reason: string | null;
  reasonCodes: ReasonCode[];
} {
  const present = parts.filter((part): part is ReasonPart => part !== null && part !== undefined);
  return {
    reason: present.map((part) => part.text).join('; ') || null,
    reasonCodes: [...new Set(present.map((part) => part.code))],
  };
}
