import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import { StorageError, isStorageError } from '@roundtable/storage';
import { migrate } from './migrations.js';
import type { SqliteStorageConfig } from './sqliteStorageOptions.js';
import { translateSqliteError } from './sqliteErrors.js';

function cannotOpen(location: string, cause: unknown): StorageError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new StorageError('INVALID_STORAGE_OPTIONS', `Cannot open the SQLite database ${location}: ${reason}`, { details: { location }, cause });
}

/** Creates the file 0600 if it is missing, so SQLite (which gives -wal and -shm the file's mode) never makes them world-readable. */
function createPrivateFile(location: string): void {
  mkdirSync(dirname(location), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(location, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY');
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Switches the file to WAL. On a fresh file the switch needs an exclusive lock, and SQLite
 * reports SQLITE_BUSY at once (without calling the busy handler) while another process is
 * opening the same file, so wait and retry here, up to the busy timeout.
 */
function enableWal(db: BetterSqlite3.Database, busyTimeoutMs: number): unknown {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      return db.pragma('journal_mode = WAL', { simple: true });
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      sleepSync(5);
    }
  }
}

function configure(db: BetterSqlite3.Database, config: SqliteStorageConfig): void {
  const journalMode = enableWal(db, config.busyTimeoutMs);
  if (journalMode !== 'wal') throw cannotOpen(config.location, `SQLite kept journal mode ${String(journalMode)} instead of WAL.`);
  db.pragma(`synchronous = ${config.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  migrate(db, config.location);
}

/**
 * Opens the database in WAL mode with the configured durability and busy timeout, and brings
 * its schema up to date. Every failure is a StorageError; the connection is closed on failure.
 */
export function openDatabase(config: SqliteStorageConfig): BetterSqlite3.Database {
  let db: BetterSqlite3.Database | undefined;
  try {
    createPrivateFile(config.location);
    db = new Database(config.location, { timeout: config.busyTimeoutMs });
    configure(db, config);
    return db;
  } catch (error) {
    db?.close();
    const translated = translateSqliteError(error, config);
    if (isStorageError(translated)) throw translated;
    throw cannotOpen(config.location, error);
  }
}
