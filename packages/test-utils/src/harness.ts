// `@roundtable/test-utils/harness`: the storage crash and race harnesses (they assert with vitest's `expect`).
export { killWritersMidAppend, raceTwoProcesses } from './storageFaults.js';
export type { HarnessStorage, KillWritersOptions, RaceOptions } from './storageFaults.js';
export { childProcessDatabase, postgresTestDatabase, postgresTestUrl, rawPostgresClient } from './postgresTestDatabase.js';
export { childProcessSuite, tempDirectoryPerFile } from './childProcessSuite.js';
export type { ChildProcessSuite, ChildProcessSuiteOptions } from './childProcessSuite.js';
