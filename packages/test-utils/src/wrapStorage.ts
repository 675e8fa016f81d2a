/** The methods `wrapStorage` delegates: `RunStorage` without the optional `changes`. */
export type WrappedStorageKey = 'identity' | 'head' | 'read' | 'append' | 'streams' | 'close';

/** What `wrapStorage` needs of a storage (the shape of `RunStorage` in @roundtable/storage). */
export interface WrappableStorage {
  readonly identity: unknown;
  head(streamId: string): Promise<number>;
  read(streamId: string, options?: object): AsyncIterable<unknown>;
  append(streamId: string, expectedRevision: number, events: readonly never[]): Promise<number>;
  streams(): AsyncIterable<unknown>;
  close(): Promise<void>;
}

/**
 * `inner` with some methods replaced (a class instance cannot simply be spread): a test's way
 * to count, hold, fail or stop appends and reads of a real storage. The others delegate to
 * `inner`; `changes` is left out, so a follower of the wrapper polls.
 */
export function wrapStorage<S extends WrappableStorage>(inner: S, overrides: Partial<Pick<S, WrappedStorageKey>> = {}): Pick<S, WrappedStorageKey> {
  const delegated: WrappableStorage = {
    identity: inner.identity,
    head: (streamId) => inner.head(streamId),
    read: (streamId, options) => inner.read(streamId, options),
    append: (streamId, expectedRevision, events) => inner.append(streamId, expectedRevision, events),
    streams: () => inner.streams(),
    close: () => inner.close(),
  };
  return { ...(delegated as Pick<S, WrappedStorageKey>), ...overrides };
}
