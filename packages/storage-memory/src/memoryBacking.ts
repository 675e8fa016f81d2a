import type { MemoryStream } from './memoryStream.js';

/**
 * Where in-memory streams live. Every storage instance made with the same backing sees the same
 * streams, so a "reopen" or a race between two instances can be played within one process.
 * Opaque: only `id` is public.
 */
export interface MemoryBacking {
  /** Unique per backing; part of each instance's `identity.location`. */
  readonly id: string;
}

export interface MemoryBackingState {
  /** Streams by namespace, then by stream id. */
  readonly namespaces: Map<string, Map<string, MemoryStream>>;
  /** Change-hint listeners by `listenerKey(namespace, streamId)`, told after each committed append. */
  readonly listeners: Map<string, Set<() => void>>;
}

/** The key of a stream's change-hint listeners. */
export function listenerKey(namespace: string, streamId: string): string {
  return `${namespace}\u0000${streamId}`;
}

/** Tells every instance following this stream that it grew. */
export function notifyListeners(state: MemoryBackingState, namespace: string, streamId: string): void {
  const listeners = state.listeners.get(listenerKey(namespace, streamId));
  if (listeners !== undefined) for (const listener of [...listeners]) listener();
}

/** Adds a listener for a stream; returns the function that removes it. */
export function addListener(state: MemoryBackingState, namespace: string, streamId: string, listener: () => void): () => void {
  const key = listenerKey(namespace, streamId);
  let listeners = state.listeners.get(key);
  if (listeners === undefined) state.listeners.set(key, (listeners = new Set()));
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && state.listeners.get(key) === listeners) state.listeners.delete(key);
  };
}

const states = new WeakMap<MemoryBacking, MemoryBackingState>();
let backings = 0;

/** A new, empty backing. */
export function createMemoryBacking(): MemoryBacking {
  backings++;
  const backing: MemoryBacking = Object.freeze({ id: `${backings}-${Math.random().toString(36).slice(2, 10)}` });
  states.set(backing, { namespaces: new Map(), listeners: new Map() });
  return backing;
}

/** The state behind a backing, or undefined for anything `createMemoryBacking` did not make. */
export function backingState(backing: MemoryBacking): MemoryBackingState | undefined {
  return states.get(backing);
}
