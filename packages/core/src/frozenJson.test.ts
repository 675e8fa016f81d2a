import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, copyFrozenJson, isJson, jsonHeight } from './index.js';
import type { Json } from './index.js';

const notJson = fc.constantFrom<unknown>(undefined, Number.NaN, Number.POSITIVE_INFINITY, '\ud800', () => 1, new Date(0), Symbol('s'), 1n);

/** JSON values with, sometimes, one non-JSON value somewhere inside. */
const maybeJson = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.option(notJson, { nil: null }), fc.array(fc.nat(), { maxLength: 4 })).map(([value, bad, path]) => {
  if (bad === null) return value;
  const place = (node: unknown, rest: number[]): unknown => {
    if (rest.length === 0 || node === null || typeof node !== 'object') return bad;
    const entries = Object.entries(node);
    if (entries.length === 0) return bad;
    const [key, child] = entries[rest[0]! % entries.length]!;
    return Array.isArray(node) ? node.map((item: unknown, i) => (String(i) === key ? place(child, rest.slice(1)) : item)) : { ...node, [key]: place(child, rest.slice(1)) };
  };
  return place(value, path);
});

function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('jsonHeight and copyFrozenJson', () => {
  it('give the same answer as isJson (property)', () => {
    fc.assert(
      fc.property(maybeJson, (value) => {
        expect(jsonHeight(value) >= 0).toBe(isJson(value));
      }),
    );
  });

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

function nestAround(value: unknown, depth: number): unknown {
  let out = value;
  for (let i = 0; i < depth; i++) out = [out];
  return out;
}
