import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, assertJson, canonicalJson, copyFrozenJson, freezeJson, jsonHeight, utf8ByteLength } from './index.js';
import type { Json } from './index.js';
import { maybeJson, nest } from './__fixtures__/jsonArbitraries.js';

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

  it('gives the right text for values frozen long ago and just now, and for values nested in newer ones', () => {
    // More values than the recently-frozen texts keep, so the first ones have left the ring.
    const frozen = Array.from({ length: 200 }, (_, index) => freezeJson({ z: index, a: [index, { b: `v${index}` }] }).value);
    for (const [index, value] of frozen.entries()) {
      const expected = canonicalJson({ z: index, a: [index, { b: `v${index}` }] });
      expect(freezeJson(value).text).toBe(expected);
      expect(freezeJson({ outer: value }).text).toBe(`{"outer":${expected}}`);
    }
  });

  it('measures and writes a value frozen a moment ago, and a new one around it, exactly (wide characters, escapes, index-like keys)', () => {
    for (const inner of [{ text: 'é😀 "quoted" \\ back', b: [1, -0] }, { 10: 'ten', 9: 'nine', é: ['€'] }, ['\u2028', { z: null, a: true }]]) {
      const first = freezeJson(inner);
      const again = freezeJson(first.value);
      expect(again.value).toBe(first.value);
      expect(again.bytes).toBe(new TextEncoder().encode(canonicalJson(inner)).length);
      expect(again.bytes).toBe(first.bytes);
      const outer = freezeJson({ result: first.value, position: 'p/1', 'nodé': 'n', 0: [first.value] });
      expect(outer.bytes).toBe(new TextEncoder().encode(canonicalJson({ result: inner, position: 'p/1', 'nodé': 'n', 0: [inner] })).length);
      expect(outer.text).toBe(canonicalJson({ result: inner, position: 'p/1', 'nodé': 'n', 0: [inner] }));
      expect(freezeJson(outer.value).text).toBe(outer.text);
      expect(first.text).toBe(canonicalJson(inner));
      expect(again.text).toBe(first.text);
    }
  });

  it('measures parts verified by another walk that did not count their bytes, and writes the text as the value was when frozen', () => {
    const saved = copyFrozenJson({ b: 'é😀 "q"', a: [true, null, 1.5e300, -0] });
    const expected = canonicalJson({ list: [saved, saved], n: 'x' });
    const input: Record<string, Json> = { n: 'x', list: [saved, saved] };
    for (let round = 0; round < 2; round++) {
      const frozen = freezeJson(input);
      expect(frozen.bytes).toBe(new TextEncoder().encode(expected).length);
      input['n'] = 'changed';
      expect(frozen.text).toBe(expected);
      input['n'] = 'x';
    }
    expect(freezeJson(saved).bytes).toBe(new TextEncoder().encode(canonicalJson(saved)).length);
  });

  it('refuses a frozen value that is not JSON and keeps the depth limit for reused parts', () => {
    expect(() => freezeJson(Object.freeze({ when: new Date(0) }))).toThrow(/at \/when/);
    const deep = copyFrozenJson(nest(MAX_JSON_DEPTH - 1) as Json);
    expect(() => freezeJson([deep])).not.toThrow();
    expect(() => freezeJson([[deep]])).toThrow(/deeper than/);
    expect(() => canonicalJson([[deep]])).toThrow(/deeper than/);
  });
});
