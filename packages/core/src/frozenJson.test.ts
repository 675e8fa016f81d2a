import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, assertJson, canonicalJson, copyFrozenJson, deepFreezeJson, freezeJson, isJson, jsonHeight, utf8ByteLength } from './index.js';
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

describe('freezeJson: one walk checks, canonicalises, measures and freezes', () => {
  it('gives the canonical text, its bytes and a frozen canonical copy, or the error assertJson gives (property)', () => {
    fc.assert(
      fc.property(maybeJson, (value) => {
        let expected: unknown = null;
        try {
          assertJson(value);
        } catch (error) {
          expected = error;
        }
        if (expected !== null) {
          expect(() => freezeJson(value)).toThrow((expected as Error).message);
          return;
        }
        const frozen = freezeJson(value);
        expect(frozen.text).toBe(canonicalJson(value));
        expect(frozen.bytes).toBe(utf8ByteLength(frozen.text));
        expect(frozen.value).toEqual(JSON.parse(frozen.text));
        expect(jsonHeight(frozen.value)).toBe(jsonHeight(value));
        // Wrapped in a new object, the frozen part is reused and the text is still canonical.
        expect(canonicalJson({ z: 1, a: frozen.value })).toBe(canonicalJson({ z: 1, a: value }));
      }),
    );
  });

  it('shares deep-frozen parts instead of copying them, and returns a verified value as it is', () => {
    const saved = copyFrozenJson({ text: 'hi', list: [1, 2] });
    const frozen = freezeJson({ b: saved, a: [saved], n: -0 });
    const out = frozen.value as { a: unknown[]; b: unknown; n: number };
    expect(out.b).toBe(saved);
    expect(out.a[0]).toBe(saved);
    expect(Object.is(out.n, 0)).toBe(true);
    expect(Object.keys(out)).toEqual(['a', 'b', 'n']);
    expect(Object.isFrozen(out) && Object.isFrozen(out.a)).toBe(true);
    expect(copyFrozenJson(frozen.value)).toBe(frozen.value);
    expect(freezeJson(frozen.value).value).toBe(frozen.value);
    expect(frozen.text).toBe('{"a":[{"list":[1,2],"text":"hi"}],"b":{"list":[1,2],"text":"hi"},"n":0}');
  });

  it('deepFreezeJson freezes a parsed value in place, once, and refuses what is not JSON', () => {
    const parsed = JSON.parse('{"a":[{"b":1}],"c":"x"}') as { a: { b: number }[]; c: string };
    expect(deepFreezeJson(parsed)).toBe(parsed);
    expect(Object.isFrozen(parsed) && Object.isFrozen(parsed.a) && Object.isFrozen(parsed.a[0])).toBe(true);
    expect(copyFrozenJson(parsed)).toBe(parsed);
    expect(jsonHeight(parsed)).toBe(3);
    expect(() => deepFreezeJson({ bad: Number.NaN })).toThrow(/not finite/);
  });

  it('refuses a frozen value that is not JSON and keeps the depth limit for reused parts', () => {
    expect(() => freezeJson(Object.freeze({ when: new Date(0) }))).toThrow(/at \/when/);
    const deep = copyFrozenJson(nest(MAX_JSON_DEPTH - 1) as Json);
    expect(() => freezeJson([deep])).not.toThrow();
    expect(() => freezeJson([[deep]])).toThrow(/deeper than/);
    expect(() => canonicalJson([[deep]])).toThrow(/deeper than/);
  });
});

function nestAround(value: unknown, depth: number): unknown {
  let out = value;
  for (let i = 0; i < depth; i++) out = [out];
  return out;
}
