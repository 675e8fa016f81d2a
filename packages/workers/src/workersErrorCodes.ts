/** Stable codes of every error `@roundtable/workers` throws. Renaming one is breaking. */
export const WorkersErrorCodes = {
  /** An option of `createWorkerPool`, `submitRun`, `resumeRun` or `runStatus` is missing or malformed. */
  INVALID_WORKERS_OPTIONS: 'INVALID_WORKERS_OPTIONS',
  /** `runStatus` or `resumeRun` named a run the database does not hold. */
  RUN_NOT_FOUND: 'RUN_NOT_FOUND',
  /** `resumeRun` named a position that is not paused. */
  NOT_PAUSED: 'NOT_PAUSED',
  /** No graph type compiles the stored run (runStatus knows `teamGraphType` unless told more). */
  UNKNOWN_GRAPH_TYPE: 'UNKNOWN_GRAPH_TYPE',
  /** The run client was closed. */
  WORKERS_CLOSED: 'WORKERS_CLOSED',
} as const;

export type WorkersErrorCode = (typeof WorkersErrorCodes)[keyof typeof WorkersErrorCodes];
