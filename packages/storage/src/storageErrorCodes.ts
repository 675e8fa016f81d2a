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
  /**
   * The backing data's schema is not one this adapter uses as it is: written by a newer version
   * of the adapter, or (opened with `readOnly: true`, which never migrates) an older one. It is
   * left untouched.
   */
  UNSUPPORTED_SCHEMA_VERSION: 'UNSUPPORTED_SCHEMA_VERSION',
  /**
   * Opened with `readOnly: true`, the location holds no Roundtable store (nothing there, an empty
   * or foreign folder, a database without Roundtable's tables); `details.found` says what is
   * there. Nothing was created or changed.
   */
  NOT_A_STORE: 'NOT_A_STORE',
  /** An append through an instance opened with `readOnly: true`; nothing was written. */
  STORAGE_READ_ONLY: 'STORAGE_READ_ONLY',
} as const;

export type StorageErrorCode = (typeof StorageErrorCodes)[keyof typeof StorageErrorCodes];
