import { describe, expect, it } from 'vitest';
import { delegateStorage, observeRead } from './adapter.js';
import type { EventRead, RunStorage, StoredEvent } from './index.js';

const event = (revision: number) => ({ revision }) as StoredEvent;

/** A storage that records its calls; its read offers the fast path when `fast`. */
function recordingStorage(calls: string[], fast: boolean): RunStorage {
  return {
    identity: { adapter: 'x', version: '1', namespace: 'default', location: 'x:' },
    head: (id) => (calls.push(`head ${id}`), Promise.resolve(1)),
    read: (id) => {
      calls.push(`read ${id}`);
      const events = [event(1), event(2), event(3)];
      let next = 0;
      const read: EventRead = {
        async *[Symbol.asyncIterator]() {
          while (next < events.length) yield await Promise.resolve(events[next++]!);
        },
      };
      return fast ? { ...read, nextChunk: (max) => events.slice(next, (next = Math.min(events.length, next + max))) } : read;
    },
    append: (id) => (calls.push(`append ${id}`), Promise.resolve(2)),
    streams: async function* () {
      calls.push('streams');
      yield* await Promise.resolve([]);
    },
    changes: (id) => (calls.push(`changes ${id}`), { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true as const, value: undefined }) }) }),
    close: () => (calls.push('close'), Promise.resolve()),
  };
}

async function revisions(read: AsyncIterable<StoredEvent>): Promise<number[]> {
  const seen: number[] = [];
  for await (const item of read) seen.push(item.revision);
  return seen;
}

describe('delegateStorage', () => {
  it('delegates every operation but the ones replaced, change hints included', async () => {
    const calls: string[] = [];
    const inner = recordingStorage(calls, false);
    const wrapped = delegateStorage(inner, { append: (id) => (calls.push(`replaced ${id}`), Promise.resolve(3)) });
    expect(wrapped.identity).toBe(inner.identity);
    expect(await wrapped.head('s')).toBe(1);
    expect(await revisions(wrapped.read('s'))).toEqual([1, 2, 3]);
    expect(await wrapped.append('s', 0, [])).toBe(3);
    for await (const _ of wrapped.streams());
    for await (const _ of wrapped.changes!('s', new AbortController().signal));
    await wrapped.close();
    expect(calls).toEqual(['head s', 'read s', 'replaced s', 'streams', 'changes s', 'close']);
  });

  it('adds no change hints to a storage without them', () => {
    const withoutHints = recordingStorage([], false);
    Reflect.deleteProperty(withoutHints, 'changes');
    expect('changes' in delegateStorage(withoutHints)).toBe(false);
  });

  it("returns the inner read itself, fast path and all, when read is not replaced", () => {
    const inner = recordingStorage([], true);
    const read = delegateStorage(inner).read('s');
    expect(read.nextChunk?.(2)).toEqual([event(1), event(2)]);
  });
});

describe('observeRead', () => {
  it('sees every event once, by the fast path and the iteration over one cursor, and keeps the fast path', async () => {
    const seen: number[] = [];
    const read = observeRead(recordingStorage([], true).read('s'), (item) => seen.push(item.revision));
    expect(read.nextChunk?.(2)).toEqual([event(1), event(2)]);
    expect(await revisions(read)).toEqual([3]);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('offers no fast path over a read without one', async () => {
    const seen: number[] = [];
    const read = observeRead(recordingStorage([], false).read('s'), (item) => seen.push(item.revision));
    expect(read.nextChunk).toBeUndefined();
    expect(await revisions(read)).toEqual([1, 2, 3]);
    expect(seen).toEqual([1, 2, 3]);
  });
});
