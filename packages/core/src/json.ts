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
 * One walker serves both `assertJson` and `canonicalJson` so the two can never disagree. It is
 * on every hot path (storage preflight, result checks), so the JSON pointer of a failure is
 * built only when something fails, from the stack of keys it keeps.
 */
export function walkJson(value: unknown, write: ((chunk: string) => void) | null): void {
  const ancestors: object[] = [];
  const tokens: (string | number)[] = [];
  const fail: (message: string, extra?: string | number) => never = (message, extra) => {
    let path = '';
    for (const token of tokens) path = jsonPointer(path, token);
    if (extra !== undefined) path = jsonPointer(path, extra);
    throw new JsonValueError(path, message);
  };

  const visit = (current: unknown): void => {
    switch (typeof current) {
      case 'string':
        if (!isWellFormedString(current)) fail('String contains a lone surrogate.');
        write?.(JSON.stringify(current));
        return;
      case 'number':
        if (!Number.isFinite(current)) fail(`Number ${String(current)} is not finite.`);
        write?.(Object.is(current, -0) ? '0' : JSON.stringify(current));
        return;
      case 'boolean':
        write?.(current ? 'true' : 'false');
        return;
      case 'object':
        break;
      default:
        fail(`A ${typeof current} is not a JSON value.`);
    }
    if (current === null) {
      write?.('null');
      return;
    }
    if (ancestors.length >= MAX_JSON_DEPTH) fail(`Nesting is deeper than ${MAX_JSON_DEPTH}.`);
    if (ancestors.includes(current)) fail('Value contains a cycle.');
    if (Object.getOwnPropertySymbols(current).length > 0) fail('Symbol keys are not JSON.');
    ancestors.push(current);
    if (Array.isArray(current)) visitArray(current);
    else visitObject(current);
    ancestors.pop();
  };

  const visitArray = (array: unknown[]): void => {
    if (Object.getPrototypeOf(array) !== Array.prototype) fail('Array subclasses are not JSON.');
    const keys = Object.keys(array);
    if (keys.length !== array.length) fail(keys.length < array.length ? 'Sparse arrays are not JSON.' : 'Arrays with extra properties are not JSON.');
    write?.('[');
    for (let i = 0; i < array.length; i++) {
      if (!Object.prototype.hasOwnProperty.call(array, i)) fail('Sparse arrays are not JSON.', i);
      if (i > 0) write?.(',');
      tokens.push(i);
      visit(array[i]);
      tokens.pop();
    }
    write?.(']');
  };

  const visitObject = (object: object): void => {
    if (!isPlainObject(object)) fail('Only plain objects are JSON (this is a class instance).');
    // Only the canonical text needs sorted keys; a plain check does not pay for the sort.
    const keys = write === null ? Object.keys(object) : Object.keys(object).sort();
    if (Object.getOwnPropertyNames(object).length !== keys.length) fail('Non-enumerable properties are not JSON.');
    write?.('{');
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      if (!isWellFormedString(key)) fail('Key contains a lone surrogate.', key);
      const descriptor = Object.getOwnPropertyDescriptor(object, key);
      if (descriptor === undefined || !('value' in descriptor)) fail('Accessor properties are not JSON.', key);
      if (index > 0) write?.(',');
      write?.(`${JSON.stringify(key)}:`);
      tokens.push(key);
      visit(descriptor.value);
      tokens.pop();
    }
    write?.('}');
  };

  visit(value);
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
