/**
 * Records the core keeps and serves as they are must be the very types their response schemas
 * describe (a compile-time check: `npm run typecheck` fails where they part), and the examples the
 * OpenAPI document shows must pass their own schemas.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { HourlyAverage } from '../../../../functions/core/model.ts';
import {
  AveragesBodySchema,
  BODY_EXAMPLES,
  type BodyOf,
  CurrentBodySchema,
  ForecastBodySchema,
  type HourlyAverageSchema,
  ObservationsBodySchema,
  PortsBodySchema,
} from '../../../../functions/core/views/api-schemas.ts';

describe('response schemas', () => {
  it('an hourly-averages row is the HourlyAverage record the rollups store keeps', () => {
    expectTypeOf<BodyOf<typeof HourlyAverageSchema>>().toEqualTypeOf<HourlyAverage>();
  });

  it.each([
    ['ports', PortsBodySchema],
    ['current', CurrentBodySchema],
    ['observations', ObservationsBodySchema],
    ['averages', AveragesBodySchema],
    ['forecast', ForecastBodySchema],
  ] as const)('the %s example passes its schema', (name, schema) => {
    expect(schema.safeParse(BODY_EXAMPLES[name]).error).toBeUndefined();
  });
});
