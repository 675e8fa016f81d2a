export { createMemoryStorage } from './createMemoryStorage.js';
export type { MemoryStorageOptions } from './memoryContext.js';
export { createMemoryBacking } from './memoryBacking.js';
export type { MemoryBacking } from './memoryBacking.js';
