import { StorageError, assertRevision, assertStreamId, changeHints, duplicateEventId, prepareAppend, resolveAgainstHead, resolveStorageOptions, storedEventCanonicalText } from '@roundtable/storage';
import type { NewEvent, ReadOptions, RunStorage, StorageConfig, StorageIdentity, StorageOptions, StoredEvent } from '@roundtable/storage';
import { addListener, backingState, createMemoryBacking, exclusively, notifyListeners } from './memoryBacking.js';
import type { MemoryBacking, MemoryBackingState, MemoryStream } from './memoryBacking.js';
import { MEMORY_STORAGE_ADAPTER, MEMORY_STORAGE_VERSION } from './version.js';

export interface MemoryStorageOptions extends StorageOptions {
  /** Share streams with every other instance made with this backing; by default the instance has its own. */
  readonly backing?: MemoryBacking;
}


class MemoryStorage implements RunStorage {
  readonly identity: StorageIdentity;
  private closed = false;
  private readonly closing = new AbortController();

  constructor(
    private readonly config: StorageConfig,
    private readonly state: MemoryBackingState,
    backing: MemoryBacking,
  ) {
    this.identity = Object.freeze({
      adapter: MEMORY_STORAGE_ADAPTER,
      version: MEMORY_STORAGE_VERSION,
      namespace: config.namespace,
      location: `memory:${backing.id}`,
    });
  }

  head(streamId: string): Promise<number> {
    return Promise.resolve().then(() => this.stream(streamId)?.events.length ?? 0);
  }

  // An async generator checks its arguments when iteration starts and fixes the head there;
  // in memory there is nothing to await.
  // eslint-disable-next-line @typescript-eslint/require-await
  async *read(streamId: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    const after = options.after ?? 0;
    assertRevision(after, 'after');
    const stream = this.stream(streamId);
    if (stream === undefined) return;
    // Streams only grow, so the length now is the head this read stops at.
    const head = stream.events.length;
    for (let index = after; index < head; index++) {
      this.assertOpen();
      yield stream.events[index]!;
    }
  }

  async append(streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
    this.assertOpen();
    // Before the first await: the batch is copied at the call, so later edits of the caller's
    // events change nothing.
    const prepared = prepareAppend(this.config, streamId, expectedRevision, events);
    return await exclusively(this.state, async () => {
      this.assertOpen();
      const namespace = this.namespace(true);
      const stream = namespace.get(streamId);
      const head = stream?.events.length ?? 0;
      const decision = await resolveAgainstHead(prepared, head, (from, to) => (stream?.events.slice(from - 1, to) ?? []).map(storedEventCanonicalText));
      if (decision !== 'write') return decision;
      const duplicate = stream === undefined ? undefined : prepared.eventIds.find((eventId) => stream.eventIds.has(eventId));
      if (duplicate !== undefined) throw duplicateEventId(duplicate, streamId);
      const target = stream ?? { events: [], eventIds: new Set<string>() };
      // prepareAppend's events are deep-frozen copies: reads hand them out as they are.
      for (const [index, event] of prepared.events.entries()) {
        target.events.push(event);
        target.eventIds.add(prepared.eventIds[index]!);
      }
      if (stream === undefined) namespace.set(streamId, target);
      notifyListeners(this.state, this.config.namespace, streamId);
      return prepared.nextHead;
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- as read
  async *streams(): AsyncIterable<{ streamId: string; head: number }> {
    this.assertOpen();
    const listing = [...this.namespace(false).entries()].map(([streamId, stream]) => ({ streamId, head: stream.events.length }));
    for (const entry of listing) {
      this.assertOpen();
      yield entry;
    }
  }

  /** Change hints for `followStream`: told in-process the moment an append through any instance of this backing commits. */
  changes(streamId: string, signal: AbortSignal): AsyncIterable<void> {
    this.assertOpen();
    assertStreamId(streamId);
    // Hints end when the caller aborts or this instance closes.
    return changeHints(AbortSignal.any([signal, this.closing.signal]), (notify) => addListener(this.state, this.config.namespace, streamId, notify));
  }

  close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    return Promise.resolve();
  }

  private assertOpen(): void {
    if (this.closed) throw new StorageError('STORAGE_CLOSED', `This ${MEMORY_STORAGE_ADAPTER} instance is closed.`);
  }

  /** The stream, after checking the instance is open and the id valid; undefined when it has no events. */
  private stream(streamId: string): MemoryStream | undefined {
    this.assertOpen();
    assertStreamId(streamId);
    return this.namespace(false).get(streamId);
  }

  private namespace(create: boolean): Map<string, MemoryStream> {
    const existing = this.state.namespaces.get(this.config.namespace);
    if (existing !== undefined) return existing;
    const streams = new Map<string, MemoryStream>();
    if (create) this.state.namespaces.set(this.config.namespace, streams);
    return streams;
  }
}

/**
 * Run storage held in memory: fast, not durable, one process. Pass `backing` (from
 * `createMemoryBacking`) to let several instances share streams; without it, the instance gets a
 * backing of its own. Throws INVALID_STORAGE_OPTIONS for bad options.
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): RunStorage {
  const config = resolveStorageOptions(options);
  const backing = options.backing ?? createMemoryBacking();
  const state = backingState(backing);
  if (state === undefined) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', 'backing must come from createMemoryBacking() (of this copy of @roundtable/storage-memory).');
  }
  return new MemoryStorage(config, state, backing);
}
