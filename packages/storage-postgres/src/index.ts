export { createPostgresStorage } from './createPostgresStorage.js';
export { changeChannel } from './postgresContext.js';
export type { PostgresStorage } from './createPostgresStorage.js';
export type { ChangedStreams } from './changeListener.js';
export { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_SCHEMA } from './postgresStorageOptions.js';
export type { PostgresStorageOptions } from './postgresStorageOptions.js';
export { POSTGRES_SCHEMA_VERSION } from './migrations.js';
