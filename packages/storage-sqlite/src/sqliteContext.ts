import type BetterSqlite3 from 'better-sqlite3';
import { StorageError } from '@roundtable/storage';
import type { StorageIdentity } from '@roundtable/storage';
import packageJson from '../package.json' with { type: 'json' };
import { DataVersionHints } from './dataVersionHints.js';
import { closeDatabase, openDatabase } from './openDatabase.js';
import { withSqliteErrors } from './sqliteErrors.js';
import type { SqliteErrorContext } from './sqliteErrors.js';
import { prepareStatements } from './sqliteStatements.js';
import type { SqliteStatements } from './sqliteStatements.js';
import { resolveSqliteStorageOptions } from './sqliteStorageOptions.js';
import type { SqliteStorageConfig, SqliteStorageOptions } from './sqliteStorageOptions.js';
import { WalCheckpointer } from './walCheckpointer.js';
import { createBatchWriter } from './writeBatch.js';
import type { BatchWriter } from './writeBatch.js';

const ADAPTER = '@roundtable/storage-sqlite';

/** What every operation of one SQLite storage instance shares. */
export interface SqliteContext {
  readonly config: SqliteStorageConfig;
  readonly namespace: string;
  readonly db: BetterSqlite3.Database;
  readonly statements: SqliteStatements;
  readonly writeBatch: BatchWriter;
  readonly identity: StorageIdentity;
  readonly hints: DataVersionHints;
  /** Background WAL checkpoints with `synchronous: 'normal'`; null otherwise (see WalCheckpointer). */
  readonly checkpointer: WalCheckpointer | null;
  /** Aborted by `close()`: ends every change-hint iterable of the instance. */
  readonly closing: AbortController;
  closed: boolean;
  closeDone: Promise<void> | null;
}

/** Checks the options, opens the database (creating and migrating it unless `readOnly`) and prepares the statements. */
export function openSqliteContext(options: SqliteStorageOptions): SqliteContext {
  const config = resolveSqliteStorageOptions(options);
  const { namespace } = config;
  const db = openDatabase(config);
  let statements: SqliteStatements;
  try {
    // A file whose migrations table is there but whose tables are not fails here: typed, and closed.
    statements = withSqliteErrors({ location: config.location, busyTimeoutMs: config.busyTimeoutMs }, () => prepareStatements(db));
  } catch (error) {
    closeDatabase(db, config.location);
    throw error;
  }
  return {
    config,
    namespace,
    db,
    statements,
    writeBatch: createBatchWriter(db, statements, namespace),
    identity: Object.freeze({ adapter: ADAPTER, version: packageJson.version, namespace, location: config.location }),
    hints: new DataVersionHints(config.location, config.busyTimeoutMs),
    // With 'full', SQLite's own checkpoints (see WalCheckpointer for why); a read-only instance commits nothing.
    checkpointer: config.synchronous === 'normal' && !config.readOnly ? new WalCheckpointer(db, config) : null,
    closing: new AbortController(),
    closed: false,
    closeDone: null,
  };
}

/**
 * `RunStorage.close` of the SQLite adapter. Every call waits for the same close: the checkpoint
 * worker's connection first, then this one (so this, the last connection, checkpoints the WAL
 * and removes it, as it always did).
 */
export function closeSqliteContext(context: SqliteContext): Promise<void> {
  return (context.closeDone ??= (async () => {
    context.closed = true;
    context.closing.abort();
    context.hints.stop();
    await context.checkpointer?.stop();
    closeDatabase(context.db, context.config.location);
  })());
}

export function assertOpen(context: SqliteContext): void {
  if (context.closed) throw new StorageError('STORAGE_CLOSED', `The SQLite storage ${context.config.location} (namespace ${context.namespace}) is closed.`);
}

/** What an error of this instance reports (`withSqliteErrors`). */
export function errorContext(context: SqliteContext, streamId?: string): SqliteErrorContext {
  return { location: context.config.location, busyTimeoutMs: context.config.busyTimeoutMs, streamId };
}
