import type { StoredEvent } from '@roundtable/storage';

/**
 * One stream as the memory adapter keeps it: deep-frozen events (payloads shared with the
 * writer's frozen values, no second copy) and their ids. The canonical text a byte-identical
 * retry is compared with is written again from the event when a retry asks, not kept.
 */
export interface MemoryStream {
  readonly events: StoredEvent[];
  readonly eventIds: Set<string>;
}

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
  /** The tail of the append queue: appends through any instance of this backing run one at a time. */
  tail: Promise<unknown>;
}

const states = new WeakMap<MemoryBacking, MemoryBackingState>();
let backings = 0;

/** A new, empty backing. */
export function createMemoryBacking(): MemoryBacking {
  backings++;
  const backing: MemoryBacking = Object.freeze({ id: `${backings}-${Math.random().toString(36).slice(2, 10)}` });
  states.set(backing, { namespaces: new Map(), tail: Promise.resolve() });
  return backing;
}

/** The state behind a backing, or undefined for anything `createMemoryBacking` did not make. */
export function backingState(backing: MemoryBacking): MemoryBackingState | undefined {
  return states.get(backing);
}

/** Runs `work` when every append queued before it on this backing has finished. */
export function exclusively<T>(state: MemoryBackingState, work: () => Promise<T>): Promise<T> {
  const result = state.tail.then(work);
  state.tail = result.catch(() => undefined);
  return result;
}
