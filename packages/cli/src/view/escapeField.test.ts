import fc from 'fast-check';
import { escapeRoomField } from '@roundtable/rooms';
import { describe, expect, it } from 'vitest';
import { escapeField } from './escapeField.js';

// The viewer page cannot import the rooms package (it runs in a browser and imports nothing), so
// it keeps a copy of the rule; this holds the copy to the rule.
describe("the viewer's escapeField", () => {
  it('escapes every UTF-16 code unit exactly as escapeRoomField does', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const text = String.fromCharCode(code);
      if (escapeField(text) !== escapeRoomField(text)) expect(escapeField(text), `U+${code.toString(16)}`).toBe(escapeRoomField(text));
    }
  });

  it('escapes any string exactly as escapeRoomField does', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => escapeField(text) === escapeRoomField(text)), { numRuns: 2000 });
  });
});
