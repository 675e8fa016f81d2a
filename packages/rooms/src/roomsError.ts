import { RoundtableError, isRoundtableError } from '@roundtable/core';
import type { RoundtableErrorOptions } from '@roundtable/core';

/** Stable codes of the errors the room projector raises itself. Renaming one is breaking. */
export const RoomsErrorCodes = {
  /** Writing the room files failed: the path is a file or a folder where the other is needed, permissions, a full disk. `details` has `path`, `operation` and the system `systemCode`. */
  ROOMS_IO_ERROR: 'ROOMS_IO_ERROR',
  /** The options are not usable: no storage, a directory that is not a non-empty path, a signal that is not an AbortSignal. */
  INVALID_ROOMS_OPTIONS: 'INVALID_ROOMS_OPTIONS',
} as const;

export type RoomsErrorCode = (typeof RoomsErrorCodes)[keyof typeof RoomsErrorCodes];

export class RoomsError extends RoundtableError {
  declare readonly code: RoomsErrorCode;

  constructor(code: RoomsErrorCode, message: string, options: RoundtableErrorOptions = {}) {
    super(code, message, options);
    this.name = 'RoomsError';
  }
}

/** True when `error` is a rooms error (from any installed copy), optionally with `code`. */
export function isRoomsError(error: unknown, code?: RoomsErrorCode): error is RoomsError {
  return isRoundtableError(error, code) && Object.values(RoomsErrorCodes).includes((error as { code: RoomsErrorCode }).code);
}

function systemCodeOf(error: unknown): string | null {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : null;
}

/**
 * Runs one filesystem operation of the projector; anything it throws that is not already a
 * Roundtable error becomes ROOMS_IO_ERROR naming the path and the operation. Every file and
 * folder operation of this package goes through here, so no raw Node error (EISDIR, EEXIST,
 * ENOTDIR, EACCES, ENOSPC, …) escapes.
 */
export async function roomsIo<T>(operation: string, path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw roomsIoError(operation, path, error);
  }
}

/** `error` as ROOMS_IO_ERROR for `operation` on `path`; a Roundtable error is returned unchanged. */
export function roomsIoError(operation: string, path: string, error: unknown): unknown {
  if (isRoundtableError(error)) return error;
  const systemCode = systemCodeOf(error);
  const reason = error instanceof Error ? error.message : String(error);
  return new RoomsError('ROOMS_IO_ERROR', `Cannot ${operation} ${path}: ${reason}`, { details: { path, operation, systemCode }, cause: error });
}
