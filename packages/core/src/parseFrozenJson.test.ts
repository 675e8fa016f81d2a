import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, copyFrozenJson, deepFreezeJson, jsonHeight, parseFrozenJson } from './index.js';
import type { Json } from './index.js';

/** What deepFreezeJson does with a value: its height and canonical text, or the error it throws. */
function outcome(value: unknown): { height: number; text: string; copy: boolean } | { error: string } {
  try {
    deepFreezeJson(value);
  } catch (error) {
    return { error: String(error) + JSON.stringify((error as { details?: unknown }).details ?? null) };
  }
  return { height: jsonHeight(value), text: canonicalJson(value), copy: copyFrozenJson(value as Json) === value };
}

const nested = (open: string, close: string, depth: number, inner: string) => open.repeat(depth) + inner + close.repeat(depth);

/** JSON texts, and texts JSON.parse takes whose values are not JSON (the two rules left to check) or are not proven. */
const texts = fc.oneof(
  fc.json(),
  fc.json().map((text) => text.replace(/(?<![\d.eE+-])(\d+)(?=[,\]}]|$)/, '$1e999')),
  fc.tuple(fc.json(), fc.constantFrom('\\ud800', '\\uDC00', '\\uD83D\\uDE00', '\\u00e9', '\ud800', '\u{1F600}', 'x')).map(([text, inject]) => text.replace(/"/, `"${inject}`)),
  fc.tuple(fc.integer({ min: 250, max: 260 }), fc.constantFrom('1', '1e999', '"\\ud800"', '{}', '[]')).map(([depth, inner]) => nested('[', ']', depth, inner)),
  fc.tuple(fc.integer({ min: 250, max: 260 }), fc.json()).map(([depth, inner]) => nested('{"a":', '}', depth, inner)),
).filter((text) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
});

describe('parseFrozenJson', () => {
  it('leads deepFreezeJson to exactly what it does with JSON.parse of the same text (value, height, canonical text, error and path)', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(outcome(parseFrozenJson(text))).toEqual(outcome(JSON.parse(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it('freezes and remembers what it proves JSON, and leaves for the full walk what it does not', () => {
    const value = parseFrozenJson('{"b":[1,{"c":"d"}],"a":{"x":1e999},"e":{"f":true}}') as Record<string, Record<string, unknown>>;
    // The infinite number: its object and the root are not proven; what was proven before it is.
    expect(Object.isFrozen(value) || Object.isFrozen(value.a)).toBe(false);
    expect(Object.isFrozen(value.b)).toBe(true);
    expect(copyFrozenJson(value.b as Json)).toBe(value.b);
    expect(() => deepFreezeJson(value)).toThrow(/not finite/);
    // Keys out of canonical order (an index-like key is listed first whatever the text says): the canonical text still sorts them.
    const unordered = parseFrozenJson('{"b":1,"a":{"z":[],"10":2,"9":3}}');
    expect(Object.isFrozen(unordered)).toBe(true);
    expect(canonicalJson(unordered)).toBe('{"a":{"10":2,"9":3,"z":[]},"b":1}');
    // A surrogate escape (even a valid pair) or a lone surrogate in the text: nothing proven, the walk decides.
    for (const text of ['{"a":["\\ud83d\\ude00"]}', '{"a":["\ud800"]}']) expect(Object.isFrozen((parseFrozenJson(text) as { a: object }).a)).toBe(false);
    expect(() => deepFreezeJson(parseFrozenJson('{"a":["\\ud800"]}'))).toThrow(/lone surrogate/);
    // Nesting: 256 levels are JSON, 257 are not.
    expect(jsonHeight(parseFrozenJson(nested('[', ']', 256, '1')))).toBe(256);
    expect(Object.isFrozen(parseFrozenJson(nested('[', ']', 257, '1')))).toBe(false);
    expect(() => deepFreezeJson(parseFrozenJson(nested('[', ']', 257, '1')))).toThrow(/deeper than 256/);
    expect(() => parseFrozenJson('{"a":')).toThrow(SyntaxError);
  });
});
