// `@roundtable/test-utils/workers`: what child-process fixtures import (no vitest, no driver).
export { appendAtHead, appendBatchesUntilKilled, errorCode, serveRaceCommands } from './storageWorkers.js';
export type { AppendedAtHead, AppendingStorage, CrashWriterOptions, RaceCommand } from './storageWorkers.js';
export { newBatch, newEvent, TEST_TIMESTAMP } from './storageEvents.js';
export type { TestEvent, TestJson } from './storageEvents.js';
export { runToEnd } from './runToEnd.js';
export type { EndableExecutor, EndableResult } from './runToEnd.js';
