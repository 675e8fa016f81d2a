// @roundtable/storage/adapter: what only an adapter's author needs (README, "Writing an adapter").
export { corruptStream, duplicateEventId, notAStore, quotedNames, revisionConflict, storageIoError } from './errors.js';
export { resolveStorageOptions } from './resolveStorageOptions.js';
export type { StorageConfig } from './resolveStorageOptions.js';
export { prepareAppend } from './prepareAppend.js';
export type { PreparedAppend } from './prepareAppend.js';
export { resolveAgainstHead, resolveAgainstHeadSync } from './resolveAgainstHead.js';
export { storedEventCanonicalText } from './storedEventCanonicalText.js';
export { parseStoredEvent, readStoredEvent } from './validation.js';
export { decodeStoredEventRow } from './decodeStoredEventRow.js';
export type { StoredEventRow } from './decodeStoredEventRow.js';
export { latestSchemaVersion, pendingMigrations, requireCurrentSchema } from './schemaMigrations.js';
export type { SchemaMigration } from './schemaMigrations.js';
export { findKnownSecret } from './knownSecrets.js';
export { changeHints } from './changeHints.js';
export { delegateStorage, observeRead } from './delegateStorage.js';
export type { StorageOverrides } from './delegateStorage.js';
