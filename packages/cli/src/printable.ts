/**
 * The code points the CLI never prints raw, in text or in JSON: they move the cursor, recolour
 * or reorder what a terminal shows, end a line a reader does not see, or are invisible. C0 and
 * C1 controls and DEL (`Cc`, U+009B being an 8-bit CSI), format characters (`Cf`: bidi controls
 * such as U+202E and U+2066–U+2069, zero-width characters, U+FEFF, tag characters), U+2028 and
 * U+2029, and lone surrogates (no UTF-8 output can carry them).
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** `\uXXXX` (lowercase hex) for each UTF-16 unit: a JSON escape, and the room files' escape. */
function unicodeEscape(character: string): string {
  let escaped = '';
  for (let i = 0; i < character.length; i++) escaped += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}

/**
 * `text` with every unprintable code point written as `\uXXXX`. Applied after the room-file
 * escapes (which already doubled every `\`), so the result is unambiguous and still reads as a
 * room line wherever the record holds no format character or lone surrogate.
 */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE, unicodeEscape);
}

/**
 * The one JSON writer of the CLI's machine output (`-o json`, `-o jsonl`, the viewer's API):
 * `JSON.stringify`, then every unprintable code point left raw (DEL, C1, format characters,
 * U+2028, U+2029) escaped as `\uXXXX`, so the text parses to exactly the same value and is as
 * safe to print as text output. A raw newline is kept: JSON.stringify escapes every control
 * character inside a string, so one outside is `indent`'s line break.
 */
export function printableJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  return json.replace(UNPRINTABLE, (character) => (character === '\n' ? character : unicodeEscape(character)));
}
