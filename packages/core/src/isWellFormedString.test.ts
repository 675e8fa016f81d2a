import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isWellFormedString } from './index.js';
import { portableIsWellFormed } from './isWellFormedString.js';

/** A lone surrogate is replaced by U+FFFD when encoded: a well-formed string survives the trip. */
function survivesUtf8(text: string): boolean {
  return new TextDecoder().decode(new TextEncoder().encode(text)) === text;
}

describe('isWellFormedString', () => {
  it('is true exactly when the string has no lone surrogate, natively and in plain JavaScript (property)', () => {
    const surrogateHeavy = fc.string({ unit: fc.oneof(fc.integer({ min: 0xd7ff, max: 0xe000 }).map((unit) => String.fromCharCode(unit)), fc.constantFrom('a', '😀')), maxLength: 8 });
    for (const strings of [fc.string({ unit: 'binary' }), surrogateHeavy]) {
      fc.assert(
        fc.property(strings, (text) => {
          expect(isWellFormedString(text)).toBe(survivesUtf8(text));
          expect(portableIsWellFormed(text)).toBe(survivesUtf8(text));
        }),
      );
    }
    for (const text of ['', 'plain', '😀', '\ud83d\ude00x', 'a\ud800', '\udc00', '\ud800\ud800\udc00', '\ude00\ud83d']) expect(portableIsWellFormed(text)).toBe(survivesUtf8(text));
  });
});
