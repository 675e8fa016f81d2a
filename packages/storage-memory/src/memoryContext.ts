import { StorageError, assertStreamId } from '@roundtable/storage';
import type { StorageIdentity, StorageOptions } from '@roundtable/storage';
import { resolveStorageOptions } from '@roundtable/storage/adapter';
import type { StorageConfig } from '@roundtable/storage/adapter';
import { backingState, createMemoryBacking } from './memoryBacking.js';
import type { MemoryBacking, MemoryBackingState } from './memoryBacking.js';
import type { MemoryStream } from './memoryStream.js';
import { MEMORY_STORAGE_ADAPTER, MEMORY_STORAGE_VERSION } from './version.js';

export interface MemoryStorageOptions extends StorageOptions {
  /** Share streams with every other instance made with this backing; by default the instance has its own. */
  readonly backing?: MemoryBacking;
}

/** What every operation of one memory storage instance shares. */
export interface MemoryContext {
  readonly config: StorageConfig;
  readonly namespace: string;
  readonly state: MemoryBackingState;
  readonly identity: StorageIdentity;
  /** Aborted by `close()`: ends every change-hint iterable of the instance. */
  readonly closing: AbortController;
  closed: boolean;
}

function stateOf(backing: MemoryBacking): MemoryBackingState {
  const state = backingState(backing);
  if (state === undefined) {
    throw new StorageError('INVALID_STORAGE_OPTIONS', 'backing must come from createMemoryBacking() (of this copy of @roundtable/storage-memory).');
  }
  return state;
}

/** Checks the options (INVALID_STORAGE_OPTIONS) and opens an instance over its backing. */
export function openMemoryContext(options: MemoryStorageOptions): MemoryContext {
  const config = resolveStorageOptions(options);
  const backing = options.backing ?? createMemoryBacking();
  const state = stateOf(backing);
  const { namespace } = config;
  const identity: StorageIdentity = Object.freeze({ adapter: MEMORY_STORAGE_ADAPTER, version: MEMORY_STORAGE_VERSION, namespace, location: `memory:${backing.id}` });
  return { config, namespace, state, identity, closing: new AbortController(), closed: false };
}

/** `RunStorage.close` of the memory adapter: later calls reject with STORAGE_CLOSED; change hints end. */
export function closeMemoryContext(context: MemoryContext): Promise<void> {
  context.closed = true;
  context.closing.abort();
  return Promise.resolve();
}

export function assertOpen(context: MemoryContext): void {
  if (context.closed) throw new StorageError('STORAGE_CLOSED', `This ${MEMORY_STORAGE_ADAPTER} instance is closed.`);
}

/** This namespace's streams; created (and kept) only when `create`. */
export function streamsOf(context: MemoryContext, create: boolean): Map<string, MemoryStream> {
  const existing = context.state.namespaces.get(context.namespace);
  if (existing !== undefined) return existing;
  const streams = new Map<string, MemoryStream>();
  if (create) context.state.namespaces.set(context.namespace, streams);
  return streams;
}

/** The stream, after checking the instance is open and the id valid; undefined when it has no events. */
export function openStream(context: MemoryContext, streamId: string): MemoryStream | undefined {
  assertOpen(context);
  assertStreamId(streamId);
  return streamsOf(context, false).get(streamId);
}
