import { isStorageError } from '@roundtable/storage';
import type { EventRead, StoredEvent } from '@roundtable/storage';
import { describe, expect, it } from 'vitest';
import { newEvent } from '@roundtable/test-utils';
import { createMemoryStorage } from './index.js';

type ChunkedRead = AsyncIterableIterator<StoredEvent> & Required<Pick<EventRead, 'nextChunk'>>;

function chunkOf(read: EventRead): (max: number) => readonly StoredEvent[] {
  if (typeof read.nextChunk !== 'function') throw new Error('a memory read offers nextChunk');
  return (max) => read.nextChunk!(max);
}

async function storedEvents(count: number) {
  const storage = createMemoryStorage();
  await storage.append('run-1', 0, Array.from({ length: count }, (_, index) => newEvent(`e${index + 1}`, { index })));
  const all: StoredEvent[] = [];
  for await (const event of storage.read('run-1')) all.push(event);
  return { storage, all };
}

describe("read's synchronous fast path, the port's optional EventRead.nextChunk (foldStream takes it)", () => {
  it('returns the events the async iteration returns, after `after`, in chunks of at most max, then empty arrays', async () => {
    const { storage, all } = await storedEvents(7);
    const take = chunkOf(storage.read('run-1', { after: 2 }));
    expect(take(3)).toEqual(all.slice(2, 5));
    expect(take(3)).toEqual(all.slice(5, 7));
    expect(take(3)).toEqual([]);
    expect(take(3)).toEqual([]);
    expect(chunkOf(storage.read('no-such-run'))(10)).toEqual([]);
    // The very envelopes the async iteration gives: equal and frozen.
    const [first] = chunkOf(storage.read('run-1'))(1);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toEqual(all[0]);
  });

  it('shares one cursor with the async iteration, so mixing them skips or repeats nothing', async () => {
    const { storage, all } = await storedEvents(6);
    const read = storage.read('run-1') as ChunkedRead;
    const take = chunkOf(read);
    expect((await read.next()).value).toEqual(all[0]);
    expect(take(2)).toEqual(all.slice(1, 3));
    expect((await read.next()).value).toEqual(all[3]);
    expect(take(10)).toEqual(all.slice(4));
    expect(await read.next()).toEqual({ value: undefined, done: true });
  });

  it('checks its arguments only when first called, and fixes the head there', async () => {
    const { storage, all } = await storedEvents(3);
    const bad = storage.read('run-1', { after: -1 });
    const early = storage.read('run-1');
    await storage.append('run-1', 3, [newEvent('e4', { index: 3 })]);
    const take = chunkOf(early);
    expect(take(10).map((event) => event.eventId)).toEqual([...all.map((event) => event.eventId), 'e4']);
    const late = chunkOf(storage.read('run-1'));
    expect(late(2)).toHaveLength(2);
    await storage.append('run-1', 4, [newEvent('e5', { index: 4 })]);
    expect(late(10).map((event) => event.eventId)).toEqual(['e3', 'e4']);
    let thrown: unknown;
    try {
      chunkOf(bad)(1);
    } catch (error) {
      thrown = error;
    }
    expect(isStorageError(thrown, 'INVALID_STORED_VALUE'), String(thrown)).toBe(true);
  });

  it('throws STORAGE_CLOSED for the next event once the storage is closed, and then ends', async () => {
    const { storage } = await storedEvents(4);
    const take = chunkOf(storage.read('run-1'));
    expect(take(1)).toHaveLength(1);
    await storage.close();
    let thrown: unknown;
    try {
      take(10);
    } catch (error) {
      thrown = error;
    }
    expect(isStorageError(thrown, 'STORAGE_CLOSED'), String(thrown)).toBe(true);
    expect(take(10)).toEqual([]);
  });
});
