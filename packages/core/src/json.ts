import { RoundtableError } from './errors.js';
import { jsonPointer } from './jsonPointer.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The deepest nesting of arrays and objects a JSON value may have. */
export const MAX_JSON_DEPTH = 256;

export const JsonErrorCodes = { INVALID_JSON_VALUE: 'INVALID_JSON_VALUE' } as const;

/** A value that is not JSON. `path` is a JSON pointer to the offending part ('' is the value itself). */
export class JsonValueError extends RoundtableError {
  readonly path: string;

  constructor(path: string, message: string) {
    super(JsonErrorCodes.INVALID_JSON_VALUE, path === '' ? message : `${message} (at ${path})`, { details: { path } });
    this.name = 'JsonValueError';
    this.path = path;
  }
}

/** True when the string has no lone UTF-16 surrogate, i.e. it encodes to UTF-8 exactly. */
export function isWellFormedString(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit >= 0xdc00) return false;
    const next = value.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
    i++;
  }
  return true;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Walks a value, checking that it is JSON, and calls `write` with its canonical text in order.
 * One walker serves both `assertJson` and `canonicalJson` so the two can never disagree.
 */
export function walkJson(value: unknown, write: ((chunk: string) => void) | null): void {
  const ancestors = new Set<object>();

  const visit = (current: unknown, path: string, depth: number): void => {
    switch (typeof current) {
      case 'string':
        if (!isWellFormedString(current)) throw new JsonValueError(path, 'String contains a lone surrogate.');
        write?.(JSON.stringify(current));
        return;
      case 'number':
        if (!Number.isFinite(current)) throw new JsonValueError(path, `Number ${String(current)} is not finite.`);
        write?.(Object.is(current, -0) ? '0' : JSON.stringify(current));
        return;
      case 'boolean':
        write?.(current ? 'true' : 'false');
        return;
      case 'object':
        break;
      default:
        throw new JsonValueError(path, `A ${typeof current} is not a JSON value.`);
    }
    if (current === null) {
      write?.('null');
      return;
    }
    if (depth >= MAX_JSON_DEPTH) throw new JsonValueError(path, `Nesting is deeper than ${MAX_JSON_DEPTH}.`);
    if (ancestors.has(current)) throw new JsonValueError(path, 'Value contains a cycle.');
    if (Object.getOwnPropertySymbols(current).length > 0) throw new JsonValueError(path, 'Symbol keys are not JSON.');
    ancestors.add(current);
    if (Array.isArray(current)) visitArray(current, path, depth);
    else visitObject(current, path, depth);
    ancestors.delete(current);
  };

  const visitArray = (array: unknown[], path: string, depth: number): void => {
    if (Object.getPrototypeOf(array) !== Array.prototype) throw new JsonValueError(path, 'Array subclasses are not JSON.');
    const keys = Object.keys(array);
    if (keys.length !== array.length) {
      throw new JsonValueError(path, keys.length < array.length ? 'Sparse arrays are not JSON.' : 'Arrays with extra properties are not JSON.');
    }
    write?.('[');
    for (let i = 0; i < array.length; i++) {
      if (!Object.prototype.hasOwnProperty.call(array, i)) throw new JsonValueError(jsonPointer(path, i), 'Sparse arrays are not JSON.');
      if (i > 0) write?.(',');
      visit(array[i], jsonPointer(path, i), depth + 1);
    }
    write?.(']');
  };

  const visitObject = (object: object, path: string, depth: number): void => {
    if (!isPlainObject(object)) throw new JsonValueError(path, 'Only plain objects are JSON (this is a class instance).');
    const keys = Object.keys(object).sort();
    const descriptors = Object.getOwnPropertyDescriptors(object);
    if (Object.getOwnPropertyNames(object).length !== keys.length) throw new JsonValueError(path, 'Non-enumerable properties are not JSON.');
    write?.('{');
    keys.forEach((key, index) => {
      const childPath = jsonPointer(path, key);
      if (!isWellFormedString(key)) throw new JsonValueError(childPath, 'Key contains a lone surrogate.');
      const descriptor = descriptors[key];
      if (descriptor === undefined || !('value' in descriptor)) throw new JsonValueError(childPath, 'Accessor properties are not JSON.');
      if (index > 0) write?.(',');
      write?.(`${JSON.stringify(key)}:`);
      visit(descriptor.value, childPath, depth + 1);
    });
    write?.('}');
  };

  visit(value, '', 0);
}

/** Throws `JsonValueError` (INVALID_JSON_VALUE) unless `value` is a JSON value. */
export function assertJson(value: unknown): asserts value is Json {
  walkJson(value, null);
}

/** True when `value` is a JSON value. */
export function isJson(value: unknown): value is Json {
  try {
    walkJson(value, null);
    return true;
  } catch {
    return false;
  }
}
