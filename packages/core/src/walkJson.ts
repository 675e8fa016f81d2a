import { MAX_JSON_DEPTH } from './json.js';
import { JsonValueError } from './jsonValueError.js';
import { isWellFormedString } from './isWellFormedString.js';
import { jsonPointer } from './jsonPointer.js';

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep-frozen objects and arrays already known to be JSON, with their height (levels of
 * nesting, 1 for an object holding only primitives). A deep-frozen value can never stop being
 * JSON, so the walker checks each one once: later walks skip it (or, writing canonical text,
 * reuse its text when it is at hand). The height keeps the nesting limit exact when a value is
 * reused deeper.
 */
const verifiedHeights = new WeakMap<object, number>();

/**
 * The canonical text of the most recently frozen values (`freezeJson`): the result an attempt
 * froze is written by the storage moments later, and this saves walking it again. Bounded, so it
 * never holds more than a few values alive.
 */
const recentTexts = new Map<object, string>();
const RECENT_TEXTS = 64;

/** Keeps the canonical text of a value `freezeJson` just froze, for the next walk that writes it. */
export function rememberText(value: object, text: string): void {
  recentTexts.set(value, text);
  if (recentTexts.size > RECENT_TEXTS) recentTexts.delete(recentTexts.keys().next().value as object);
}

/** What one walk does besides checking: write canonical text, and/or build a deep-frozen copy. */
export interface WalkMode {
  readonly write: ((chunk: string) => void) | null;
  /** Build a deep-frozen copy (reusing deep-frozen parts) and return it as `value`. */
  readonly copy: boolean;
  /** A canonical copy: keys in code-unit order and `-0` as `0`, even when not writing. */
  readonly sortKeys: boolean;
  /** Freeze the value itself, in place (no copy): only for a value the caller owns. */
  readonly freeze?: boolean;
}

export interface WalkResult {
  /** Levels of nesting: 0 for a primitive, 1 for an object holding only primitives. */
  readonly height: number;
  /** The deep-frozen copy when `copy` was asked, else the value itself. */
  readonly value: unknown;
}

/** The mode of a plain check: no text, no copy. */
export const CHECK_ONLY: WalkMode = Object.freeze({ write: null, copy: false, sortKeys: false });

/**
 * The one JSON walker: checks that `value` is JSON (JsonValueError otherwise, with a JSON
 * pointer built only when something fails), and, as `mode` asks, writes its canonical text and
 * builds a deep-frozen copy in the same pass. `assertJson`, `isJson`, `jsonHeight`,
 * `canonicalJson`, `copyFrozenJson`, `freezeJson` and `deepFreezeJson` are each one call of it,
 * so they can never disagree: every JSON rule of the project lives here. It is on every hot path
 * (storage preflight, result checks), so deep-frozen values it verified before are not walked
 * again, and the pointer of a failure is built only when something fails.
 */
