import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, digest, sha256Hex, utf8ByteLength, utf8Encode } from './index.js';

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
      }),
    );
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
