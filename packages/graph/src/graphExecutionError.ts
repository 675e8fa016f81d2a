import { RoundtableError, errorGuard } from '@roundtable/core';
import type { GraphExecutionErrorCode } from './graphExecutionErrorCodes.js';

export { GraphExecutionErrorCodes } from './graphExecutionErrorCodes.js';
export type { GraphExecutionErrorCode } from './graphExecutionErrorCodes.js';

/**
 * A stored run that cannot be folded or executed: a record that does not fit together, a
 * graph that differs from the stored one, or a host call out of protocol. It lives beside the
 * record folder so the executor and the room projector raise the same error.
 */
export class GraphExecutionError extends RoundtableError<GraphExecutionErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/graph/execution-error');
  override name = 'GraphExecutionError';
}

/** True when `error` is a graph execution error (from any installed copy), optionally with `code`. */
export const isGraphExecutionError = errorGuard(GraphExecutionError);
