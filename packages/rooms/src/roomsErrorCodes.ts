/** Stable codes of the errors the room projector raises itself. Renaming one is breaking. */
export const RoomsErrorCodes = {
  /** Writing the room files failed: the path is a file or a folder where the other is needed, permissions, a full disk. `details` has `path`, `operation` and the system `systemCode`. */
  ROOMS_IO_ERROR: 'ROOMS_IO_ERROR',
  /** The options are not usable: no storage, a directory that is not a non-empty path, a signal that is not an AbortSignal. */
  INVALID_ROOMS_OPTIONS: 'INVALID_ROOMS_OPTIONS',
} as const;

export type RoomsErrorCode = (typeof RoomsErrorCodes)[keyof typeof RoomsErrorCodes];
