import { newBatch } from './storageEvents.js';
import type { TestEvent } from './storageEvents.js';

/** What `probeReadOnly` needs of a storage: the `RunStorage` methods it calls. */
export interface ProbedStorage {
  head(streamId: string): Promise<number>;
  read(streamId: string): AsyncIterable<unknown>;
  streams(): AsyncIterable<unknown>;
  append(streamId: string, expectedRevision: number, events: readonly TestEvent[]): Promise<number>;
  close(): Promise<void>;
}

/** What a probe saw: whether `open` gave an instance, every error thrown by the open or a read, and the append's error. */
export interface ReadOnlyProbe {
  readonly opened: boolean;
  readonly errors: readonly unknown[];
  /** What the one append rejected with (null when it was written, or nothing opened). */
  readonly appendError: unknown;
}

async function settled(action: () => Promise<unknown>, errors: unknown[]): Promise<void> {
  try {
    await action();
  } catch (error) {
    errors.push(error);
  }
}

/**
 * Opens a storage with `open` (a read-only instance over some location), calls every reading
 * method on stream `run-1` (head, a whole read, streams) and one append at revision 0, closes
 * it, and returns what was thrown, for the caller to check (typed errors, STORAGE_READ_ONLY).
 */
export async function probeReadOnly(open: () => ProbedStorage | Promise<ProbedStorage>): Promise<ReadOnlyProbe> {
  const errors: unknown[] = [];
  let storage: ProbedStorage;
  try {
    storage = await open();
  } catch (error) {
    return { opened: false, errors: [error], appendError: null };
  }
  const drain = async (items: AsyncIterable<unknown>) => {
    const iterator = items[Symbol.asyncIterator]();
    while (!(await iterator.next()).done);
  };
  await settled(() => storage.head('run-1'), errors);
  await settled(() => drain(storage.read('run-1')), errors);
  await settled(() => drain(storage.streams()), errors);
  let appendError: unknown = null;
  try {
    await storage.append('run-1', 0, newBatch('probe', 1));
  } catch (error) {
    appendError = error;
  }
  await storage.close();
  return { opened: true, errors, appendError };
}
