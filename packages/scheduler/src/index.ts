export { answerPause } from './answerPause.js';
export { cancelRun } from './cancelRun.js';
export { forkRun, prefixDigest, verifyForkPrefix } from './forkRun.js';
export type { ForkRunOptions } from './forkRun.js';
export type { CancelRunOptions } from './cancelRun.js';
export type { AnswerPauseOptions } from './answerPause.js';
export { createGraphExecutor } from './createGraphExecutor.js';
export type { AttemptStepOptions, GraphExecutor, GraphExecutorOptions, ResumeOptions, ServeOptions, StepOptions, StepReport } from './graphExecutor.js';
export { loadRunDefinition } from './loadRunDefinition.js';
export { AttemptFailureCodes } from './attemptOutcome.js';
export { runResultOf } from './graphRunResult.js';
export type { GraphRunFailure, GraphRunResult } from './graphRunResult.js';
export { DEFAULT_RETRY_CODES } from './nodeBinding.js';
export type {
  NodeAction,
  NodeBinding,
  NodeBindingObject,
  NodeContext,
  NodeFailure,
  NodeLimits,
  NodePause,
  NodeRetry,
  NodeRun,
  ResultValidator,
} from './nodeBinding.js';
export { MAX_RECORDED_MESSAGE_LENGTH } from './safeText.js';
export { SCHEDULER_TRACER_NAME } from './tracing.js';
export { teamMemberResult, teamMembers, teamOutput } from './teamMembers.js';
export type { TeamMemberBinding, TeamMemberBindingObject, TeamMemberBindings, TeamMemberContext, TeamMemberRun } from './teamMembers.js';
export { GraphExecutionError, GraphExecutionErrorCodes, isGraphExecutionError } from '@roundtable/graph';
export type { GraphExecutionErrorCode, StoredRunDefinition } from '@roundtable/graph';
