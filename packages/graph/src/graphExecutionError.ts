import { RoundtableError, isRoundtableError } from '@roundtable/core';
import type { RoundtableErrorOptions } from '@roundtable/core';

/** Stable codes of errors raised while a stored run is folded or executed. */
export const GraphExecutionErrorCodes = {
  STORED_GRAPH_MISMATCH: 'STORED_GRAPH_MISMATCH',
  MISSING_NODE_BINDING: 'MISSING_NODE_BINDING',
  UNKNOWN_NODE_BINDING: 'UNKNOWN_NODE_BINDING',
  INVALID_NODE_BINDING: 'INVALID_NODE_BINDING',
  INVALID_EVENT: 'INVALID_EVENT',
  EMPTY_DECISION: 'EMPTY_DECISION',
  PROTOCOL: 'PROTOCOL',
  DUPLICATE_POSITION: 'DUPLICATE_POSITION',
  ABORTED: 'ABORTED',
} as const;

export type GraphExecutionErrorCode = (typeof GraphExecutionErrorCodes)[keyof typeof GraphExecutionErrorCodes];

/**
 * A stored run that cannot be folded or executed: a record that does not fit together, a
 * graph that differs from the stored one, or a host call out of protocol. It lives beside the
 * record folder so the executor and the room projector raise the same error.
 */
export class GraphExecutionError extends RoundtableError {
  declare readonly code: GraphExecutionErrorCode;

  constructor(code: GraphExecutionErrorCode, message: string, options: RoundtableErrorOptions = {}) {
    super(code, message, options);
    this.name = 'GraphExecutionError';
  }
}

/** True when `error` is a graph execution error (from any installed copy), optionally with `code`. */
export function isGraphExecutionError(error: unknown, code?: GraphExecutionErrorCode): error is GraphExecutionError {
  return isRoundtableError(error, code) && Object.values(GraphExecutionErrorCodes).includes((error as { code: GraphExecutionErrorCode }).code);
}
