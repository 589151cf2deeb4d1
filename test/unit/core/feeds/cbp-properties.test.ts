/**
 * Property tests: whatever the input, the CBP parsers either return data or throw
 * `FeedFormatError`, and they never invent a number.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FeedFormatError } from '../../../../functions/core/errors.ts';
import { parseCbpJson } from '../../../../functions/core/feeds/cbp-json.ts';
import { parseCbpXml } from '../../../../functions/core/feeds/cbp-xml.ts';
import { detectFormat, parseFeed } from '../../../../functions/core/feeds/index.ts';
import type { ParsedFeed } from '../../../../functions/core/model.ts';
import { at, ownFixture } from './cbp-fixtures.ts';

const RUNS = 300;
const XML_FETCHED_AT = at('2023-11-10T06:55:05Z');
const JSON_FETCHED_AT = at('2022-06-29T17:25:15Z');
const xmlText = new TextDecoder('latin1').decode(ownFixture('bwt-quirks.xml'));
const jsonValue: unknown = JSON.parse(new TextDecoder().decode(ownFixture('bwtnew-quirks.json')));

/** The parse result, or null when it threw FeedFormatError; any other error escapes. */
function outcome(parse: () => ParsedFeed): ParsedFeed | null {
  try {
    return parse();
  } catch (error: unknown) {
    if (error instanceof FeedFormatError) return null;
    throw error;
  }
}

/** Every number the text spells, and every `h hr(s) m min` phrase as h*60+m. */
function numbersIn(text: string): Set<number> {
  const numbers = new Set<number>();
  for (const match of text.matchAll(/\d+/g)) numbers.add(Number(match[0]));
  for (const match of text.matchAll(/(\d+) ?hrs?(?: ?(\d+) ?min)?/gi)) {
    numbers.add(Number(match[1]) * 60 + Number(match[2] ?? 0));
  }
  return numbers;
}

function expectHonest(feed: ParsedFeed | null, input: string, fetchedAt: number): void {
  if (feed === null) return;
  const numbers = numbersIn(input);
  for (const reading of feed.readings) {
    for (const value of [reading.delayMinutes, reading.lanesOpen, reading.maxLanes]) {
      if (value !== null) expect(numbers.has(value), `${value} is not in the input`).toBe(true);
    }
    if (reading.status === 'open') {
      expect(reading.delayMinutes).not.toBeNull();
      expect(Date.parse(reading.observedAt ?? '')).toBeLessThanOrEqual(fetchedAt + 600_000);
    } else {
      expect(reading).toMatchObject({ delayMinutes: null, lanesOpen: null, observedAt: null });
    }
  }
  // Every port element yields 7 lanes, read or refused.
  expect((feed.readings.length + feed.rejects.length) % 7).toBe(0);
  expect(feed.readings.length + feed.rejects.length).toBeGreaterThanOrEqual(7 * feed.ports.length);
}

type Mutation =
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'replace'; at: number; text: string }
  | { kind: 'drop'; index: number };

const fragment = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '<',
    '>',
    '/',
    '</port>',
    '<port>',
    '"',
    '{}',
    ',',
    ':',
    '[',
    ']',
    'N/A',
    '99',
    '1 hrs 35 min',
    '&amp;',
    'é',
    ' ',
  ),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fragment }),
  fc.record({
    kind: fc.constant('replace' as const),
    at: fc.nat(),
    text: fc.string({ minLength: 1, maxLength: 1 }),
  }),
  fc.record({ kind: fc.constant('drop' as const), index: fc.nat() }),
);

function mutateText(text: string, change: Exclude<Mutation, { kind: 'drop' }>): string {
  const position = text.length === 0 ? 0 : change.at % text.length;
  switch (change.kind) {
    case 'delete':
      return text.slice(0, position) + text.slice(position + change.length);
    case 'insert':
      return text.slice(0, position) + change.text + text.slice(position);
    case 'replace':
      return text.slice(0, position) + change.text + text.slice(position + 1);
  }
}

/** Removes the index-th element (start tag to its first closing tag) of the XML text. */
function dropXmlElement(text: string, index: number): string {
  const starts = [...text.matchAll(/<([A-Za-z_]+)>/g)];
  if (starts.length === 0) return text;
  const start = starts[index % starts.length];
  if (!start) return text;
  const close = `</${start[1]}>`;
  const end = text.indexOf(close, start.index);
  return end < 0 ? text : text.slice(0, start.index) + text.slice(end + close.length);
}

