import type { RunStorage } from '@roundtable/storage';
import { appendToStream } from './appendToStream.js';
import { listStreams } from './listStreams.js';
import { readHead } from './readHead.js';
import { readStream } from './readStream.js';
import { closeSqliteContext, openSqliteContext } from './sqliteContext.js';
import type { SqliteStorageOptions } from './sqliteStorageOptions.js';
import { streamChanges } from './streamChanges.js';

/**
 * A `RunStorage` over one SQLite file (better-sqlite3, WAL). Instances in any number of
 * processes may share the file: every write is one BEGIN IMMEDIATE transaction. Opening
 * creates the file (0600) and applies schema migrations; it throws a StorageError when the
 * options are invalid or the file cannot be used. With `readOnly: true` it creates, migrates
 * and writes nothing: the file must already be a store at this schema version (NOT_A_STORE,
 * UNSUPPORTED_SCHEMA_VERSION otherwise), and every append is refused (STORAGE_READ_ONLY). Each
 * operation is a file of its own over the instance's `SqliteContext`.
 */
export function createSqliteStorage(options: SqliteStorageOptions): RunStorage {
  const context = openSqliteContext(options);
  return {
    identity: context.identity,
    head: (streamId) => readHead(context, streamId),
    read: (streamId, readOptions) => readStream(context, streamId, readOptions),
    append: (streamId, expectedRevision, events) => appendToStream(context, streamId, expectedRevision, events),
    streams: () => listStreams(context),
    changes: (streamId, signal) => streamChanges(context, streamId, signal),
    close: () => closeSqliteContext(context),
  };
}
