import { MAX_JSON_DEPTH } from './json.js';
import { CHECK_ONLY, walkJson } from './walkJson.js';

/**
 * The height of `value` (levels of nesting: 0 for a primitive, 1 for an object holding only
 * primitives) if it is JSON by the rules of `assertJson`, or -1 if it is not. `depth` is how deep
 * `value` sits in the value being checked. A deep-frozen value checked before answers at once.
 */
export function jsonHeight(value: unknown, depth = 0): number {
  let height: number;
  try {
    height = walkJson(value, CHECK_ONLY).height;
  } catch {
    return -1;
  }
  return height > 0 && depth + height > MAX_JSON_DEPTH ? -1 : height;
}
