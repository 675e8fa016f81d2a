/**
 * Escapes one field of a room line so every message stays one physical line and no terminal
 * control reaches a reader: `\` → `\\`; newline, carriage return and tab → `\n`, `\r`, `\t`;
 * any other U+0000–U+001F, U+007F–U+009F, U+2028 and U+2029 → `\uXXXX` (lowercase hex).
 */
export function escapeRoomField(text: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const escaped = escapeCode(code);
    if (escaped === null) continue;
    out += text.slice(start, i) + escaped;
    start = i + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

function escapeCode(code: number): string | null {
  switch (code) {
    case 0x5c:
      return '\\\\';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
  }
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) {
    return `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return null;
}
