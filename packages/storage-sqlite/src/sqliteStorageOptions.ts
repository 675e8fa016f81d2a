import { resolve } from 'node:path';
import { StorageError } from '@roundtable/storage';
import { resolveStorageOptions } from '@roundtable/storage/adapter';
import type { StorageOptions } from '@roundtable/storage';
import type { StorageConfig } from '@roundtable/storage/adapter';

/** What `createSqliteStorage` takes: the options every adapter takes, plus where and how to write. */
export interface SqliteStorageOptions extends StorageOptions {
  /** The database file. Relative paths resolve against the current directory; a missing parent directory is created (0700), unless `readOnly`. */
  readonly filename: string;
  /** `'full'` (default) syncs the WAL on every commit; `'normal'` only at checkpoints (see README). */
  readonly synchronous?: 'full' | 'normal';
  /** How long a write waits for another connection's lock before failing (default 5000 ms). */
  readonly busyTimeoutMs?: number;
}

/** SQLite options with defaults applied and checked. */
export interface SqliteStorageConfig extends StorageConfig {
  /** Absolute path of the database file. */
  readonly location: string;
  readonly synchronous: 'full' | 'normal';
  readonly busyTimeoutMs: number;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
// SQLite keeps the busy timeout in a C int.
const MAX_BUSY_TIMEOUT_MS = 0x7fffffff;

function badOption(message: string): StorageError {
  return new StorageError('INVALID_STORAGE_OPTIONS', message);
}

function resolveFilename(filename: unknown): string {
  if (typeof filename !== 'string' || filename.length === 0) throw badOption('filename must be a non-empty string.');
  // better-sqlite3 trims names and treats these as in-memory databases: neither is a file other instances can share.
  if (filename !== filename.trim()) throw badOption('filename must not start or end with whitespace.');
  if (filename === ':memory:') throw badOption('filename must name a file; an in-memory database cannot be shared or reopened.');
  if (filename.includes('\0')) throw badOption('filename must not contain a NUL character.');
  return resolve(filename);
}

export function resolveSqliteStorageOptions(options: SqliteStorageOptions): SqliteStorageConfig {
  if (typeof options !== 'object' || options === null) throw badOption('createSqliteStorage needs an options object with a filename.');
  const location = resolveFilename(options.filename);
  const synchronous: unknown = options.synchronous ?? 'full';
  if (synchronous !== 'full' && synchronous !== 'normal') throw badOption(`synchronous must be 'full' or 'normal', got ${JSON.stringify(synchronous)}.`);
  const busyTimeoutMs: unknown = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (typeof busyTimeoutMs !== 'number' || !Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0 || busyTimeoutMs > MAX_BUSY_TIMEOUT_MS) {
    throw badOption(`busyTimeoutMs must be an integer from 0 to ${MAX_BUSY_TIMEOUT_MS}, got ${String(busyTimeoutMs)}.`);
  }
  return Object.freeze({ ...resolveStorageOptions(options), location, synchronous, busyTimeoutMs });
}
