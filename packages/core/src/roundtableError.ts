import { errorGuard } from './errorGuard.js';

export interface RoundtableErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The base class of every error Roundtable throws. `code` is a stable string: renaming one is
 * a breaking change. Errors are recognised by `Symbol.for` markers, not `instanceof`, so two
 * copies of a package in one program still recognise each other's errors: each class declares
 * its own `static marker`, and the constructor marks the instance with the marker of its class
 * and of every class it extends. A subclass then differs from another only in its name, its
 * marker and its codes:
 *
 * ```ts
 * export class StorageError extends RoundtableError<StorageErrorCode> {
 *   static override readonly marker: symbol = Symbol.for('@roundtable/storage/error');
 *   override name = 'StorageError';
 * }
 * export const isStorageError = errorGuard(StorageError);
 * ```
 */
export class RoundtableError<Code extends string = string> extends Error {
  /** The `Symbol.for` key that marks instances of this class (from any installed copy). */
  static readonly marker: symbol = Symbol.for('@roundtable/error');

  readonly code: Code;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: Code, message: string, options: RoundtableErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RoundtableError';
    this.code = code;
    this.details = options.details;
    // Not enumerable: a marker is never copied by a spread, printed, or compared by a deep equal.
    for (let type: unknown = new.target; type !== Error && type !== null; type = Object.getPrototypeOf(type)) {
      if (Object.hasOwn(type as object, 'marker')) Object.defineProperty(this, (type as typeof RoundtableError).marker, { value: true });
    }
  }
}

/** True when `error` is a Roundtable error (from any installed copy), optionally with `code`. */
export const isRoundtableError = errorGuard(RoundtableError);
