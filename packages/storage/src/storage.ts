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
 * The storage port. One run is one stream; revisions start at 1 and have no gaps; `append` is
 * all-or-nothing and optimistic on `expectedRevision`.
 */
export interface RunStorage {
  readonly identity: StorageIdentity;
  head(streamId: string): Promise<number>;
  read(streamId: string, options?: ReadOptions): AsyncIterable<StoredEvent>;
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