function mutateXml(changes: readonly Mutation[]): string {
  return changes.reduce(
    (text, change) =>
      change.kind === 'drop' ? dropXmlElement(text, change.index) : mutateText(text, change),
    xmlText,
  );
}

/** Every object key of a JSON value, as paths. */
function keyPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value);
  return entries.flatMap(([key, item]) => [[...prefix, key], ...keyPaths(item, [...prefix, key])]);
}

function dropJsonKey(value: unknown, index: number): unknown {
  const copy: unknown = structuredClone(value);
  const paths = keyPaths(copy);
  const path = paths[index % Math.max(paths.length, 1)];
  if (!path) return copy;
  let parent: unknown = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
  const last = path.at(-1);
  if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
  else if (parent !== null && typeof parent === 'object' && last !== undefined) {
    delete (parent as Record<string | number, unknown>)[last];
  }
  return copy;
}

function mutateJson(changes: readonly Mutation[]): string {
  let value = jsonValue;
  for (const change of changes) if (change.kind === 'drop') value = dropJsonKey(value, change.index);
  let text = JSON.stringify(value);
  for (const change of changes) if (change.kind !== 'drop') text = mutateText(text, change);
  return text;
}

describe('CBP parsers under arbitrary input', () => {
  it('throw nothing but FeedFormatError on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.json()), (input) => {
        expectHonest(
          outcome(() => parseCbpXml(input, { fetchedAt: XML_FETCHED_AT })),
          input,
          XML_FETCHED_AT,
        );
        expectHonest(
          outcome(() => parseCbpJson(input, { fetchedAt: JSON_FETCHED_AT })),
          input,
          JSON_FETCHED_AT,
        );
        outcome(() => parseFeed(input, detectFormat(input, 'text/plain')));
      }),
      { numRuns: RUNS },
    );
  });

  it('throw nothing but FeedFormatError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        const text = new TextDecoder('latin1').decode(bytes);
        expectHonest(
          outcome(() => parseCbpXml(bytes, { fetchedAt: XML_FETCHED_AT })),
          text,
          XML_FETCHED_AT,
        );
        expectHonest(
          outcome(() => parseCbpJson(bytes, { fetchedAt: JSON_FETCHED_AT })),
          text,
          JSON_FETCHED_AT,
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('throws nothing but FeedFormatError on arbitrary already parsed JSON values', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything()), (value) => {
        outcome(() => parseCbpJson(value, { fetchedAt: JSON_FETCHED_AT }));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('CBP parsers under random mutations of a valid document', () => {
  it('read the unmutated documents whole', () => {
    expect(parseCbpXml(xmlText, { fetchedAt: XML_FETCHED_AT }).ports).toHaveLength(12);
    expect(parseCbpJson(mutateJson([]), { fetchedAt: JSON_FETCHED_AT }).ports).toHaveLength(6);
  });

  it('the XML parser throws only FeedFormatError and never invents a number', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (changes) => {
        const input = mutateXml(changes);
        expectHonest(
          outcome(() => parseCbpXml(input, { fetchedAt: XML_FETCHED_AT })),
          input,
          XML_FETCHED_AT,
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('the XML parser still reads documents with elements dropped, refusing only what is missing', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), (indexes) => {
        const input = indexes.reduce((text, index) => dropXmlElement(text, index), xmlText);
        const feed = outcome(() => parseCbpXml(input, { fetchedAt: XML_FETCHED_AT }));
        expectHonest(feed, input, XML_FETCHED_AT);
      }),
      { numRuns: RUNS },
    );
  });

  it('the JSON parser throws only FeedFormatError and never invents a number', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (changes) => {
        const input = mutateJson(changes);
        expectHonest(
          outcome(() => parseCbpJson(input, { fetchedAt: JSON_FETCHED_AT })),
          input,
          JSON_FETCHED_AT,
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('the JSON parser reads values replaced by any JSON value without inventing numbers', () => {
    fc.assert(
      fc.property(fc.nat(), fc.jsonValue({ maxDepth: 2 }), (index, replacement) => {
        const value = structuredClone(jsonValue);
        const paths = keyPaths(value);
        const path = paths[index % paths.length] ?? [];
        let parent: unknown = value;
        for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
        const last = path.at(-1);
        if (parent !== null && typeof parent === 'object' && last !== undefined) {
          (parent as Record<string | number, unknown>)[last] = replacement;
        }
        const input = JSON.stringify(value);
        expectHonest(
          outcome(() => parseCbpJson(value, { fetchedAt: JSON_FETCHED_AT })),
          input,
          JSON_FETCHED_AT,
        );
      }),
      { numRuns: RUNS },
    );
  });
});
