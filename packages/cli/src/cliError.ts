import { RoundtableError, errorGuard } from '@roundtable/core';
import type { CliErrorCode } from './cliErrorCodes.js';

export { CliErrorCodes } from './cliErrorCodes.js';
export type { CliErrorCode } from './cliErrorCodes.js';

export class CliError extends RoundtableError<CliErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/cli/error');
  override name = 'CliError';
}

/** True when `error` is a CLI error (from any installed copy), optionally with `code`. */
export const isCliError = errorGuard(CliError);
