/**
 * The OpenAPI document says what the server does: for every query parameter of every view and
 * every field of the key-request body, a value the document's schema accepts is a value the server
 * accepts, and the other way round (ajv on the served JSON Schema against the handlers' own zod
 * parsing), on drawn values weighted toward the edges (0, control characters, blank honeypots).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiConfigSchema, parseConfig } from '../../../functions/config.ts';
import { hasControlCharacters, KeyRequestInputSchema } from '../../../functions/core/access/key-requests.ts';
import { API_VIEWS } from '../../../functions/core/api/api-views.ts';
import { accessPoliciesOf } from '../../../functions/http/access.ts';
import { buildOpenApi } from '../../../functions/http/openapi.ts';
import { LIMITS } from '../../../infra/manifest.ts';

type Json = Record<string, unknown>;
const config = parseConfig(ApiConfigSchema, {});
const document = buildOpenApi({
  ...accessPoliciesOf(config),
  pushHosts: config.PUSH_SERVICE_HOSTS,
  edgePerMinute: LIMITS.edgePerMinute,
}) as Json & { paths: Record<string, Record<string, { parameters?: { name: string; schema: Json }[] }>> };
const ajv = new Ajv2020({ strict: false });

const digits = fc.oneof(
  fc.constantFrom(
    '0',
    '00',
    '000',
    '1',
    '01',
    '24',
    '336',
    '337',
    '999999999',
    '1000000000',
    '-1',
    '1.5',
    ' 1',
    '',
  ),
  fc.stringMatching(/^\d{1,11}$/),
);
const anything = fc.oneof(
  digits,
  fc.string({ maxLength: 20 }),
  fc.constantFrom('mx', 'ca', 'ports', 'into-us', 'san-ysidro', 'x'.repeat(70)),
);

describe('query parameters', () => {
  const cases = Object.values(API_VIEWS).flatMap((view) =>
    (document.paths[view.path]?.get?.parameters ?? []).map(
      (p) => [`${view.path} ${p.name}`, view, p] as const,
    ),
  );

  it('cover every view', () => {
    expect(cases.length).toBeGreaterThan(5);
  });

  it.each(cases)('%s: the document accepts exactly what the server accepts', (_name, view, parameter) => {
    const validate = ajv.compile(parameter.schema);
    const field = view.query.shape[parameter.name];
    if (!field) throw new Error(`no zod field ${parameter.name}`);
    fc.assert(
      fc.property(anything, (value) => {
        expect(validate(value), JSON.stringify(value)).toBe(field.safeParse(value).success);
      }),
      { numRuns: 300 },
    );
  });

  it('hours: the document refuses 0, as the server does', () => {
    const hours = document.paths['/api/v1/wait-observations']?.get?.parameters?.find(
      (p) => p.name === 'hours',
    );
    const validate = ajv.compile(hours?.schema ?? {});
    expect(['0', '00'].map((v) => validate(v))).toEqual([false, false]);
    expect(['1', '01', '336'].map((v) => validate(v))).toEqual([true, true, true]);
  });
});

describe('the key-request body', () => {
  const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
  const input = schemas.KeyRequestInput as { properties: Record<string, Json> };
  // Characters around the edges of the refused set, white space among them.
  const unit = fc.constantFrom(
    'a',
    'é',
    ' ',
    '\t',
    '\n',
    '\r',
    '\v',
    '\f',
    '\u0000',
    '\u0007',
    '\u001b',
    '\u001f',
    '\u007f',
    '\u0085',
    '\u009f',
    '\u00a0',
    '\u061c',
    '\u200e',
    '\u202e',
    '\u2066',
    '\u2069',
    '\u2028',
    '\ufeff',
  );
  const text = (min: number) =>
    fc
      .tuple(fc.string({ unit, maxLength: 8 }), fc.string({ unit, maxLength: 8 }))
      .map(([head, tail]) => `${head}${'x'.repeat(min)}${tail}`);

  it.each([
    ['name', 1, false],
    ['organisation', 1, false],
    ['use', 10, true],
  ] as const)(
    '%s: the documented pattern refuses exactly the control characters the server refuses',
    (field, min, breaks) => {
      const validate = ajv.compile(input.properties[field] ?? {});
      const zod = KeyRequestInputSchema.shape[field];
      fc.assert(
        fc.property(text(min), (value) => {
          expect(validate(value), JSON.stringify(value)).toBe(zod.safeParse(value).success);
          expect(zod.safeParse(value).success).toBe(!hasControlCharacters(value.trim(), breaks));
        }),
        { numRuns: 400 },
      );
    },
  );

  it('website (the honeypot): the document accepts exactly what the form handler lets through', () => {
    const validate = ajv.compile(input.properties.website ?? {});
    expect(String(input.properties.website?.description)).toMatch(/empty or blank/);
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 6 }), (value) => {
        // functions/http/key-requests.ts: a string with anything but white space is refused.
        const passesHoneypot = value.trim() === '';
        expect(validate(value), JSON.stringify(value)).toBe(passesHoneypot);
      }),
      { numRuns: 300 },
    );
  });
});
