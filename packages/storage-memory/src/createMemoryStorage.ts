import { StorageError, assertRevision, assertStreamId } from '@roundtable/storage';
import { changeHints, duplicateEventId, prepareAppend, resolveAgainstHeadSync, resolveStorageOptions, storedEventCanonicalText } from '@roundtable/storage/adapter';
import type { NewEvent, ReadOptions, RunStorage, StorageIdentity, StorageOptions, StoredEvent } from '@roundtable/storage';
import { addListener, backingState, createMemoryBacking, notifyListeners } from './memoryBacking.js';
import type { MemoryBacking, MemoryBackingState } from './memoryBacking.js';
import { memoryRead } from './memoryRead.js';
import { MemoryStream } from './memoryStream.js';
import { MEMORY_STORAGE_ADAPTER, MEMORY_STORAGE_VERSION } from './version.js';

export interface MemoryStorageOptions extends StorageOptions {
  /** Share streams with every other instance made with this backing; by default the instance has its own. */
  readonly backing?: MemoryBacking;
}

function stateOf(backing: MemoryBacking): MemoryBackingState {
  const state = backingState(backing);
  if (state === undefined) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', 'backing must come from createMemoryBacking() (of this copy of @roundtable/storage-memory).');
  }
  return state;
}

/**
 * Run storage held in memory: fast, not durable, one process. Pass `backing` (from
 * `createMemoryBacking`) to let several instances share streams; without it, the instance gets a
 * backing of its own. Throws INVALID_STORAGE_OPTIONS for bad options.
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): RunStorage {
  const config = resolveStorageOptions(options);
  const backing = options.backing ?? createMemoryBacking();
  const state = stateOf(backing);
  const { namespace } = config;
  const identity: StorageIdentity = Object.freeze({ adapter: MEMORY_STORAGE_ADAPTER, version: MEMORY_STORAGE_VERSION, namespace, location: `memory:${backing.id}` });
  let closed = false;
  const closing = new AbortController();

  function assertOpen(): void {
    if (closed) throw new StorageError('STORAGE_CLOSED', `This ${MEMORY_STORAGE_ADAPTER} instance is closed.`);
  }

  /** This namespace's streams; created (and kept) only when `create`. */
  function streamsOf(create: boolean): Map<string, MemoryStream> {
    const existing = state.namespaces.get(namespace);
    if (existing !== undefined) return existing;
    const streams = new Map<string, MemoryStream>();
    if (create) state.namespaces.set(namespace, streams);
    return streams;
  }

  /** The stream, after checking the instance is open and the id valid; undefined when it has no events. */
  function stream(streamId: string): MemoryStream | undefined {
    assertOpen();
    assertStreamId(streamId);
    return streamsOf(false).get(streamId);
  }

  // Checks its arguments when iteration starts and fixes the head there (see `memoryRead`).
  function read(streamId: string, readOptions: ReadOptions = {}): AsyncGenerator<StoredEvent> {
    return memoryRead({
      start: () => {
        const after = readOptions.after ?? 0;
        assertRevision(after, 'after');
        const found = stream(streamId);
        // Streams only grow, so the length now is the head this read stops at.
        return { first: after + 1, head: found?.length ?? 0, at: (revision) => found!.at(revision) };
      },
      assertOpen,
    });
  }

  async function append(streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
    assertOpen();
    // Before the first await: the batch is copied at the call, so later edits of the caller's
    // events change nothing.
    const prepared = prepareAppend(config, streamId, expectedRevision, events);
    // Commit one microtask later, as a queued write: an instance closed before then refuses it.
    // Appends through every instance of the backing commit in the order they were called, each
    // in one synchronous step, so no two ever interleave and no lock is needed.
    await Promise.resolve();
    assertOpen();
    const streams = streamsOf(true);
    const existing = streams.get(streamId);
    const decision = resolveAgainstHeadSync(prepared, existing?.length ?? 0, (from, to) => {
      const texts: string[] = [];
      for (let revision = from; revision <= to; revision++) texts.push(storedEventCanonicalText(existing!.at(revision)));
      return texts;
    });
    if (decision !== 'write') return decision;
    const duplicate = existing === undefined ? undefined : prepared.eventIds.find((eventId) => existing.hasEventId(eventId));
    if (duplicate !== undefined) throw duplicateEventId(duplicate, streamId);
    const target = existing ?? new MemoryStream(streamId);
    // prepareAppend's events are deep-frozen copies: the stream keeps their fields, not the envelopes.
    for (const event of prepared.events) target.push(event);
    if (existing === undefined) streams.set(streamId, target);
    notifyListeners(state, namespace, streamId);
    return prepared.nextHead;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- as read
  async function* streams(): AsyncGenerator<{ streamId: string; head: number }> {
    assertOpen();
    const listing = [...streamsOf(false).entries()].map(([streamId, found]) => ({ streamId, head: found.length }));
    for (const entry of listing) {
      assertOpen();
      yield entry;
    }
  }

  return {
    identity,
    head: (streamId) => Promise.resolve().then(() => stream(streamId)?.length ?? 0),
    read,
    append,
    streams,
    // Change hints for `followStream`: told in-process the moment an append through any
    // instance of this backing commits; they end when the caller aborts or this instance closes.
    changes: (streamId, signal) => {
      assertOpen();
      assertStreamId(streamId);
      return changeHints(AbortSignal.any([signal, closing.signal]), (notify) => addListener(state, namespace, streamId, notify));
    },
    close: () => {
      closed = true;
      closing.abort();
      return Promise.resolve();
    },
  };
}
