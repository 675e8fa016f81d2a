export { StorageError, StorageErrorCodes, isStorageError, storageIoError } from './errors.js';
export type { StorageErrorCode } from './errors.js';
export { ENVELOPE_VERSION, NEW_EVENT_KEYS, STORED_EVENT_KEYS } from './events.js';
export type { NewEvent, StoredEvent } from './events.js';
export { DEFAULT_NAMESPACE, DEFAULT_STORAGE_LIMITS } from './storage.js';
export type { ReadOptions, RunStorage, StorageIdentity, StorageLimits, StorageOptions } from './storage.js';
export { assertNewEvent, assertRevision, assertStoredEvent, assertStreamId, isStreamId, readStoredEvent } from './validation.js';
export {
  MIN_KNOWN_SECRET_LENGTH,
  appendBatchBytes,
  corruptStream,
  duplicateEventId,
  eventPayloadBytes,
  prepareAppend,
  storedEventCanonicalText,
  resolveAgainstHead,
  resolveStorageOptions,
  revisionConflict,
} from './prepareAppend.js';
export type { PreparedAppend, StorageConfig } from './prepareAppend.js';
export { findKnownSecret } from './knownSecrets.js';
export { changeHints } from './changeHints.js';
export { DEFAULT_FOLLOW_POLL_INTERVAL_MS, followStream } from './followStream.js';
export type { FollowStreamOptions } from './followStream.js';
