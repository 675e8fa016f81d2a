import { MAX_JSON_DEPTH, walkJsonCopy, walkJsonFreezeInPlace, walkJsonFrozenText, walkJsonHeight } from './json.js';
import type { Json } from './json.js';
import { utf8ByteLength } from './utf8.js';

/**
 * The height of `value` (levels of nesting: 0 for a primitive, 1 for an object holding only
 * primitives) if it is JSON by the same rules as `assertJson` (`isJson` gives the same answer),
 * or -1 if it is not. `depth` is how deep `value` sits in the value being checked. A deep-frozen
 * value verified before answers at once; `findJsonProblem` asks core for the details.
 */
export function jsonHeight(value: unknown, depth = 0): number {
  let height: number;
  try {
    height = walkJsonHeight(value);
  } catch {
    return -1;
  }
  return height > 0 && depth + height > MAX_JSON_DEPTH ? -1 : height;
}

/**
 * A deep copy of a JSON value whose every object and array is frozen (and remembered as
 * verified JSON); a value that is already deep-frozen and verified is returned as it is, and
 * deep-frozen parts are shared, not copied. Keys keep their order. A `__proto__` key is copied
 * as an own property, never as a prototype. Throws JsonValueError for anything that is not JSON.
 */
export function copyFrozenJson<T extends Json>(value: T): T {
  return walkJsonCopy(value, false).value as T;
}

/** A JSON value checked, measured, canonicalised and frozen by one walk. */
export interface FrozenJson {
  /** A deep-frozen copy in canonical key order (deep-frozen parts of the input are shared). */
  readonly value: Json;
  /** Its canonical JSON text (`canonicalJson(value)`). */
  readonly text: string;
  /** UTF-8 bytes of `text`. */
  readonly bytes: number;
}

/**
 * Checks, canonicalises, measures and freezes a value in one walk: what the hot path does once
 * per result so that later stages (storage preflight, secret screening, reducer, input
 * building) reuse it. The copy is remembered as verified JSON, and its canonical text is kept
 * for a short while, so `canonicalJson` of a value holding it does not walk it again. Throws
 * JsonValueError (INVALID_JSON_VALUE) for anything that is not JSON.
 */
export function freezeJson(value: unknown): FrozenJson {
  const { value: frozen, text } = walkJsonFrozenText(value);
  return { value: frozen, text, bytes: utf8ByteLength(text) };
}

/**
 * Checks that `value` is JSON and deep-freezes it in place, in one walk, remembering it as
 * verified (so `copyFrozenJson` and `jsonHeight` of it answer at once). For a value the caller
 * owns, such as one it has just parsed: nothing else may hold it unfrozen. Returns `value`;
 * throws JsonValueError for anything that is not JSON (possibly after freezing parts of it).
 */
export function deepFreezeJson<T>(value: T): T & Json {
  walkJsonFreezeInPlace(value);
  return value as T & Json;
}
