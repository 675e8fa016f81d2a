// @roundtable/runtime: one import for the public API of core, graph, the storage port, the
// memory adapter, the scheduler, rooms and contracts. Durable adapters are separate installs.

// core
export { JsonValueError, MAX_JSON_DEPTH, RoundtableError, assertJson, canonicalJson, digest, isIdentifier, isJson, isRoundtableError } from '@roundtable/core';
export type { Digest, Json, JsonObject, RoundtableErrorOptions } from '@roundtable/core';

// graph
export {
  GraphErrorCodes,
  GraphEventTypes,
  GraphExecutionError,
  GraphExecutionErrorCodes,
  GraphValidationError,
  RunRecordFolder,
  foldStream,
  TEAM_GRAPH_KIND,
  TEAM_GRAPH_VERSION,
  TeamFailureCodes,
  TeamDispatchInputSchema,
  TeamGraphResultSchema,
  TeamTurnResultSchema,
  compileGraph,
  isGraphExecutionError,
  isGraphValidationError,
  findJsonProblem,
  teamGraphType,
  teamMemberStates,
  teamMessages,
  teamPosition,
} from '@roundtable/graph';
export type {
  CompiledGraph,
  GraphCommand,
  GraphDefinition,
  GraphEvent,
  GraphType,
  GraphTypeFunctions,
  GraphValidationIssue,
  JsonProblem,
  FoldStreamOptions,
  RecordReader,
  StoredRunDefinition,
  TeamCommunication,
  TeamDefinition,
  TeamDispatchInput,
  TeamGraphData,
  TeamGraphResult,
  TeamMemberState,
  TeamMessage,
  TeamNodeData,
  TeamPost,
  TeamRoom,
  TeamState,
  TeamTurnResult,
} from '@roundtable/graph';

// storage port
export { DEFAULT_NAMESPACE, DEFAULT_STORAGE_LIMITS, StorageError, StorageErrorCodes, isStorageError } from '@roundtable/storage';
export type { NewEvent, ReadOptions, RunStorage, StorageIdentity, StorageLimits, StorageOptions, StoredEvent } from '@roundtable/storage';
export { followStream } from '@roundtable/storage';
export type { FollowStreamOptions } from '@roundtable/storage';

// memory adapter
export { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
export type { MemoryBacking, MemoryStorageOptions } from '@roundtable/storage-memory';

// scheduler
export {
  AttemptFailureCodes,
  DEFAULT_RETRY_CODES,
  createGraphExecutor,
  loadRunDefinition,
  teamMemberResult,
  teamMembers,
  teamOutput,
} from '@roundtable/scheduler';
export type {
  GraphExecutor,
  GraphExecutorOptions,
  GraphRunFailure,
  GraphRunResult,
  NodeAction,
  NodeBinding,
  NodeBindingObject,
  NodeContext,
  NodeFailure,
  NodeLimits,
  NodePause,
  NodeRetry,
  ResumeOptions,
  TeamMemberBinding,
  TeamMemberBindingObject,
  TeamMemberBindings,
  TeamMemberContext,
  TeamMemberRun,
} from '@roundtable/scheduler';

// rooms
export { escapeRoomField, formatRoomLine, projectTeamRooms } from '@roundtable/rooms';
export type { ProjectTeamRoomsOptions, ProjectedRoomFile, ProjectedRooms } from '@roundtable/rooms';
export { RoomsError, RoomsErrorCodes, followTeamRooms, isRoomsError, roomFileName, roomIndexFileName } from '@roundtable/rooms';
export type { FollowTeamRoomsOptions, RoomsErrorCode } from '@roundtable/rooms';

// contracts
export { ResultContractError, ResultContractErrorCodes, defineResultContract, teamResultContract } from '@roundtable/contracts';
export type { ResultContract, ResultContractIssue, ResultContractRecord } from '@roundtable/contracts';
