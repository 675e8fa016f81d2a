import { RoundtableError, errorGuard, isRoundtableError } from '@roundtable/core';
import type { StorageErrorCode } from './storageErrorCodes.js';

export { StorageErrorCodes } from './storageErrorCodes.js';
export type { StorageErrorCode } from './storageErrorCodes.js';

export class StorageError extends RoundtableError<StorageErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/storage/error');
  override name = 'StorageError';
}

/** True when `error` is a storage error (from any installed copy), optionally with `code`. */
export const isStorageError = errorGuard(StorageError);

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

/**
 * What a read-only open (`readOnly: true`) reports when the location holds no Roundtable store:
 * `found` says what is there, `fix` what to pass instead. Nothing was created or changed.
 */
export function notAStore(location: string, found: string, fix: string): StorageError {
  return new StorageError('NOT_A_STORE', `${location} is not a Roundtable store: ${found}. ${fix} (Opened read-only: nothing was created or changed.)`, {
    details: { location, found },
  });
}

/** The first `shown` of `names`, each quoted, then how many more: what a NOT_A_STORE message lists of a foreign location. */
export function quotedNames(names: readonly string[], shown = 10): string {
  const listed = names.slice(0, shown).map((name) => JSON.stringify(name)).join(', ');
  return names.length > shown ? `${listed}, … (${names.length - shown} more)` : listed;
}
