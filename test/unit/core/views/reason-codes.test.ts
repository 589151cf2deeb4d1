import { describe, expect, it } from 'vitest';
import { REASON_CODES, reasonOf } from '../../../../functions/core/views/reason-codes.ts';
import { LANGS, STRINGS } from '../../../../site/src/i18n.ts';

describe('reason codes', () => {
  it.each([
    { parts: [], reason: null, codes: [] },
    { parts: [null, undefined], reason: null, codes: [] },
    {
      parts: [{ code: 'no-recent-reading', text: 'no reading with a wait in the last 3 hours' } as const],
      reason: 'no reading with a wait in the last 3 hours',
      codes: ['no-recent-reading'],
    },
    {
      parts: [
        { code: 'cbp-typical', text: 'starts from CBP' } as const,
        null,
        { code: 'partial-history', text: 'not enough history for 5 of 9 points' } as const,
        { code: 'cbp-typical', text: 'again' } as const,
      ],
      reason: 'starts from CBP; not enough history for 5 of 9 points; again',
      codes: ['cbp-typical', 'partial-history'],
    },
  ])('joins $codes', ({ parts, reason, codes }) => {
    expect(reasonOf(parts)).toEqual({ reason, reasonCodes: codes });
  });

  it.each(LANGS)('every code has a %s sentence on the site', (lang) => {
    const reasons = STRINGS[lang].travel.reasons as Record<string, string>;
    for (const code of REASON_CODES) expect(reasons[code], `${lang} ${code}`).toMatch(/\S/);
  });
});
