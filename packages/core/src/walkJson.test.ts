import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, assertJson, canonicalJson, copyFrozenJson, deepFreezeJson, freezeJson, isJson, isJsonValueError, jsonHeight } from './index.js';
import type { Json, JsonObject } from './index.js';
import { almostJson, maybeJson, nestAround, referenceHeight, referenceText } from './__fixtures__/jsonArbitraries.js';

/** Every public entry to the one walker gives the reference's answer for `value`. */
function expectReferenceAnswer(value: unknown): void {
  const height = referenceHeight(value);
  expect(jsonHeight(value)).toBe(height);
  expect(isJson(value)).toBe(height >= 0);
  let error: unknown = null;
  try {
    assertJson(value);
  } catch (caught) {
    error = caught;
  }
  if (height < 0) {
    // Each entry may meet a different problem first (only canonical text walks keys in order).
    expect(isJsonValueError(error, 'INVALID_JSON_VALUE')).toBe(true);
    for (const walk of [() => canonicalJson(value), () => freezeJson(value), () => copyFrozenJson(value as Json)]) {
      expect(walk).toThrow(expect.objectContaining({ code: 'INVALID_JSON_VALUE' }));
    }
    return;
  }
  expect(error).toBeNull();
  const text = referenceText(value as Json);
  expect(canonicalJson(value)).toBe(text);
  const frozen = freezeJson(value);
  expect(frozen.text).toBe(text);
  expect(referenceText(frozen.value)).toBe(text);
  expect(jsonHeight(frozen.value)).toBe(height);
  expect(referenceHeight(copyFrozenJson(value as Json))).toBe(height);
}

describe('the one JSON walker, held to a plain reference', () => {
  it('jsonHeight, isJson, assertJson, canonicalJson and freezeJson agree with the reference on values with one non-JSON part (property)', () => {
    fc.assert(
      fc.property(maybeJson, (value) => {
        // The assertion the two walkers' equality test made, kept: one question, one answer.
        expect(jsonHeight(value) >= 0).toBe(isJson(value));
        expectReferenceAnswer(value);
      }),
    );
  });

  it('agree with the reference on almost-JSON values: every rule, shared parts, cycles, checked frozen parts (property)', () => {
    fc.assert(fc.property(almostJson, expectReferenceAnswer), { numRuns: 500 });
  });

  it('keep the depth limit exact for checked parts reused deeper (property)', () => {
    fc.assert(
      fc.property(almostJson, fc.oneof(fc.nat({ max: MAX_JSON_DEPTH }), fc.integer({ min: MAX_JSON_DEPTH - 8, max: MAX_JSON_DEPTH + 1 })), (value, depth) => {
        expectReferenceAnswer(nestAround(value, depth));
        const height = referenceHeight(value);
        expect(jsonHeight(value, depth)).toBe(height < 0 || (height > 0 && depth + height > MAX_JSON_DEPTH) ? -1 : height);
      }),
      { numRuns: 300 },
    );
  });

  it('walks a checked frozen value once: later checks answer from the cache, even after its parts changed hands', () => {
    const parsed = deepFreezeJson(JSON.parse('{"a":[1,{"b":"c"}]}') as unknown);
    // A frozen value cannot change, so a second check may trust the first; the reference agrees.
    expectReferenceAnswer(parsed);
    expectReferenceAnswer({ wrapper: parsed, again: [parsed] });
    // A value frozen by the user but never checked is still walked, and still refused when it is not JSON.
    const foreign = Object.freeze({ list: Object.freeze([1, Number.NaN]) });
    expect(referenceHeight(foreign)).toBe(-1);
    expectReferenceAnswer(foreign);
  });
});