export function walkJson(value: unknown, mode: WalkMode): WalkResult {
  const { write, copy, sortKeys } = mode;
  const freeze = mode.freeze === true;
  const ancestors: object[] = [];
  const tokens: (string | number)[] = [];
  const fail: (message: string, extra?: string | number) => never = (message, extra) => {
    let path = '';
    for (const token of tokens) path = jsonPointer(path, token);
    if (extra !== undefined) path = jsonPointer(path, extra);
    throw new JsonValueError(path, message);
  };
  // Set by `visit` for the value it just walked: whether all of it is deep-frozen, and its copy.
  let frozen = true;
  let copied: unknown = undefined;

  const visit = (current: unknown): number => {
    frozen = true;
    copied = current;
    switch (typeof current) {
      case 'string':
        if (!isWellFormedString(current)) fail('String contains a lone surrogate.');
        write?.(JSON.stringify(current));
        return 0;
      case 'number':
        if (!Number.isFinite(current)) fail(`Number ${String(current)} is not finite.`);
        if (Object.is(current, -0)) {
          write?.('0');
          if (sortKeys) copied = 0; // a canonical copy holds what its text says
        } else {
          write?.(JSON.stringify(current));
        }
        return 0;
      case 'boolean':
        write?.(current ? 'true' : 'false');
        return 0;
      case 'object':
        break;
      default:
        fail(`A ${typeof current} is not a JSON value.`);
    }
    if (current === null) {
      write?.('null');
      return 0;
    }
    const known = verifiedHeights.get(current);
    if (known !== undefined && ancestors.length + known <= MAX_JSON_DEPTH) {
      if (write === null) return known;
      const text = recentTexts.get(current);
      if (text !== undefined) {
        write(text);
        return known;
      }
      // Walk it to write its text; its parts are verified and skipped where their text is known.
    }
    if (ancestors.length >= MAX_JSON_DEPTH) fail(`Nesting is deeper than ${MAX_JSON_DEPTH}.`);
    if (ancestors.includes(current)) fail('Value contains a cycle.');
    if (Object.getOwnPropertySymbols(current).length > 0) fail('Symbol keys are not JSON.');
    ancestors.push(current);
    const result = Array.isArray(current) ? visitArray(current) : visitObject(current);
    ancestors.pop();
    if (known !== undefined) {
      frozen = true;
      copied = current;
      return known;
    }
    if (copy) {
      const out = Object.freeze(result.copy as object);
      verifiedHeights.set(out, result.height);
      frozen = true;
      copied = result.copy;
    } else {
      if (freeze) Object.freeze(current);
      frozen = result.frozen && Object.isFrozen(current);
      if (frozen) verifiedHeights.set(current, result.height);
      copied = current;
    }
    return result.height;
  };

  const visitArray = (array: unknown[]): { height: number; frozen: boolean; copy: unknown } => {
    if (Object.getPrototypeOf(array) !== Array.prototype) fail('Array subclasses are not JSON.');
    const keys = Object.keys(array);
    if (keys.length !== array.length) fail(keys.length < array.length ? 'Sparse arrays are not JSON.' : 'Arrays with extra properties are not JSON.');
    const out: unknown[] | null = copy ? new Array<unknown>(array.length) : null;
    let height = 0;
    let allFrozen = true;
    write?.('[');
    for (let i = 0; i < array.length; i++) {
      if (!Object.prototype.hasOwnProperty.call(array, i)) fail('Sparse arrays are not JSON.', i);
      if (i > 0) write?.(',');
      tokens.push(i);
      const child = visit(array[i]);
      tokens.pop();
      if (child > height) height = child;
      allFrozen &&= frozen;
      if (out !== null) out[i] = copied;
    }
    write?.(']');
    return { height: height + 1, frozen: allFrozen, copy: out };
  };

  const visitObject = (object: object): { height: number; frozen: boolean; copy: unknown } => {
    if (!isPlainObject(object)) fail('Only plain objects are JSON (this is a class instance).');
    // Only canonical text (or a canonical copy) needs sorted keys; a plain check does not pay for the sort.
    const keys = write === null && !sortKeys ? Object.keys(object) : Object.keys(object).sort();
    if (Object.getOwnPropertyNames(object).length !== keys.length) fail('Non-enumerable properties are not JSON.');
    const out: Record<string, unknown> | null = copy ? {} : null;
    let height = 0;
    let allFrozen = true;
    write?.('{');
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      if (!isWellFormedString(key)) fail('Key contains a lone surrogate.', key);
      const descriptor = Object.getOwnPropertyDescriptor(object, key);
      if (descriptor === undefined || !('value' in descriptor)) fail('Accessor properties are not JSON.', key);
      if (index > 0) write?.(',');
      write?.(`${JSON.stringify(key)}:`);
      tokens.push(key);
      const child = visit(descriptor.value);
      tokens.pop();
      if (child > height) height = child;
      allFrozen &&= frozen;
      if (out !== null) {
        // A `__proto__` key is copied as an own property, never as a prototype.
        if (key === '__proto__') Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
        else out[key] = copied;
      }
    }
    write?.('}');
    return { height: height + 1, frozen: allFrozen, copy: out };
  };

  const height = visit(value);
  return { height, value: copied };
}
