import type { StoredEvent } from '@roundtable/storage';

/** Where an `eventIterator` takes its events from, one batch at a time. */
export interface EventSource {
  /** The next batch's events to return (possibly none), or null when there are no more. */
  next(): Promise<readonly StoredEvent[] | null>;
  /** Called when the consumer stops early (`break`, `return`). */
  stop(): Promise<void>;
}

const END: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * The events of one `read`, as a hand-written async iterator rather than an async generator: a
 * generator's `yield` awaits, and a `yield*` wrapper (for the error mapping) awaits again, which
 * a replay pays for every event; here an event of a batch already read comes back as an
 * already-resolved promise. Behaves as the generator did: nothing runs before the first `next()`
 * (which calls `open`), a failure is thrown once, mapped by `mapError`, and ends the iteration,
 * `return()` ends it early. A `next()` called before the previous one settled (`for await` never
 * does) waits for it.
 */
export function eventIterator(open: () => Promise<EventSource>, mapError: (error: unknown) => unknown): AsyncIterableIterator<StoredEvent> {
  let source: EventSource | null = null;
  let buffer: readonly StoredEvent[] = [];
  let index = 0;
  let finished = false;
  let pending: Promise<IteratorResult<StoredEvent>> | null = null;

  async function refill(): Promise<IteratorResult<StoredEvent>> {
    try {
      source ??= await open();
      while (!finished) {
        const events = await source.next();
        if (events === null) break;
        if (events.length === 0) continue;
        buffer = events;
        index = 1;
        return { value: events[0]!, done: false };
      }
      finished = true;
      return END;
    } catch (error) {
      finished = true;
      throw mapError(error);
    }
  }

  const iterator: AsyncIterableIterator<StoredEvent> = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    next() {
      if (pending !== null) return pending.then(() => iterator.next(), () => iterator.next());
      if (index < buffer.length) return Promise.resolve({ value: buffer[index++]!, done: false });
      if (finished) return Promise.resolve(END);
      pending = refill().finally(() => {
        pending = null;
      });
      return pending;
    },
    async return() {
      finished = true;
      buffer = [];
      index = 0;
      await source?.stop();
      return END;
    },
  };
  return iterator;
}
