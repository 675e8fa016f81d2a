/**
 * Turning whatever a member throws or returns into text that can be recorded. Everything here
 * is total: it never throws, whatever the value (a Proxy whose traps throw, a getter that
 * throws, a message that is not a string), and always returns a well-formed string.
 */

/** Longest message kept from a member, in UTF-16 code units; longer ones are cut. */
export const MAX_RECORDED_MESSAGE_LENGTH = 8192;

/** `text` with every lone surrogate replaced by U+FFFD, cut to `MAX_RECORDED_MESSAGE_LENGTH`. */
export function recordableText(text: string): string {
  const cut = text.length > MAX_RECORDED_MESSAGE_LENGTH ? `${text.slice(0, MAX_RECORDED_MESSAGE_LENGTH)}…` : text;
  let out = '';
  let from = 0;
  for (let i = 0; i < cut.length; i++) {
    const unit = cut.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = cut.charCodeAt(i + 1);
    if (unit < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    out += `${cut.slice(from, i)}\ufffd`;
    from = i + 1;
  }
  return from === 0 ? cut : out + cut.slice(from);
}

function primitiveText(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return recordableText(value);
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'symbol':
      return recordableText(String(value));
    case 'undefined':
      return 'undefined';
    default:
      return value === null ? 'null' : null;
  }
}

/**
 * The message to record for a thrown value: an Error's (or error-like object's) message as a
 * well-formed string, a thrown string itself, or a sentence saying what was thrown.
 */
export function thrownMessage(error: unknown): string {
  try {
    if (typeof error === 'string') return recordableText(error);
    if (typeof error !== 'object' && typeof error !== 'function') return `A ${typeof error} was thrown: ${primitiveText(error) ?? ''}`;
    if (error === null) return 'null was thrown.';
    const message: unknown = (error as { message?: unknown }).message;
    if (typeof message === 'string') return recordableText(message);
    if (message === undefined) return 'An error without a message was thrown.';
    const text = primitiveText(message);
    return text === null ? 'An error whose message is not a string was thrown.' : text;
  } catch {
    return 'A value that cannot be read was thrown (reading it threw).';
  }
}
