import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, canonicalJson, copyFrozenJson, freezeJson, freezeJsonFields, jsonHeight } from './index.js';
import type { Json } from './index.js';
import { maybeJson, nest } from './__fixtures__/jsonArbitraries.js';

/** The object freezeJsonFields stands for, its keys inserted in the order given. */
const objectOf = (keys: readonly string[], values: readonly unknown[]): Record<string, unknown> => Object.fromEntries(keys.map((key, index) => [key, values[index]]));

describe('freezeJsonFields: freezeJson of an object made of the keys and values, without the object', () => {
  it('gives what freezeJson gives for the object, or the error it gives (property)', () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', '10', '9', 'é', 'a"b', 'toString'));
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 6 }), fc.array(fc.oneof(maybeJson, maybeJson.map((value) => { try { return freezeJson(value).value; } catch { return value; } })), { minLength: 6, maxLength: 6 }), (keys, pool) => {
        const values = pool.slice(0, keys.length);
        let expected: ReturnType<typeof freezeJson> | Error;
        try {
          expected = freezeJson(objectOf(keys, values));
        } catch (error) {
          expected = error as Error;
        }
        if (expected instanceof Error) {
          expect(() => freezeJsonFields(keys, values as Json[])).toThrow(expected.message);
          return;
        }
        const frozen = freezeJsonFields(keys, values as Json[]);
        expect(frozen.value).toEqual(expected.value);
        expect(Object.keys(frozen.value as object)).toEqual(Object.keys(expected.value as object));
        expect(frozen.bytes).toBe(expected.bytes);
        expect(frozen.text).toBe(expected.text);
        expect(frozen.text).toBe(canonicalJson(objectOf(keys, values)));
        expect(Object.isFrozen(frozen.value)).toBe(true);
        // Checked, measured and frozen: a later walk reuses it.
        expect(freezeJson(frozen.value).value).toBe(frozen.value);
        expect(freezeJson(frozen.value).bytes).toBe(frozen.bytes);
        expect(canonicalJson({ outer: frozen.value })).toBe(`{"outer":${frozen.text}}`);
      }),
    );
  });

  it('shares frozen values, keeps a __proto__ key as an own property and refuses keys given twice or not well-formed', () => {
    const result = freezeJson({ summary: 'é', posts: [{ text: 'hi' }] }).value;
    const payload = freezeJsonFields(['position', 'nodeId', 'result'], ['p/1', 'writer', result]);
    expect(Object.keys(payload.value as object)).toEqual(['nodeId', 'position', 'result']);
    expect((payload.value as { result: Json }).result).toBe(result);
    expect(payload.text).toBe(canonicalJson({ nodeId: 'writer', position: 'p/1', result }));
    const proto = freezeJsonFields(['__proto__'], [1]).value as object;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect(() => freezeJsonFields(['a', 'a'], [1, 2])).toThrow(/twice/);
    expect(() => freezeJsonFields(['\ud800'], [1])).toThrow(/lone surrogate/);
    expect(() => freezeJsonFields(['a'], [])).toThrow(/1 keys were given with 0 values/);
    expect(() => freezeJsonFields([1 as unknown as string], [1])).toThrow(/not a string/);
  });

  it('makes a plain, frozen, marked object whatever the number of keys (four and more get a roomier object of the same kind)', () => {
    for (let count = 0; count <= 9; count++) {
      const keys = Array.from({ length: count }, (_, index) => (index === 2 ? '__proto__' : `k${index}`));
      const values = keys.map((_, index) => index);
      const { value } = freezeJsonFields(keys, values);
      const object = value as Record<string, unknown>;
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      expect(object.constructor).toBe(Object);
      expect(Object.prototype.toString.call(object)).toBe('[object Object]');
      expect(Object.isFrozen(object)).toBe(true);
      expect(Object.getOwnPropertySymbols(object)).toEqual([]);
      expect(object).toStrictEqual(JSON.parse(canonicalJson(objectOf(keys, values))));
      // Marked as verified: freezeJson shares it rather than copying it.
      expect(freezeJson(object).value).toBe(object);
      expect(freezeJson({ wrapped: object }).value).toStrictEqual({ wrapped: object });
      expect((freezeJson({ wrapped: object }).value as { wrapped: unknown }).wrapped).toBe(object);
    }
  });

  it('keeps the nesting limit and the error paths of the values', () => {
    const deep = copyFrozenJson(nest(MAX_JSON_DEPTH - 1) as Json);
    expect(jsonHeight(freezeJsonFields(['a'], [deep]).value)).toBe(MAX_JSON_DEPTH);
    expect(() => freezeJsonFields(['a'], [[deep]])).toThrow(/deeper than/);
    expect(() => freezeJsonFields(['a', 'b'], [1, { c: new Date(0) } as unknown as Json])).toThrow(/at \/b\/c/);
  });
});
