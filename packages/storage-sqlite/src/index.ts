export { createSqliteStorage } from './createSqliteStorage.js';
export { DEFAULT_BUSY_TIMEOUT_MS } from './sqliteStorageOptions.js';
export type { SqliteStorageOptions } from './sqliteStorageOptions.js';
export { SQLITE_SCHEMA_VERSION } from './migrations.js';
