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
