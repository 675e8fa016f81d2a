import fc from 'fast-check';

/**
 * The first code point no output may print raw, written out apart from the code under test:
 * C0, DEL, C1, U+2028, U+2029, lone surrogates and format characters (bidi controls,
 * zero-width characters, U+FEFF, tags); null when there is none. `allowed` lets the
 * characters an output uses as its own separators pass (`\n`, and `\t` in `rooms`).
 */
export function firstUnprintable(text: string, allowed = ''): string | null {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff;
    const character = pair ? text.slice(i, i + 2) : text[i]!;
    if (pair) i++;
    if (allowed.includes(character)) continue;
    const bad =
      (unit >= 0xd800 && unit <= 0xdfff && !pair) ||
      unit <= 0x1f ||
      (unit >= 0x7f && unit <= 0x9f) ||
      unit === 0x2028 ||
      unit === 0x2029 ||
      /^\p{Cf}$/u.test(character);
    if (bad) return `U+${character.codePointAt(0)!.toString(16).padStart(4, '0')} at ${i} of ${JSON.stringify(text.slice(Math.max(0, i - 40), i + 40))}`;
  }
  return null;
}

const AWKWARD = ['\u009b', '\u0085', '\u007f', '\u0000', '\u001b', '\n', '\r', '\t', '\u2028', '\u2029', '\u202e', '\u2066', '\u061c', '\u200d', '\u200b', '\ufeff', '\u00ad', '\u{e0041}', '\\', '"', '/', '%', 'é', '😀', 'u0041'];

/** One unit of an arbitrary string: any code point, a lone surrogate, a C0/C1 control, or an awkward character. */
const unit = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)),
  fc.constantFrom(...AWKWARD),
);

/** Strings over full Unicode, lone surrogates included, biased to what terminals and parsers trip on. */
export const anyString = fc.string({ unit, maxLength: 20 });
