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
  /** An answer to a pause that is no longer the position's open pause (answered already, or paused again since). */
  STALE_ANSWER: 'STALE_ANSWER',
  /** An action on a run whose stream holds no events. */
  RUN_NOT_FOUND: 'RUN_NOT_FOUND',
  /** A stored run of a graph type the caller did not pass. */
  UNKNOWN_GRAPH_TYPE: 'UNKNOWN_GRAPH_TYPE',
  /** An action on a run that has ended: complete, failed or cancelled. */
  RUN_ENDED: 'RUN_ENDED',
  /** A fork point out of range (before revision 1, after the parent's head) or inside a dispatch batch (SPEC 21). */
  INVALID_FORK_POINT: 'INVALID_FORK_POINT',
  /** A fork (or any new run) to a stream that already holds events. */
  RUN_EXISTS: 'RUN_EXISTS',
  /** A fork of a run that is already a fork 16 levels deep. */
  FORK_TOO_DEEP: 'FORK_TOO_DEEP',
} as const;

export type GraphExecutionErrorCode = (typeof GraphExecutionErrorCodes)[keyof typeof GraphExecutionErrorCodes];
