import type { RunStorage } from '@roundtable/storage';
import { delegateStorage, observeRead } from '@roundtable/storage/adapter';
import type { Progress } from './progress.js';

/** `storage` with every event `read` yields counted on `progress`; all else, change hints and a read's fast path included, passes through. */
export function withReadProgress(storage: RunStorage, progress: Progress): RunStorage {
  return delegateStorage(storage, { read: (streamId, options) => observeRead(storage.read(streamId, options), () => progress.tick()) });
}
