export { DEFAULT_SEGMENT_BATCHES, FS_STORAGE_ADAPTER, createFsStorage } from './createFsStorage.js';
export type { FsStorageOptions } from './createFsStorage.js';
