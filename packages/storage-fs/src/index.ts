export { createFsStorage } from './createFsStorage.js';
export { DEFAULT_SEGMENT_BATCHES, FS_STORAGE_ADAPTER } from './fsContext.js';
export type { FsStorageOptions } from './fsContext.js';
