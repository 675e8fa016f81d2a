import type { EventRead, StoredEvent } from '@roundtable/storage';

/** The events a read returns, one at a time, from the revision after `after` up to the head the read started at. */
export interface ReadCursor {
  /**
   * Checks the arguments and fixes the head: the read returns `at(first)` … `at(head)` (none
   * when `first > head`).
   */
  start(): ReadRange;
  /** Called before each event is returned: throws when the storage was closed. */
  assertOpen(): void;
}

export interface ReadRange {
  readonly first: number;
  readonly head: number;
  readonly at: (revision: number) => StoredEvent;
}

/** A memory read: an async generator that offers the port's fast path, `nextChunk(max)`. */
export type MemoryRead = AsyncGenerator<StoredEvent> & Required<Pick<EventRead, 'nextChunk'>>;

/**
 * One `read` of the memory adapter: an async generator (one promise per event, as `RunStorage`
 * promises), plus the port's optional fast path `nextChunk(max)` (`EventRead`), which returns
 * the next at most `max` events as an array (an empty one at the end), so `foldStream` folds a long record with no promise, iterator
 * result or generator resume per event (on a 100k-turn replay those were about 12% of the CPU
 * and a share of its garbage). Both take from one cursor, so mixing them skips or repeats
 * nothing. Both behave alike: nothing is checked before the first call (then the arguments are,
 * and the head is fixed: events appended later are not part of this read), a closed storage
 * throws STORAGE_CLOSED before the next event, and a failure ends the read.
 */
export function memoryRead(cursor: ReadCursor): MemoryRead {
  let range: ReadRange | null = null;
  let revision = 0;
  let finished = false;

  /** The next event, or undefined at the end. */
  function take(): StoredEvent | undefined {
    if (finished) return undefined;
    try {
      if (range === null) {
        range = cursor.start();
        revision = range.first;
      }
      if (revision > range.head) {
        finished = true;
        return undefined;
      }
      cursor.assertOpen();
      return range.at(revision++);
    } catch (error) {
      finished = true;
      throw error;
    }
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- in memory there is nothing to await
  async function* events(): AsyncGenerator<StoredEvent> {
    try {
      for (let event = take(); event !== undefined; event = take()) yield event;
    } finally {
      finished = true;
    }
  }

  const generator = events() as MemoryRead;
  Object.defineProperty(generator, 'nextChunk', {
    value: (max: number): StoredEvent[] => {
      const chunk: StoredEvent[] = [];
      while (chunk.length < max) {
        const event = take();
        if (event === undefined) break;
        chunk.push(event);
      }
      return chunk;
    },
  });
  return generator;
}
