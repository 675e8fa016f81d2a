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
