import type { Json } from './json.js';
import { COPY, walkJson } from './walkJson.js';

/**
 * A deep copy of a JSON value whose every object and array is frozen (and remembered as
 * checked); a value that is already deep-frozen and checked is returned as it is, and
 * deep-frozen parts are shared, not copied. Keys keep their order. A `__proto__` key is copied
 * as an own property, never as a prototype. Throws JsonValueError for anything that is not JSON.
 */
export function copyFrozenJson<T extends Json>(value: T): T {
  return walkJson(value, COPY).value as T;
}
