import { RoundtableError, isRoundtableError } from '@roundtable/core';
import type { RoundtableErrorOptions } from '@roundtable/core';

/** Stable codes of every error the storage port and its adapters throw. Renaming one is breaking. */
export const StorageErrorCodes = {
  INVALID_STORED_VALUE: 'INVALID_STORED_VALUE',
  UNSUPPORTED_ENVELOPE_VERSION: 'UNSUPPORTED_ENVELOPE_VERSION',
  REVISION_CONFLICT: 'REVISION_CONFLICT',
  DUPLICATE_EVENT_ID: 'DUPLICATE_EVENT_ID',
  STORAGE_LIMIT_EXCEEDED: 'STORAGE_LIMIT_EXCEEDED',
  KNOWN_SECRET: 'KNOWN_SECRET',
  CORRUPT_EVENT_STREAM: 'CORRUPT_EVENT_STREAM',
  UNSAFE_STORAGE_PATH: 'UNSAFE_STORAGE_PATH',
  INVALID_STORAGE_OPTIONS: 'INVALID_STORAGE_OPTIONS',
  STORAGE_CLOSED: 'STORAGE_CLOSED',
  /** The backing store failed (disk full, permission, I/O error); `details.cause` names the system code. */
  STORAGE_IO_ERROR: 'STORAGE_IO_ERROR',
  /** Another process held the store's lock for longer than the adapter waits; nothing was written. */
  STORAGE_BUSY: 'STORAGE_BUSY',
  /** The backing data was written by a newer version of the adapter; it is left untouched. */
  UNSUPPORTED_SCHEMA_VERSION: 'UNSUPPORTED_SCHEMA_VERSION',
} as const;

export type StorageErrorCode = (typeof StorageErrorCodes)[keyof typeof StorageErrorCodes];

export class StorageError extends RoundtableError {
  declare readonly code: StorageErrorCode;

  constructor(code: StorageErrorCode, message: string, options: RoundtableErrorOptions = {}) {
    super(code, message, options);
    this.name = 'StorageError';
  }
}

/** True when `error` is a storage error (from any installed copy), optionally with `code`. */
export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return isRoundtableError(error, code) && Object.values(StorageErrorCodes).includes((error as { code: StorageErrorCode }).code);
}

/**
 * Wraps a failure of the backing store that is not already a Roundtable error (ENOSPC, EACCES,
 * EIO, a driver's I/O error) as STORAGE_IO_ERROR, keeping the original as `cause` and its code
 * in `details.systemCode`. Roundtable errors pass through unchanged.
 */
export function storageIoError(location: string, error: unknown): unknown {
  if (isRoundtableError(error)) return error;
  const systemCode = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : null;
  const reason = error instanceof Error ? error.message : String(error);
  return new StorageError('STORAGE_IO_ERROR', `The store at ${location} failed: ${reason}`, { details: { location, systemCode }, cause: error });
}

export function revisionConflict(expectedRevision: number, actualRevision: number): StorageError {
  return new StorageError('REVISION_CONFLICT', `Expected revision ${expectedRevision} but the stream is at ${actualRevision}.`, {
    details: { expectedRevision, actualRevision },
  });
}

export function duplicateEventId(eventId: string, streamId: string): StorageError {
  return new StorageError('DUPLICATE_EVENT_ID', `Event id ${JSON.stringify(eventId)} is already in stream ${streamId}.`, {
    details: { eventId, streamId },
  });
}

/** Reads of damaged data fail closed with this. */
export function corruptStream(streamId: string, message: string, cause?: unknown): StorageError {
  return new StorageError('CORRUPT_EVENT_STREAM', `Stream ${streamId} is damaged: ${message}`, { details: { streamId }, cause });
}
