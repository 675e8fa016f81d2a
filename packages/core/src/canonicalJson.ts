import { WRITE_TEXT, walkJson } from './walkJson.js';

/**
 * The canonical text of a JSON value: keys sorted by UTF-16 code unit, no whitespace, `-0`
 * written as `0`. Throws `JsonValueError` for anything that is not JSON. The text is written
 * during the walk that checks the value; a part `freezeJson` (or another walker call) verified
 * before is written by `JSON.stringify` without being walked again.
 */
export function canonicalJson(value: unknown): string {
  return walkJson(value, WRITE_TEXT).text;
}
