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
