import type { RunStorage } from '@roundtable/storage';
import type { Progress } from './progress.js';

/** `storage` with every event `read` yields counted on `progress`; all else passes through. */
export function withReadProgress(storage: RunStorage, progress: Progress): RunStorage {
  return {
    identity: storage.identity,
    head: (streamId) => storage.head(streamId),
    async *read(streamId, options) {
      for await (const event of storage.read(streamId, options)) {
        progress.tick();
        yield event;
      }
    },
    append: (streamId, expectedRevision, events) => storage.append(streamId, expectedRevision, events),
    streams: () => storage.streams(),
    close: () => storage.close(),
  };
}
