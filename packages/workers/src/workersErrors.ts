import { RoundtableError, errorGuard } from '@roundtable/core';
import type { WorkersErrorCode } from './workersErrorCodes.js';

export { WorkersErrorCodes } from './workersErrorCodes.js';
export type { WorkersErrorCode } from './workersErrorCodes.js';

export class WorkersError extends RoundtableError<WorkersErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/workers/error');
  override name = 'WorkersError';
}

/** True when `error` is a workers error (from any installed copy), optionally with `code`. */
export const isWorkersError = errorGuard(WorkersError);
