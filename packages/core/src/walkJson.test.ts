import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, assertJson, canonicalJson, copyFrozenJson, deepFreezeJson, freezeJson, isJson, isJsonValueError, jsonHeight } from './index.js';
import type { Json } from './index.js';
import { almostJson, maybeJson, nestAround, referenceHeight, referenceText } from './testing/jsonArbitraries.js';

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
