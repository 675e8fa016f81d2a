import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, digest, sha256Hex, utf8ByteLength, utf8Encode } from './index.js';
import { portableSha256Hex } from './sha256Hex.js';

describe('digest', () => {
  it('is sha256 of the canonical JSON bytes', () => {
    expect(digest({})).toBe(`sha256:${createHash('sha256').update('{}').digest('hex')}`);
    expect(digest({ b: 'é', a: 1 })).toBe(digest({ a: 1, b: 'é' }));
  });

  it('matches node:crypto for any JSON value and any byte string (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(digest(value)).toBe(`sha256:${createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')}`);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
        // The plain TypeScript one (where the host gives none) is the same function.
        expect(portableSha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
      }),
    );
    // Lengths around the 64-byte block and its 55/56-byte padding edge, and one of several blocks.
    for (const length of [0, 55, 56, 63, 64, 65, 119, 120, 1000, 100_000]) {
      const bytes = Uint8Array.from({ length }, (_, index) => (index * 31 + 7) & 0xff);
      expect(portableSha256Hex(bytes), String(length)).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it('counts UTF-8 bytes like TextEncoder (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => utf8ByteLength(text) === utf8Encode(text).length));
    expect(utf8ByteLength('a\ud800')).toBe(4);
    // ASCII text takes a fast path: one more character outside ASCII anywhere must leave it.
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii' }), fc.constantFrom('', '\u007f', '\u0080', 'é', '\u07ff', '\u0800', '😀', '\udc00'), fc.nat(), (ascii, extra, at) => {
        const text = ascii.slice(0, at % (ascii.length + 1)) + extra + ascii.slice(at % (ascii.length + 1));
        return utf8ByteLength(text) === utf8Encode(text).length;
      }),
    );
  });
});
