import { MAX_JSON_DEPTH, isWellFormedString } from './json.js';
import type { Json } from './json.js';

/**
 * Deep-frozen objects and arrays already known to be JSON, with their height (levels of
 * nesting, 1 for an object holding only primitives). A deep-frozen value can never stop being
 * JSON, so the hot path checks each saved result and message once, not once per turn it is
 * handed to a member. The height keeps the nesting limit exact when a value is reused deeper.
 */
const verifiedHeights = new WeakMap<object, number>();

/**
 * The height of `value` if it is JSON by the same rules as `assertJson` (`isJson` gives the
 * same answer), or -1 if it is not. `depth` is how deep `value` sits in the value being checked.
 * Written for speed: no paths, no key sorting; `findJsonProblem` asks core for the details.
 */
export function jsonHeight(value: unknown, depth = 0): number {
  return measure(value, depth, new Set()).height;
}

interface Measure {
  /** -1 when not JSON. */
  height: number;
  /** The whole value is deep-frozen (primitives count as frozen). */
  frozen: boolean;
}

const NOT_JSON: Measure = { height: -1, frozen: false };
const PRIMITIVE: Measure = { height: 0, frozen: true };

function measure(value: unknown, depth: number, ancestors: Set<object>): Measure {
  switch (typeof value) {
    case 'string':
      return isWellFormedString(value) ? PRIMITIVE : NOT_JSON;
    case 'number':
      return Number.isFinite(value) ? PRIMITIVE : NOT_JSON;
    case 'boolean':
      return PRIMITIVE;
    case 'object':
      break;
    default:
      return NOT_JSON;
  }
  if (value === null) return PRIMITIVE;
  const known = verifiedHeights.get(value);
  if (known !== undefined) return depth + known <= MAX_JSON_DEPTH ? { height: known, frozen: true } : NOT_JSON;
  if (depth >= MAX_JSON_DEPTH || ancestors.has(value) || Object.getOwnPropertySymbols(value).length > 0) return NOT_JSON;
  ancestors.add(value);
  const result = Array.isArray(value) ? measureArray(value, depth, ancestors) : measureObject(value, depth, ancestors);
  ancestors.delete(value);
  if (result.height >= 0 && result.frozen) {
    if (Object.isFrozen(value)) verifiedHeights.set(value, result.height);
    else return { height: result.height, frozen: false };
  }
  return result;
}

function measureArray(array: unknown[], depth: number, ancestors: Set<object>): Measure {
  if (Object.getPrototypeOf(array) !== Array.prototype) return NOT_JSON;
  if (Object.keys(array).length !== array.length) return NOT_JSON;
  let height = 0;
  let frozen = true;
  for (let i = 0; i < array.length; i++) {
    if (!Object.prototype.hasOwnProperty.call(array, i)) return NOT_JSON;
    const child = measure(array[i], depth + 1, ancestors);
    if (child.height < 0) return NOT_JSON;
    if (child.height > height) height = child.height;
    frozen &&= child.frozen;
  }
  return { height: height + 1, frozen };
}

function measureObject(object: object, depth: number, ancestors: Set<object>): Measure {
  const proto: unknown = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) return NOT_JSON;
  const keys = Object.keys(object);
  if (Object.getOwnPropertyNames(object).length !== keys.length) return NOT_JSON;
  let height = 0;
  let frozen = true;
  for (const key of keys) {
    if (!isWellFormedString(key)) return NOT_JSON;
    const descriptor = Object.getOwnPropertyDescriptor(object, key);
    if (descriptor === undefined || !('value' in descriptor)) return NOT_JSON;
    const child = measure(descriptor.value, depth + 1, ancestors);
    if (child.height < 0) return NOT_JSON;
    if (child.height > height) height = child.height;
    frozen &&= child.frozen;
  }
  return { height: height + 1, frozen };
}

/**
 * A deep copy of a JSON value whose every object and array is frozen (and remembered as
 * verified JSON). `value` must already be known to be JSON. A `__proto__` key is copied as an
 * own property, never as a prototype.
 */
export function copyFrozenJson<T extends Json>(value: T): T {
  return copyJson(value).value as T;
}

function copyJson(value: Json): { value: Json; height: number } {
  if (typeof value !== 'object' || value === null) return { value, height: 0 };
  let height = 0;
  let copy: Json;
  if (Array.isArray(value)) {
    copy = value.map((item) => {
      const child = copyJson(item);
      height = Math.max(height, child.height);
      return child.value;
    });
  } else {
    const object: { [key: string]: Json } = {};
    for (const key of Object.keys(value)) {
      const child = copyJson(value[key]!);
      height = Math.max(height, child.height);
      if (key === '__proto__') Object.defineProperty(object, key, { value: child.value, enumerable: true, writable: true, configurable: true });
      else object[key] = child.value;
    }
    copy = object;
  }
  Object.freeze(copy);
  verifiedHeights.set(copy, height + 1);
  return { value: copy, height: height + 1 };
}
