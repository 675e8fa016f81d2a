import { closeSync, lstatSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import { StorageError, isStorageError } from '@roundtable/storage';
import { notAStore, storageIoError } from '@roundtable/storage/adapter';
import { NOT_A_STORE_FIX, migrate, requireStoreSchema } from './migrations.js';
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
 * gives -wal and -shm the file's mode) never makes them world-readable, and checks what is at the
 * path (`checkDatabaseFile`).
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
  checkDatabaseFile(location, false);
}

/**
 * For a read-only open, which creates nothing: the file must already be there, and be a SQLite
 * database (`checkDatabaseFile`). Nothing at the path, or an empty file, is NOT_A_STORE.
 */
function requireExistingFile(location: string): void {
  let present: boolean;
  try {
    present = lstatSync(location, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    throw pathError(location, error);
  }
  if (!present) throw notAStore(location, 'there is no file there', NOT_A_STORE_FIX);
  if (checkDatabaseFile(location, true) === 0) throw notAStore(location, 'it is an empty file', NOT_A_STORE_FIX);
}

/**
 * Checks that what is at the path is a regular file and, when it is not empty, a whole SQLite
 * database (`checkDatabaseHeader`); returns its size. A directory, a FIFO or a dangling symlink
 * there, or a regular file among the parents, is UNSAFE_STORAGE_PATH; any other failure
 * STORAGE_IO_ERROR.
 */
function checkDatabaseFile(location: string, readOnly: boolean): number {
  let stats: Stats;
  try {
    stats = statSync(location);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw unsafePath(location, 'it is a dangling symbolic link', error);
    throw pathError(location, error);
  }
  if (stats.isDirectory()) throw unsafePath(location, 'it is a directory, not a database file');
  if (!stats.isFile()) throw unsafePath(location, 'it is not a regular file');
  if (stats.size > 0) checkDatabaseHeader(location, stats.size, readOnly);
  return stats.size;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

function damagedFile(location: string, reason: string): StorageError {
  return new StorageError('CORRUPT_EVENT_STREAM', `The database ${location} is damaged: ${reason}.`, { details: { location } });
}

/**
 * SQLite treats a file shorter than one page as an empty database, and would then write a fresh
 * schema over what is left of a truncated record. A non-empty file must therefore start with
 * the SQLite header and hold at least the one page it declares (an empty file is one this
 * adapter created and SQLite has not written yet: a new database). For a read-only open a file
 * without the header is NOT_A_STORE.
 */
function checkDatabaseHeader(location: string, size: number, readOnly: boolean): void {
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
  const isSqlite = header.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC);
  // A reader overwrites nothing, so a file that never was a database is only not a store.
  if (!isSqlite && readOnly) throw notAStore(location, `it is a file of ${size} bytes that is not a SQLite database (it does not start with the SQLite header)`, NOT_A_STORE_FIX);
  if (bytesRead < header.length || !isSqlite) throw damagedFile(location, 'it is not a SQLite database (or its header is cut short)');
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

function hasFileBeside(location: string, suffix: string): boolean {
  try {
    return lstatSync(`${location}${suffix}`, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** How many connections `openDatabase` made to each file are open in this process (see `openReadConnection`). */
const openHere = new Map<string, number>();

/**
 * A connection that only reads. On a WAL database SQLite makes the -wal and -shm files at the
 * first read when they are missing; a read-only connection can neither remove them nor
 * checkpoint, so it would leave them behind, while a read-write connection that never writes
 * (`query_only`) removes them again when it is the last to close. So it is read-write with
 * `query_only`, unless a -wal or -journal file is beside the database and no connection of this
 * process has it open: then those files are another process's (a writer that has the file open,
 * or crashed), and a read-only connection leaves them, and the database, exactly as they are.
 */
function openReadConnection(config: SqliteStorageConfig): BetterSqlite3.Database {
  const othersFiles = !openHere.has(config.location) && (hasFileBeside(config.location, '-wal') || hasFileBeside(config.location, '-journal'));
  const db = new Database(config.location, { readonly: othersFiles, fileMustExist: true, timeout: config.busyTimeoutMs });
  try {
    db.pragma('query_only = ON');
    requireStoreSchema(db, config.location);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Closes a connection `openDatabase` returned. */
export function closeDatabase(db: BetterSqlite3.Database, location: string): void {
  db.close();
  const count = (openHere.get(location) ?? 1) - 1;
  if (count > 0) openHere.set(location, count);
  else openHere.delete(location);
}

/**
 * Opens the database in WAL mode with the configured durability and busy timeout, and brings
 * its schema up to date; with `readOnly`, opens an existing store's file for reading only and
 * checks its schema (nothing is created, migrated or written). Every failure is a
 * StorageError; the connection is closed on failure. Close it with `closeDatabase`.
 */
export function openDatabase(config: SqliteStorageConfig): BetterSqlite3.Database {
  let db: BetterSqlite3.Database | undefined;
  try {
    if (config.readOnly) {
      requireExistingFile(config.location);
      db = openReadConnection(config);
    } else {
      preparePrivateFile(config.location);
      db = new Database(config.location, { timeout: config.busyTimeoutMs });
      configure(db, config);
    }
    openHere.set(config.location, (openHere.get(config.location) ?? 0) + 1);
    return db;
  } catch (error) {
    db?.close();
    const translated = translateSqliteError(error, config);
    if (isStorageError(translated)) throw translated;
    throw cannotOpen(config.location, error);
  }
}
