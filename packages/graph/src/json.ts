import { assertJson, isJson, isRoundtableError, jsonHeight } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { z } from 'zod';

const jsonShape: z.ZodType<Json, Json> = z.json();

/**
 * A JSON value as `@roundtable/core` defines it. `isJson` runs first, so cycles, class
 * instances and lone surrogates are refused before zod walks the value; the JSON Schema of
 * this schema is the one of `z.json()`.
 */
export const JsonValueSchema = z.custom<Json>((value) => isJson(value), 'Expected a JSON value.').pipe(jsonShape);

/** A non-null, non-array object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

export function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** Where `value` stops being JSON (a JSON pointer relative to `value`) and why, or null. */
export function findJsonProblem(value: unknown): { path: string; message: string } | null {
  if (jsonHeight(value) >= 0) return null;
  try {
    assertJson(value);
    return null;
  } catch (error) {
    if (!isRoundtableError(error)) throw error;
    const path = error.details?.['path'];
    return { path: typeof path === 'string' ? path : '', message: error.message };
  }
}

/**
 * The top level of a value looks like JSON: a primitive JSON value, a plain array or a plain
 * object. Nested values are not walked: this is the cheap check of the hot path.
 */
export function isShallowJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      const proto: unknown = Object.getPrototypeOf(value);
      return Array.isArray(value) ? proto === Array.prototype : proto === Object.prototype || proto === null;
    }
    default:
      return false;
  }
}

/** True when `value` is JSON: the same answer as `isJson` from `@roundtable/core`, faster on saved values. */
export function isJsonValue(value: unknown): value is Json {
  return jsonHeight(value) >= 0;
}
