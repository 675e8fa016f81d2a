export { GraphErrorCodes, GraphValidationError, GraphValidationIssueSchema, isGraphValidationError } from './errors.js';
export type { GraphErrorCode, GraphValidationIssue } from './errors.js';
export { GraphDefinitionSchema, GraphEdgeSchema, GraphNodeSchema, IdentifierSchema, validateGraphDefinition } from './graphDefinition.js';
export type { GraphDefinition, GraphEdge, GraphNode } from './graphDefinition.js';
export { GraphEventSchema, MAX_CANCEL_REASON_LENGTH } from './graphEvent.js';
export type { GraphEvent } from './graphEvent.js';
export {
  CompleteCommandSchema,
  DispatchCommandSchema,
  FailCommandSchema,
  GraphCommandSchema,
  PauseCommandSchema,
  TerminalCommandSchema,
} from './graphCommand.js';
export type { CompleteCommand, DispatchCommand, FailCommand, GraphCommand, PauseCommand, TerminalCommand } from './graphCommand.js';
export type { GraphType, GraphTypeFunctions } from './graphType.js';
export { findJsonProblem } from './json.js';
export type { JsonProblem } from './json.js';
export { compileGraph } from './compileGraph.js';
export type { CompiledGraph, CompiledDefinition, GraphDefinitionInput } from './compileGraph.js';
export { TEAM_GRAPH_KIND, TEAM_GRAPH_VERSION, teamGraphType } from './teamGraphType.js';
export { TeamFailureCodes } from './teamFailureCodes.js';
export type { TeamFailureCode } from './teamFailureCodes.js';
export {
  TeamCommunicationSchema,
  TeamDefinitionSchema,
  TeamDispatchInputSchema,
  TeamGraphDataSchema,
  TeamGraphResultSchema,
  TeamMessageSchema,
  TeamNodeDataSchema,
  TeamPostSchema,
  TeamRoomSchema,
  TeamTurnResultSchema,
} from './teamSchemas.js';
export type {
  TeamCommunication,
  TeamDefinition,
  TeamDispatchInput,
  TeamGraphData,
  TeamGraphResult,
  TeamMessage,
  TeamNodeData,
  TeamPost,
  TeamRoom,
  TeamTurnResult,
} from './teamSchemas.js';
export { teamMemberStates, teamMessages, teamPosition } from './teamState.js';
export type { TeamMemberState, TeamMemberStatus, TeamMessageLog, TeamState } from './teamState.js';
export { GraphExecutionError, GraphExecutionErrorCodes, isGraphExecutionError } from './graphExecutionError.js';
export type { GraphExecutionErrorCode } from './graphExecutionError.js';
export { GRAPH_EVENT_VERSION, GraphEventTypes, cancelReasonProblem, graphEventProblem } from './graphEventTypes.js';
export type { RecordReader, RecordedEvent } from './recordedEvent.js';
export { parseRunStartedEvent, parseStoredDefinition, readRunDefinition, runStartedPayload, storedGraphMismatch } from './runStartedEvent.js';
export type { StoredRunDefinition } from './runStartedEvent.js';
export { RunRecordFolder } from './runRecordFolder.js';
export type { AttemptFailure, AttemptPause, FoldLookAhead, OpenAttempt, RecordedCancel, RecordedFailure, RecordedFork } from './runRecordFolder.js';
export { MAX_FORK_DEPTH, isRunForkedEvent, parseRunForkedEvent, runForkedPayload } from './runForkedEvent.js';
export type { RunForked } from './runForkedEvent.js';
export { forkDepth, forkOf, runReader, runView } from './runView.js';
export type { RunEvent } from './runView.js';
export { foldStream } from './foldStream.js';
export type { FoldMoreStreamOptions, FoldNewStreamOptions, FoldStreamOptions } from './foldStream.js';
export { isEndStep, nextStep } from './nextStep.js';
export type { EndStep, InFlightAttempt, NextStep, ReadyAttempt, RunFailure } from './nextStep.js';
export { compileStoredDefinition, openStoredRun } from './openStoredRun.js';
export type { OpenStoredRunOptions, StoredRun } from './openStoredRun.js';
export { AttemptStatuses, RunStatuses, runStatusOf } from './runStatus.js';
export type { AttemptStatus, RunStatus } from './runStatus.js';
