import type { RunStorage } from '@roundtable/storage';
import { appendToStream } from './appendToStream.js';
import { listStreams } from './listStreams.js';
import { closePostgresContext, openPostgresContext, ready } from './postgresContext.js';
import type { PostgresStorageOptions } from './postgresStorageOptions.js';
import { readHead } from './readHead.js';
import { readStream } from './readStream.js';
import type { ChangedStreams } from './changeListener.js';
import { namespaceChanges, streamChanges } from './streamChanges.js';

/** A `RunStorage` over PostgreSQL, with change hints by LISTEN/NOTIFY. */
export interface PostgresStorage extends RunStorage {
  /**
   * Connects and brings the schema up to date, if that has not happened yet (with `readOnly`,
   * checks it instead: NOT_A_STORE, UNSUPPORTED_SCHEMA_VERSION). Every method does this first,
   * so calling it is optional: it surfaces a bad connection string, a refused login, a newer
   * schema or (read-only) a database that holds no store before the first read or append.
   */
  ready(): Promise<void>;
  /** Yields once when listening starts (and after each reconnect), then whenever an append to `streamId` commits, until `signal` aborts. */
  changes(streamId: string, signal: AbortSignal): AsyncIterable<void>;
  /**
   * Every stream of this instance's namespace as appends to it commit, until `signal` aborts:
   * first `{ all: true, streamIds: [] }` once listening starts (and again after each reconnect:
   * what was committed meanwhile was not announced, so any stream may have changed), then
   * batches of the stream ids with commits since the last batch (each id once per batch). Hints,
   * like `changes`: read the streams to learn what changed.
   */
  changedStreams(signal: AbortSignal): AsyncIterable<ChangedStreams>;
}

/**
 * A `RunStorage` over one PostgreSQL schema. Any number of instances, in any number of
 * processes and machines, may share it: each append is one statement that moves the stream's
 * head only from `expectedRevision`. It returns at once; the first method call (or `ready()`)
 * connects and migrates. Throws a StorageError when the options are invalid. With `readOnly:
 * true` it creates and migrates nothing (the schema must already hold a store) and refuses every
 * append (STORAGE_READ_ONLY). Each operation is a file of its own over the instance's
 * `PostgresContext`.
 */
export function createPostgresStorage(options: PostgresStorageOptions): PostgresStorage {
  const context = openPostgresContext(options);
  return {
    identity: context.identity,
    ready: () => ready(context),
    head: (streamId) => readHead(context, streamId),
    read: (streamId, readOptions) => readStream(context, streamId, readOptions),
    append: (streamId, expectedRevision, events) => appendToStream(context, streamId, expectedRevision, events),
    streams: () => listStreams(context),
    changes: (streamId, signal) => streamChanges(context, streamId, signal),
    changedStreams: (signal) => namespaceChanges(context, signal),
    close: () => closePostgresContext(context),
  };
}
