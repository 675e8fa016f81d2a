import type { StoredEvent } from './events.js';
import type { EventRead, RunStorage } from './storage.js';

/** The operations `delegateStorage` can replace. */
export type StorageOverrides = Partial<Pick<RunStorage, 'head' | 'read' | 'append' | 'streams' | 'changes' | 'close'>>;

/**
 * `inner` with some operations replaced by `overrides` and every other one delegated to it: a
 * wrapper's way to count, hold, fail or observe the calls of a real storage. What a hand-written
 * wrapper tends to lose is kept: `changes` is delegated when `inner` has it (so a follower of the
 * wrapper is told, not left to poll), and a delegated `read` returns `inner`'s own read, fast
 * path (`EventRead.nextChunk`) included. A replaced `read` keeps it with `observeRead`. `identity`
 * is `inner`'s.
 */
export function delegateStorage(inner: RunStorage, overrides: StorageOverrides = {}): RunStorage {
  const delegated: RunStorage = {
    identity: inner.identity,
    head: (streamId) => inner.head(streamId),
    read: (streamId, options) => inner.read(streamId, options),
    append: (streamId, expectedRevision, events) => inner.append(streamId, expectedRevision, events),
    streams: () => inner.streams(),
    close: () => inner.close(),
  };
  if (typeof inner.changes === 'function') delegated.changes = (streamId, signal) => inner.changes!(streamId, signal);
  return { ...delegated, ...overrides };
}

/**
 * `read` with `onEvent` called on each event it returns, before the caller gets it, whichever
 * way the caller takes them: by the async iteration or, when `read` offers it, by the fast path
 * `nextChunk` (kept, over the same cursor).
 */
export function observeRead(read: EventRead, onEvent: (event: StoredEvent) => void): EventRead {
  const observed: EventRead = {
    async *[Symbol.asyncIterator]() {
      for await (const event of read) {
        onEvent(event);
        yield event;
      }
    },
  };
  if (typeof read.nextChunk !== 'function') return observed;
  return {
    ...observed,
    nextChunk(max) {
      const chunk = read.nextChunk!(max);
      for (const event of chunk) onEvent(event);
      return chunk;
    },
  };
}
