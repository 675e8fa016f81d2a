import type { NewEvent, StoredEvent } from './events.js';

/** Where a storage instance keeps its data; part of what makes room files and runs distinct. */
export interface StorageIdentity {
  readonly adapter: string;
  readonly version: string;
  readonly namespace: string;
  readonly location: string;
}

export interface ReadOptions {
  /** Only events with a revision greater than this (default 0: the whole stream). */
  readonly after?: number;
}

/**
 * What `read` returns: the events in revision order, as an async iterable, and optionally a
 * synchronous fast path over the same cursor.
 */
export interface EventRead<Event = StoredEvent> extends AsyncIterable<Event> {
  /**
   * Optional fast path: the read's next at most `max` events as an array (an empty one at the
   * end), taken synchronously from the same cursor as the async iteration, so mixing the two
   * skips or repeats nothing. It checks what the iteration checks and throws what the iteration
   * would reject with; a failure ends the read. An adapter offers it only where its events are
   * already in memory (the memory adapter does): a reader of a long record (graph's
   * `foldStream`) then folds it with no promise, iterator result or generator resume per event.
   * A reader that does not look for it iterates, as with every other read.
   */
  readonly nextChunk?: (max: number) => readonly Event[];
}

/**
 * The storage port. One run is one stream; revisions start at 1 and have no gaps; `append` is
 * all-or-nothing and optimistic on `expectedRevision`.
 */
export interface RunStorage {
  readonly identity: StorageIdentity;
  head(streamId: string): Promise<number>;
  read(streamId: string, options?: ReadOptions): EventRead;
  append(streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number>;
  streams(): AsyncIterable<{ streamId: string; head: number }>;
  close(): Promise<void>;
  /**
   * Optional change hints for `followStream`: each item means "something may have been
   * appended to this stream; read". Hints carry no data and may be spurious or coalesced;
   * correctness always comes from `read`. The iterable ends when `signal` aborts.
   */
  changes?(streamId: string, signal: AbortSignal): AsyncIterable<void>;
}

export interface StorageLimits {
  /** Largest canonical JSON payload of one event, in UTF-8 bytes (default 262,144). */
  readonly maxEventPayloadBytes: number;
  /** Largest sum of the canonical JSON of a batch's events, in UTF-8 bytes (default 1,048,576). */
  readonly maxAppendBatchBytes: number;
}

/** Options every adapter takes. */
export interface StorageOptions {
  readonly namespace?: string;
  readonly limits?: Partial<StorageLimits>;
  /** Strings that must never be written: an append containing one is refused with KNOWN_SECRET. */
  readonly knownSecrets?: readonly string[];
  /**
   * Open for reading only (default false): the adapter creates nothing (no file, folder, table,
   * schema or namespace) and never migrates; a location that holds no store is NOT_A_STORE, a
   * schema it would have to migrate UNSUPPORTED_SCHEMA_VERSION; every append is refused with
   * STORAGE_READ_ONLY; a namespace nobody wrote to reads as empty. For tools that only look.
   */
  readonly readOnly?: boolean;
}

export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_STORAGE_LIMITS: StorageLimits = Object.freeze({ maxEventPayloadBytes: 262_144, maxAppendBatchBytes: 1_048_576 });
