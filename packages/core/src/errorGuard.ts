import type { RoundtableError } from './roundtableError.js';

/** A Roundtable error class: anything with a `static marker` whose instances are Roundtable errors. */
export type RoundtableErrorClass<E extends RoundtableError> = (abstract new (...args: never[]) => E) & { readonly marker: symbol };

/** The guard `errorGuard` builds: true for an instance of the class (from any installed copy), optionally with `code`. */
export type ErrorGuard<E extends RoundtableError> = (error: unknown, code?: E['code']) => error is E;

/**
 * The one guard every package's `isXError(error, code?)` is made from: it checks the class's
 * `Symbol.for` marker (set on every instance by `RoundtableError`'s constructor), never
 * `instanceof`, so an error made by another installed copy of the package is recognised too.
 * An instance of a subclass carries its parents' markers as well, so a parent's guard
 * recognises it. (vercel/ai's `AISDKError.hasMarker` is the model.)
 */
export function errorGuard<E extends RoundtableError>(type: RoundtableErrorClass<E>): ErrorGuard<E> {
  const marker = type.marker;
  return (error: unknown, code?: E['code']): error is E => {
    if (typeof error !== 'object' || error === null) return false;
    if ((error as Record<symbol, unknown>)[marker] !== true) return false;
    return code === undefined || (error as { code?: unknown }).code === code;
  };
}
