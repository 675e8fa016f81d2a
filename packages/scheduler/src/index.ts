export { createGraphExecutor } from './createGraphExecutor.js';
export type { GraphExecutor, GraphExecutorOptions, ResumeOptions } from './createGraphExecutor.js';
export { loadRunDefinition } from './loadRunDefinition.js';
export { AttemptFailureCodes } from './attemptOutcome.js';
export type { GraphRunResult } from './graphRunResult.js';
export type { NodeAction, NodeBinding, NodeBindingObject, NodeContext, NodeLimits, NodeRun, ResultValidator } from './nodeBinding.js';
export { GraphExecutionError, GraphExecutionErrorCodes, isGraphExecutionError } from '@roundtable/graph';
export type { GraphExecutionErrorCode, StoredRunDefinition } from '@roundtable/graph';
