import { RoundtableError } from './roundtableError.js';
import { errorGuard } from './errorGuard.js';

export const JsonErrorCodes = { INVALID_JSON_VALUE: 'INVALID_JSON_VALUE' } as const;

export type JsonErrorCode = (typeof JsonErrorCodes)[keyof typeof JsonErrorCodes];

/** A value that is not JSON. `path` is a JSON pointer to the offending part ('' is the value itself). */
export class JsonValueError extends RoundtableError<JsonErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/core/json-value-error');
  readonly path: string;

  constructor(path: string, message: string) {
    super(JsonErrorCodes.INVALID_JSON_VALUE, path === '' ? message : `${message} (at ${path})`, { details: { path } });
    this.name = 'JsonValueError';
    this.path = path;
  }
}

/** True when `error` is a `JsonValueError` (from any installed copy), optionally with `code`. */
export const isJsonValueError = errorGuard(JsonValueError);
