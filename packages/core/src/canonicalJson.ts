import { walkJson } from './walkJson.js';

/**
 * The canonical text of a JSON value: keys sorted by UTF-16 code unit, no whitespace, `-0`
 * written as `0`. Throws `JsonValueError` for anything that is not JSON.
 */
export function canonicalJson(value: unknown): string {
  const chunks: string[] = [];
  walkJson(value, { write: (chunk) => chunks.push(chunk), copy: false, sortKeys: false });
  return chunks.join('');
}
