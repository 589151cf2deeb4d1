import { describe, expect, it } from 'vitest';
import { REASON_CODES, reasonCodes } from '../../../../functions/core/views/reason-codes.ts';

describe('reason codes', () => {
  it.each([
    ['no reading with a wait in the last 3 hours: nothing to forecast from', ['no-recent-reading']],
    ['the lane reports no wait now (closed or not reported): nothing to forecast from', ['no-wait-now']],
    [
      'not enough history: the hour-of-week profile has fewer than 2 samples for the coming hours (about two weeks of readings are needed), so no model forecast is published',
      ['not-enough-history'],
    ],
    [
      'not enough history for 5 of 9 points: their hours have fewer than 2 samples in the hour-of-week profile; no champion yet: the track record has 3 scored forecasts at +15 min, below the minimum of 50, so the model is published',
      ['partial-history', 'no-champion-yet'],
    ],
    ['lowest mean absolute error over the last 28 days (n=2400)', ['champion-lowest-error']],
    ['the champion differs by horizon (see each point)', ['champion-differs']],
    ['something new', ['other']],
    [null, []],
  ])('reads %j as %j', (reason, codes) => {
    expect(reasonCodes(reason)).toEqual(codes);
    for (const code of codes) expect(REASON_CODES).toContain(code);
  });
});
