import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import { StorageError, isStorageError, storageIoError } from '@roundtable/storage';
import { migrate } from './migrations.js';
import type { SqliteStorageConfig } from './sqliteStorageOptions.js';
import { translateSqliteError } from './sqliteErrors.js';

function cannotOpen(location: string, cause: unknown): StorageError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new StorageError('INVALID_STORAGE_OPTIONS', `Cannot open the SQLite database ${location}: ${reason}`, { details: { location }, cause });
}

function unsafePath(location: string, reason: string, cause?: unknown): StorageError {
  return new StorageError('UNSAFE_STORAGE_PATH', `Refusing to use ${location} as a SQLite database: ${reason}.`, { details: { path: location }, cause });
}

/** A failure of the file system around the database path, as the storage error a caller can act on. */
function pathError(location: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  // mkdir reports EEXIST, and open ENOTDIR, when a part of the path is a regular file.
  if (code === 'ENOTDIR' || code === 'EEXIST') return unsafePath(location, 'a parent of it is not a directory', error);
  if (code === 'ELOOP') return unsafePath(location, 'its path has too many symbolic links', error);
  if (code === 'ENAMETOOLONG') return new StorageError('INVALID_STORAGE_OPTIONS', `The SQLite path ${location} is too long.`, { details: { location }, cause: error });
  return storageIoError(location, error);
}

/**
 * Creates the parent directories (0700) and the file (0600) if they are missing, so SQLite (which
 * gives -wal and -shm the file's mode) never makes them world-readable, and checks that what is
 * at the path is a regular file. A directory, a FIFO or a dangling symlink there, or a regular
 * file among the parents, is UNSAFE_STORAGE_PATH; any other failure STORAGE_IO_ERROR.
 */
function preparePrivateFile(location: string): void {
  try {
    mkdirSync(dirname(location), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw pathError(location, error);
  }
  try {
    closeSync(openSync(location, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw pathError(location, error);
  }
  let stats: Stats;
  try {
    stats = statSync(location);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw unsafePath(location, 'it is a dangling symbolic link', error);
    throw pathError(location, error);
  }
  if (stats.isDirectory()) throw unsafePath(location, 'it is a directory, not a database file');
  if (!stats.isFile()) throw unsafePath(location, 'it is not a regular file');
  if (stats.size > 0) checkDatabaseHeader(location, stats.size);
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

function damagedFile(location: string, reason: string): StorageError {
  return new StorageError('CORRUPT_EVENT_STREAM', `The database ${location} is damaged: ${reason}.`, { details: { location } });
}

/**
 * SQLite treats a file shorter than one page as an empty database, and would then write a fresh
 * schema over what is left of a truncated record. A non-empty file must therefore start with
 * the SQLite header and hold at least the one page it declares (an empty file is one this
 * adapter created and SQLite has not written yet: a new database).
 */
function checkDatabaseHeader(location: string, size: number): void {
  const header = Buffer.alloc(100);
  let bytesRead: number;
  try {
    const fd = openSync(location, 'r');
    try {
      bytesRead = readSync(fd, header, 0, header.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw pathError(location, error);
  }
  if (bytesRead < header.length || !header.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) throw damagedFile(location, 'it is not a SQLite database (or its header is cut short)');
  const declared = header.readUInt16BE(16);
  const pageSize = declared === 1 ? 65_536 : declared;
  if (size < pageSize) throw damagedFile(location, `it is ${size} bytes, shorter than its first page (${pageSize} bytes): truncated`);
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
    preparePrivateFile(config.location);
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
