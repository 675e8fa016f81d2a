import type { Json } from './json.js';
import { FREEZE, walkJson } from './walkJson.js';

/**
 * Checks that `value` is JSON and deep-freezes it in place, in one walk, remembering it as
 * checked (so `copyFrozenJson` and `jsonHeight` of it answer at once). For a value the caller
 * owns, such as one it has just parsed: nothing else may hold it unfrozen. Returns `value`;
 * throws JsonValueError for anything that is not JSON (possibly after freezing parts of it).
 */
export function deepFreezeJson<T>(value: T): T & Json {
  walkJson(value, FREEZE);
  return value as T & Json;
}
