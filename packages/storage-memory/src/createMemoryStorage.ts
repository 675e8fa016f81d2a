import type { RunStorage } from '@roundtable/storage';
import { appendToStream } from './appendToStream.js';
import { listStreams } from './listStreams.js';
import { closeMemoryContext, openMemoryContext } from './memoryContext.js';
import type { MemoryStorageOptions } from './memoryContext.js';
import { readHead } from './readHead.js';
import { readStream } from './readStream.js';
import { streamChanges } from './streamChanges.js';

/**
 * Run storage held in memory: fast, not durable, one process. Pass `backing` (from
 * `createMemoryBacking`) to let several instances share streams; without it, the instance gets a
 * backing of its own. Throws INVALID_STORAGE_OPTIONS for bad options. Each operation is a file
 * of its own over the instance's `MemoryContext`.
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): RunStorage {
  const context = openMemoryContext(options);
  return {
    identity: context.identity,
    head: (streamId) => readHead(context, streamId),
    read: (streamId, readOptions) => readStream(context, streamId, readOptions),
    append: (streamId, expectedRevision, events) => appendToStream(context, streamId, expectedRevision, events),
    streams: () => listStreams(context),
    changes: (streamId, signal) => streamChanges(context, streamId, signal),
    close: () => closeMemoryContext(context),
  };
}
