import { describe, expect, it } from 'vitest';
import { newEvent } from '@roundtable/test-utils';
import { followStream, isStorageError, waitForAppend } from './index.js';
import { changeHints, prepareAppend, resolveAgainstHead, resolveStorageOptions } from './adapter.js';
import type { NewEvent, RunStorage, StorageError, StoredEvent } from './index.js';

/** A small in-memory store with change hints (or without, or with hints that fail), for followStream alone. */
function hintingStore(hints: 'working' | 'none' | 'throwing' = 'working') {
  const events: StoredEvent[] = [];
  const listeners = new Set<() => void>();
  const config = resolveStorageOptions({});
  let subscribed = 0;
  let unsubscribed = 0;
  const storage: RunStorage = {
    identity: { adapter: 'test', version: '0', namespace: 'default', location: 'test' },
    head: () => Promise.resolve(events.length),
    // eslint-disable-next-line @typescript-eslint/require-await -- nothing to await in memory
    async *read(_streamId, options = {}) {
      const head = events.length;
      for (let i = options.after ?? 0; i < head; i++) yield events[i]!;
    },
    async append(streamId, expectedRevision, batch) {
      const prepared = prepareAppend(config, streamId, expectedRevision, batch);
      const decision = await resolveAgainstHead(prepared, events.length, () => []);
      if (decision !== 'write') return decision;
      events.push(...prepared.events);
      for (const listener of listeners) listener();
      return prepared.nextHead;
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- as read
    async *streams() {
      if (events.length > 0) yield { streamId: 's', head: events.length };
    },
    close: () => Promise.resolve(),
  };
  if (hints === 'working') {
    storage.changes = (_streamId, signal) =>
      changeHints(signal, (notify) => {
        subscribed++;
        listeners.add(notify);
        return () => {
          unsubscribed++;
          listeners.delete(notify);
        };
      });
  }
  if (hints === 'throwing') {
    storage.changes = () => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('watcher broke')) }),
    });
  }
  return { storage, counts: () => ({ subscribed, unsubscribed }) };
}

const event = (id: number): NewEvent => newEvent(`e-${id}`, { id });

async function take(iterable: AsyncIterable<StoredEvent>, count: number): Promise<number[]> {
  const revisions: number[] = [];
  if (count === 0) return revisions;
  for await (const item of iterable) {
    revisions.push(item.revision);
    if (revisions.length === count) break;
  }
  return revisions;
}