describe('the walker fast paths refuse what the reference refuses', () => {
  it('refuses arrays with a non-enumerable extra property or element, or a symbol key', () => {
    const hidden = Object.defineProperty([1, 2], 'hidden', { value: 1, enumerable: false });
    const hiddenIndex = Object.defineProperty([1, 2], 1, { value: 2, enumerable: false });
    // eslint-disable-next-line no-sparse-arrays -- a hole hidden by an extra property
    const holeAndExtra = Object.assign([1, , 3], { x: 1 });
    const symbolKey = Object.assign([1], { [Symbol('s')]: 1 });
    for (const value of [hidden, hiddenIndex, holeAndExtra, symbolKey]) {
      expect(referenceHeight(value)).toBe(-1);
      expectReferenceAnswer(value);
      expectReferenceAnswer({ a: [value] });
    }
  });

  it('writes canonical text for keys JavaScript lists out of code-unit order ("10" before "9", "0" before "")', () => {
    for (const value of [{ '9': 1, '10': 2 }, { '': 1, '0': 2, a: { '2': 0, '11': [{ '1': 1, '!': 2 }] } }, { b: 1, a: 2, '1': 3 }] as JsonObject[]) {
      expectReferenceAnswer(value);
      const frozen = freezeJson(value);
      expect(frozen.text).toBe(referenceText(value));
      // The frozen copy is remembered as not in canonical order: wrapping it still writes canonical text.
      expect(canonicalJson({ z: frozen.value, y: [frozen.value] })).toBe(referenceText({ z: value, y: [value] }));
    }
  });

  it('sorts few keys and many alike, by code unit (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 3 }).filter((s) => referenceHeight(s) === 0), { maxLength: 40 }), (keys) => {
        const value = Object.fromEntries(keys.map((key, i) => [key, i]));
        expect(canonicalJson(value)).toBe(referenceText(value));
        expect(Object.keys(JSON.parse(freezeJson(value).text) as object).sort()).toEqual([...keys].sort());
      }),
    );
  });

  it('writes canonical text of any string, escaping only what JSON.stringify escapes (property)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => referenceHeight(s) === 0);
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 }))), (value) => {
        expectReferenceAnswer(value);
        expect(canonicalJson(copyFrozenJson(value))).toBe(referenceText(value));
      }),
    );
  });

  it('keeps canonical text when a toJSON was added to the prototypes (JSON.stringify would call it)', () => {
    const value = { b: [1, { c: 'x' }], a: null };
    const expected = referenceText(value);
    const saved = copyFrozenJson(value);
    Object.defineProperty(Object.prototype, 'toJSON', { value: () => 'polluted', configurable: true, writable: true });
    try {
      expect(freezeJson(value).text).toBe(expected);
      expect(canonicalJson({ saved })).toBe(`{"saved":${expected}}`);
    } finally {
      delete (Object.prototype as { toJSON?: unknown }).toJSON;
    }
  });

  it('marks checked values invisibly: no key, symbol or property shows on a frozen copy', () => {
    const frozen = freezeJson({ b: [1], a: { c: 2 } }).value as Record<string, unknown>;
    expect(Reflect.ownKeys(frozen)).toEqual(['a', 'b']);
    expect(Reflect.ownKeys(frozen.b as object)).toEqual(['0', 'length']);
    expect(frozen).toStrictEqual({ a: { c: 2 }, b: [1] });
    expect(structuredClone(frozen)).toStrictEqual({ a: { c: 2 }, b: [1] });
  });

  it('gives a walk started inside another (by a getter on an array element) its own state', () => {
    const inner: unknown[] = [];
    Object.defineProperty(inner, 0, {
      enumerable: true,
      get: () => {
        expect(canonicalJson({ y: [2, { x: 'in' }] })).toBe('{"y":[2,{"x":"in"}]}');
        return 3;
      },
    });
    expect(referenceHeight({ b: inner, a: 1 })).toBe(1 + 1);
    expect(canonicalJson({ b: inner, a: 1 })).toBe('{"a":1,"b":[3]}');
    expect(freezeJson({ b: inner, a: 1 }).text).toBe('{"a":1,"b":[3]}');
  });
});
