import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWellFormedString } from '@roundtable/core';
import { escapeRoomField } from '@roundtable/rooms';
import { safe } from './output.js';
import { printableJson } from './printable.js';
import { anyString, firstUnprintable } from '../test/__fixtures__/unprintable.js';

/** The inverse of the text escapes: `\\`, `\n`, `\r`, `\t`, `\uXXXX`. */
function unescapeText(text: string): string {
  return text.replace(/\\(\\|n|r|t|u[0-9a-f]{4})/g, (_match, escape: string) => {
    if (escape === '\\') return '\\';
    if (escape === 'n') return '\n';
    if (escape === 'r') return '\r';
    if (escape === 't') return '\t';
    return String.fromCharCode(Number.parseInt(escape.slice(1), 16));
  });
}

const { json: anyJson } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    anyString,
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(anyString, tie('json'), { maxKeys: 4 }),
  ),
}));

describe('printableJson, the JSON writer of -o json, -o jsonl and the viewer', () => {
  it('escapes C1 (an 8-bit CSI), DEL, U+2028/2029, bidi and zero-width characters and lone surrogates', () => {
    expect(printableJson('\u009b31m\u007f\u2028\u2029\u202e\u200d\ud800')).toBe('"\\u009b31m\\u007f\\u2028\\u2029\\u202e\\u200d\\ud800"');
    expect(printableJson({ tag: '\u{e0041}' })).toBe('{"tag":"\\udb40\\udc41"}');
    expect(printableJson({ a: ['\u0085'] }, 2)).toBe('{\n  "a": [\n    "\\u0085"\n  ]\n}');
    expect(printableJson('é 😀 <b>')).toBe('"é 😀 <b>"');
  });

  it('property: a line with no unprintable code point, which parses back to the same value', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const line = printableJson(value);
        expect(firstUnprintable(line)).toBeNull();
        expect(JSON.stringify(JSON.parse(line))).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it('property: indented, only its own line breaks are raw, and it parses back to the same value', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const text = printableJson(value, 2);
        expect(firstUnprintable(text, '\n')).toBeNull();
        expect(JSON.stringify(JSON.parse(text))).toBe(JSON.stringify(value));
      }),
      { numRuns: 300 },
    );
  });
});

describe('safe, the text output of every string from a record', () => {
  it('property: one line with no unprintable code point, that unescapes to the string', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const shown = safe(text);
        expect(firstUnprintable(shown)).toBeNull();
        expect(unescapeText(shown)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('property: the room-file escapes exactly, for strings without format characters or lone surrogates', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        fc.pre(!/\p{Cf}/u.test(text) && isWellFormedString(text));
        expect(safe(text)).toBe(escapeRoomField(text));
      }),
      { numRuns: 500 },
    );
  });
});
