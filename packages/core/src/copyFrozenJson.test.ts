import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, copyFrozenJson, isJson, jsonHeight } from './index.js';
import type { Json } from './index.js';
import { nest, nestAround } from './__fixtures__/jsonArbitraries.js';

describe('jsonHeight and copyFrozenJson', () => {
  it('answer the same for a frozen copy, also when it is reused deeper (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat({ max: MAX_JSON_DEPTH }), (value, depth) => {
        const frozen = copyFrozenJson(value as Json);
        expect(frozen).toEqual(value);
        expect(jsonHeight(frozen)).toBe(jsonHeight(value));
        // Checked once, then remembered: nesting it deeper must still respect the depth limit.
        expect(jsonHeight(nestAround(frozen, depth)) >= 0).toBe(isJson(nestAround(value, depth)));
      }),
    );
  });

  it('deep-freezes the copy and keeps the limit exact', () => {
    const frozen = copyFrozenJson({ a: [{ b: 1 }], __proto__: 2 }) as Record<string, unknown>;
    expect(Object.isFrozen(frozen)).toBe(true);
    expect(Object.isFrozen(frozen.a)).toBe(true);
    expect(jsonHeight(nest(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
    expect(jsonHeight(nest(MAX_JSON_DEPTH + 1))).toBe(-1);
  });
});

