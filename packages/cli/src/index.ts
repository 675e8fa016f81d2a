export { runCli } from './program.js';
export type { CliIo, StoreOptions } from './cliContext.js';
export { ExitCodes } from './cliContext.js';
export { CliError, CliErrorCodes, isCliError } from './cliError.js';
export type { CliErrorCode } from './cliError.js';
export { describeStore, openStore, parseStoreSpec } from './openStore.js';
export type { OpenStoreOptions, StoreSpec } from './openStore.js';
export { knownGraphTypes } from './graphTypes.js';
export { RunInspector } from './runInspector.js';
export type {
  AttemptPost,
  AttemptRecord,
  RecordProblem,
  RunDefinitionSummary,
  RunFailure,
  RunReport,
  RunStatus,
  RunStatusKind,
} from './runInspector.js';
export { readRun } from './readRun.js';
export { startViewer } from './view/viewerServer.js';
export type { RunningViewer, ViewerOptions } from './view/viewerServer.js';