describe('followStream', () => {
  it('wakes on a change hint rather than waiting for the poll', async () => {
    const { storage, counts } = hintingStore('working');
    await storage.append('s', 0, [event(1)]);
    const controller = new AbortController();
    // A poll interval of an hour: only the hint can deliver the later events before the test times out.
    const follow = take(followStream(storage, 's', { signal: controller.signal, pollIntervalMs: 3_600_000 }), 3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await storage.append('s', 1, [event(2), event(3)]);
    expect(await follow).toEqual([1, 2, 3]);
    // Leaving the loop stops the hint subscription.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(counts()).toEqual({ subscribed: 1, unsubscribed: 1 });
  });

  it('falls back to polling when an adapter has no hints or its hints fail', async () => {
    for (const kind of ['none', 'throwing'] as const) {
      const { storage } = hintingStore(kind);
      const follow = take(followStream(storage, 's', { after: 0, pollIntervalMs: 10 }), 2);
      await new Promise((resolve) => setTimeout(resolve, 30));
      await storage.append('s', 0, [event(1)]);
      await storage.append('s', 1, [event(2)]);
      expect(await follow).toEqual([1, 2]);
    }
  });

  it('ends on abort while waiting, and yields nothing for a signal aborted before the start', async () => {
    const { storage, counts } = hintingStore('working');
    await storage.append('s', 0, [event(1)]);
    const controller = new AbortController();
    const seen: number[] = [];
    const done = (async () => {
      for await (const item of followStream(storage, 's', { signal: controller.signal })) seen.push(item.revision);
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await done;
    expect(seen).toEqual([1]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(counts().unsubscribed).toBe(counts().subscribed);
    expect(await take(followStream(storage, 's', { signal: AbortSignal.abort() }), 0)).toEqual([]);
    const none: unknown[] = [];
    for await (const item of followStream(storage, 's', { signal: AbortSignal.abort() })) none.push(item);
    expect(none).toEqual([]);
  });

  it('ends at once when the abort lands during a read, not a poll interval later', async () => {
    const { storage } = hintingStore('none');
    await storage.append('s', 0, [event(1)]);
    const controller = new AbortController();
    const read = storage.read.bind(storage);
    // The host aborts while the follow's first read is in progress (after its last event).
    storage.read = async function* (streamId, options) {
      yield* read(streamId, options);
      controller.abort();
    };
    const seen: number[] = [];
    // A poll interval of an hour: a follow that waited for it would outlast the test's timeout.
    for await (const item of followStream(storage, 's', { signal: controller.signal, pollIntervalMs: 3_600_000 })) seen.push(item.revision);
    expect(seen).toEqual([1]);
  });

  it('refuses a bad stream id, after or poll interval with typed errors', async () => {
    const { storage } = hintingStore();
    const attempts: [string, Parameters<typeof followStream>[2]][] = [
      ['../x', {}],
      ['s', { after: -1 }],
      ['s', { after: 1.5 }],
      ['s', { pollIntervalMs: 0 }],
      ['s', { pollIntervalMs: Number.NaN }],
    ];
    for (const [streamId, options] of attempts) {
      const error = await take(followStream(storage, streamId, options), 1).catch((caught: unknown) => caught);
      expect(isStorageError(error)).toBe(true);
      expect((error as StorageError).code).toMatch(/INVALID_STORED_VALUE|INVALID_STORAGE_OPTIONS/);
    }
  });

  it('fails closed when a read skips a revision', async () => {
    const { storage } = hintingStore('none');
    await storage.append('s', 0, [event(1), event(2)]);
    const skipping: RunStorage = {
      ...storage,
      async *read(streamId, options) {
        for await (const item of storage.read(streamId, options)) if (item.revision !== 1) yield item;
      },
    };
    await expect(take(followStream(skipping, 's'), 1)).rejects.toMatchObject({ code: 'CORRUPT_EVENT_STREAM' });
  });
});

describe('waitForAppend', () => {
  it('wakes on a change hint rather than waiting for the poll, and stops its hints', async () => {
    const { storage, counts } = hintingStore('working');
    await storage.append('s', 0, [event(1)]);
    // A poll interval of an hour: only the hint can wake it before the test times out.
    const waiting = waitForAppend(storage, 's', { after: 1, pollIntervalMs: 3_600_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await storage.append('s', 1, [event(2), event(3)]);
    expect(await waiting).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(counts()).toEqual({ subscribed: 1, unsubscribed: 1 });
  });

  it('polls head when an adapter has no hints or its hints fail', async () => {
    for (const hints of ['none', 'throwing'] as const) {
      const { storage } = hintingStore(hints);
      const waiting = waitForAppend(storage, 's', { after: 0, pollIntervalMs: 10 });
      await new Promise((resolve) => setTimeout(resolve, 30));
      await storage.append('s', 0, [event(1)]);
      expect(await waiting).toBe(1);
    }
  });

  it('resolves with the old head on abort, at once for a signal aborted before the start', async () => {
    const { storage } = hintingStore('working');
    await storage.append('s', 0, [event(1)]);
    const controller = new AbortController();
    const waiting = waitForAppend(storage, 's', { after: 1, signal: controller.signal, pollIntervalMs: 3_600_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect(await waiting).toBe(1);
    expect(await waitForAppend(storage, 's', { after: 1, signal: AbortSignal.abort(), pollIntervalMs: 3_600_000 })).toBe(1);
  });

  it('refuses a bad stream id, after or poll interval with typed errors', async () => {
    const { storage } = hintingStore();
    const attempts: [string, Parameters<typeof waitForAppend>[2]][] = [
      ['../x', { after: 0 }],
      ['s', { after: -1 }],
      ['s', { after: 1.5 }],
      ['s', { after: 0, pollIntervalMs: 0 }],
      ['s', { after: 0, pollIntervalMs: Number.NaN }],
    ];
    for (const [streamId, options] of attempts) {
      const error = await waitForAppend(storage, streamId, options).catch((caught: unknown) => caught);
      expect(isStorageError(error)).toBe(true);
      expect((error as StorageError).code).toMatch(/INVALID_STORED_VALUE|INVALID_STORAGE_OPTIONS/);
    }
  });
});

describe('changeHints', () => {
  it('collapses several notifications into one hint and ends on abort', async () => {
    let notify = () => {};
    let unsubscribed = false;
    const controller = new AbortController();
    const iterator = changeHints(controller.signal, (callback) => {
      notify = callback;
      return () => (unsubscribed = true);
    })[Symbol.asyncIterator]();
    notify();
    notify();
    expect(await iterator.next()).toEqual({ done: false, value: undefined });
    const pending = iterator.next();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(unsubscribed).toBe(true);
  });
});
