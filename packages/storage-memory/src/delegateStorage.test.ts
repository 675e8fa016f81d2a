import { followStream } from '@roundtable/storage';
import type { RunStorage, StoredEvent } from '@roundtable/storage';
import { delegateStorage, observeRead } from '@roundtable/storage/adapter';
import { describe, expect, it } from 'vitest';
import { newBatch } from '@roundtable/test-utils';
import { createMemoryStorage } from './index.js';

// A real storage with both things a hand-written wrapper used to drop: change hints and the fast read path.
describe('delegateStorage (of @roundtable/storage/adapter) over a memory storage', () => {
  it('keeps the change hints: a follower of the wrapper is woken by an append through it, without polling', async () => {
    const inner = createMemoryStorage();
    let appends = 0;
    const wrapped = delegateStorage(inner, { append: (streamId, expected, events) => (appends++, inner.append(streamId, expected, events)) });
    expect(typeof wrapped.changes).toBe('function');
    const controller = new AbortController();
    const seen: number[] = [];
    // An hour's poll interval: only a hint can deliver these before the test's timeout.
    const done = (async () => {
      for await (const stored of followStream(wrapped, 'run-1', { signal: controller.signal, pollIntervalMs: 3_600_000 })) {
        seen.push(stored.revision);
        if (seen.length === 3) controller.abort();
      }
    })();
    await wrapped.append('run-1', 0, newBatch('a', 1));
    await wrapped.append('run-1', 1, newBatch('b', 2));
    await done;
    expect(seen).toEqual([1, 2, 3]);
    expect(appends).toBe(2);
    expect(wrapped.identity).toBe(inner.identity);
  });

  it('adds no change hints to a storage that has none, and lets an override replace them', () => {
    const inner = createMemoryStorage();
    const withoutHints: RunStorage = { ...delegateStorage(inner), changes: undefined };
    expect('changes' in delegateStorage(withoutHints)).toBe(false);
    const hints = () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true as const, value: undefined }) }) });
    expect(Reflect.get(delegateStorage(inner, { changes: hints }), 'changes')).toBe(hints);
  });

  it('keeps the fast read path of a delegated read, and of a read observed with observeRead', async () => {
    const inner = createMemoryStorage();
    await inner.append('run-1', 0, newBatch('e', 5));
    const all: StoredEvent[] = [];
    for await (const event of inner.read('run-1')) all.push(event);

    const delegated = delegateStorage(inner).read('run-1', { after: 1 });
    expect(typeof delegated.nextChunk).toBe('function');
    expect(delegated.nextChunk!(2)).toEqual(all.slice(1, 3));

    const ticks: number[] = [];
    const observing = delegateStorage(inner, { read: (streamId, options) => observeRead(inner.read(streamId, options), (event) => ticks.push(event.revision)) });
    const fast = observing.read('run-1');
    expect(typeof fast.nextChunk).toBe('function');
    expect(fast.nextChunk!(3)).toEqual(all.slice(0, 3));
    // The same cursor: the async iteration goes on where the fast path stopped.
    const rest: number[] = [];
    for await (const event of fast) rest.push(event.revision);
    expect(rest).toEqual([4, 5]);
    expect(ticks).toEqual([1, 2, 3, 4, 5]);
    expect(fast.nextChunk!(3)).toEqual([]);
  });

  it('observes a read that offers no fast path by its async iteration alone', async () => {
    const inner = createMemoryStorage();
    await inner.append('run-1', 0, newBatch('e', 3));
    const slow = { async *[Symbol.asyncIterator]() { yield* inner.read('run-1'); } };
    const ticks: number[] = [];
    const observed = observeRead(slow, (event) => ticks.push(event.revision));
    expect(observed.nextChunk).toBeUndefined();
    const seen: number[] = [];
    for await (const event of observed) seen.push(event.revision);
    expect(seen).toEqual([1, 2, 3]);
    expect(ticks).toEqual([1, 2, 3]);
  });
});
