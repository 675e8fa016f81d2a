import { RoundtableError, errorGuard, isRoundtableError } from '@roundtable/core';
import type { RoomsErrorCode } from './roomsErrorCodes.js';

export { RoomsErrorCodes } from './roomsErrorCodes.js';
export type { RoomsErrorCode } from './roomsErrorCodes.js';

export class RoomsError extends RoundtableError<RoomsErrorCode> {
  static override readonly marker: symbol = Symbol.for('@roundtable/rooms/error');
  override name = 'RoomsError';
}

/** True when `error` is a rooms error (from any installed copy), optionally with `code`. */
export const isRoomsError = errorGuard(RoomsError);

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
