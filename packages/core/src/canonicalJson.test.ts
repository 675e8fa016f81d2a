import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, isRoundtableError } from './index.js';

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code unit and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, null, { d: 'x', c: -2.5 }], B: 'é' })).toBe('{"B":"é","a":[true,null,{"c":-2.5,"d":"x"}],"b":1}');
    // U+FF5E sorts before U+1F600 (a surrogate pair starting with 0xD83D) by code unit, not by code point.
    expect(canonicalJson({ '～': 2, '😀': 1 })).toBe('{"😀":1,"～":2}');
  });

  it('writes -0 as 0', () => {
    expect(canonicalJson(-0)).toBe('0');
    expect(canonicalJson({ z: [-0] })).toBe('{"z":[0]}');
  });

  it('refuses non-JSON values', () => {
    expect(() => canonicalJson({ a: undefined })).toThrow(expect.objectContaining({ code: 'INVALID_JSON_VALUE', path: '/a' }));
    let caught: unknown;
    try {
      canonicalJson(Number.NaN);
    } catch (error) {
      caught = error;
    }
    expect(isRoundtableError(caught, 'INVALID_JSON_VALUE')).toBe(true);
  });

  it('round-trips and is stable under key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        const reversed = JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
          v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
        ) as unknown;
        expect(canonicalJson(reversed)).toBe(text);
      }),
    );
  });
});
