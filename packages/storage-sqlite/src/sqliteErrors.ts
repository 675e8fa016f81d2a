import { StorageError } from '@roundtable/storage';
import { corruptStream, storageIoError } from '@roundtable/storage/adapter';

/** Where a SQLite failure happened, so it can be reported with the right storage error. */
export interface SqliteErrorContext {
  readonly location: string;
  readonly busyTimeoutMs: number;
  readonly streamId?: string;
}

/** The SQLite result code of a better-sqlite3 error (`SQLITE_…`), or undefined for anything else. */
export function sqliteCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

function damaged(context: SqliteErrorContext, message: string, cause: unknown): StorageError {
  if (context.streamId !== undefined) return corruptStream(context.streamId, message, cause);
  return new StorageError('CORRUPT_EVENT_STREAM', `The database ${context.location} is damaged: ${message}`, { details: { location: context.location }, cause });
}

/**
 * Turns a better-sqlite3 error into the storage error a caller can act on: a lock held past
 * `busyTimeoutMs` is STORAGE_BUSY, damage is CORRUPT_EVENT_STREAM, and every other failure of
 * the file (disk full, I/O, permissions) is STORAGE_IO_ERROR with the SQLite code in details.
 */
export function translateSqliteError(error: unknown, context: SqliteErrorContext): unknown {
  const code = sqliteCode(error);
  if (code === undefined) return error;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StorageError(
      'STORAGE_BUSY',
      `The database ${context.location} stayed locked by another connection for longer than busyTimeoutMs (${context.busyTimeoutMs} ms); nothing was written.`,
      { details: { busyTimeoutMs: context.busyTimeoutMs, sqliteCode: code }, cause: error },
    );
  }
  if (code.startsWith('SQLITE_FULL')) {
    return new StorageError('STORAGE_IO_ERROR', `The disk holding ${context.location} is full; nothing was written.`, {
      details: { location: context.location, systemCode: code },
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) return damaged(context, `SQLite reports ${code}.`, error);
  // Only `append` writes, and it checks the head and every event id first: a constraint failure
  // means the stored rows disagree with the stream's head.
  if (code.startsWith('SQLITE_CONSTRAINT')) return damaged(context, `its stored rows disagree with its head (${code}).`, error);
  return storageIoError(context.location, error);
}

/** Runs synchronous database work and reports SQLite failures as storage errors. */
export function withSqliteErrors<T>(context: SqliteErrorContext, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw translateSqliteError(error, context);
  }
}
