import { isWellFormedString } from './isWellFormedString.js';
import { freezeParsed } from './walkJson.js';

/** A `\u` escape of a UTF-16 surrogate (`JSON.parse` takes its hex digits in either case). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * `JSON.parse(text)` (and its SyntaxError), with every part of the result that it proves JSON
 * deep-frozen in place and remembered as checked, so that `deepFreezeJson` (and every later walk)
 * of those parts answers at once. For a reader of its own stored text that then checks the value
 * with `deepFreezeJson` (or `assertJson`) as before: the result is the same, only cheaper.
 * A value parsed from a well-formed text without surrogate escapes is JSON but for infinite
 * numbers and too deep nesting, and only those are checked; a part with either, the parts
 * around it, and the whole of a text with a lone surrogate or a surrogate escape (which may
 * well be a valid pair: it is just not proven) are left as parsed, unfrozen, for the full walk
 * to check and report with its exact error.
 */
export function parseFrozenJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (isWellFormedString(text) && !(text.includes('\\u') && SURROGATE_ESCAPE.test(text))) freezeParsed(value, 0);
  return value;
}
