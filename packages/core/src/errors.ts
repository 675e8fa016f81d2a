const ROUNDTABLE_ERROR = Symbol.for('@roundtable/error');

export interface RoundtableErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The base class of every error Roundtable throws. `code` is a stable string: renaming one
 * is a breaking change. Check errors with `isRoundtableError`, not `instanceof`, so two
 * copies of this package in one program still recognise each other's errors.
 */
export class RoundtableError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, options: RoundtableErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RoundtableError';
    this.code = code;
    this.details = options.details;
    Object.defineProperty(this, ROUNDTABLE_ERROR, { value: true });
  }
}

/** True when `error` is a Roundtable error (from any installed copy), optionally with `code`. */
export function isRoundtableError(error: unknown, code?: string): error is RoundtableError {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as Record<symbol, unknown>)[ROUNDTABLE_ERROR] !== true) return false;
  return code === undefined || (error as { code?: unknown }).code === code;
}
