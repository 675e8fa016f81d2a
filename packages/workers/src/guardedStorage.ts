import { isStorageError } from '@roundtable/storage';
import type { NewEvent, RunStorage, StoredEvent } from '@roundtable/storage';

/** Thrown by a guarded storage instead of writing an event the step may not write. Never leaves the package. */
export class StepBoundary extends Error {
  constructor() {
    super('The step reached an event that belongs to another step.');
    this.name = 'StepBoundary';
  }
}

export function isStepBoundary(error: unknown): boolean {
  return error instanceof StepBoundary;
}

/** What a guarded storage saw and wrote. */
export interface GuardedStorage {
  readonly storage: RunStorage;
  /** Events this step appended (in order). */
  readonly written: NewEvent[];
  /** Events the step wanted to append but may not (from the first refused append on, every append's). */
  readonly refused: NewEvent[];
  /** Events of appends the storage refused with REVISION_CONFLICT (another writer got there first). */
  readonly conflicted: NewEvent[];
  /** The type of the last stored event about `position`, as read through this storage. */
  lastTypeOf(position: string): string | null;
  readonly stopped: boolean;
}

function positionOf(event: { payload: unknown }): string | null {
  const payload = event.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const position = (payload as { position?: unknown }).position;
  return typeof position === 'string' ? position : null;
}

/**
 * Wraps a storage so an executor can take exactly one step of a run: `allow` decides which
 * events the step may write. The first append that holds an event it may not write writes the
 * allowed events before it (so a grouped append keeps its valid prefix: an outcome and the
 * dispatch batch that follows it, never half a batch) and throws StepBoundary; every later
 * append throws too. The executor is discarded afterwards, so its unfolded state never matters.
 */
export function guardStorage(storage: RunStorage, allow: (event: NewEvent) => boolean): GuardedStorage {
  const written: NewEvent[] = [];
  const refused: NewEvent[] = [];
  const conflicted: NewEvent[] = [];
  const lastType = new Map<string, string>();
  let stopped = false;

  const note = (event: { type: string; payload: unknown }) => {
    const position = positionOf(event);
    if (position !== null) lastType.set(position, event.type);
  };

  async function* read(streamId: string, options?: { after?: number }): AsyncGenerator<StoredEvent> {
    for await (const event of storage.read(streamId, options)) {
      note(event);
      yield event;
    }
  }

  const guarded: RunStorage = {
    identity: storage.identity,
    head: (streamId) => storage.head(streamId),
    read,
    streams: () => storage.streams(),
    close: () => Promise.resolve(),
    append: async (streamId, expectedRevision, events) => {
      if (stopped) {
        refused.push(...events);
        throw new StepBoundary();
      }
      const cut = events.findIndex((event) => !allow(event));
      const allowed = cut === -1 ? events : events.slice(0, cut);
      if (cut !== -1) {
        stopped = true;
        refused.push(...events.slice(cut));
      }
      if (allowed.length > 0) {
        let head: number;
        try {
          head = await storage.append(streamId, expectedRevision, allowed);
        } catch (error) {
          if (isStorageError(error, 'REVISION_CONFLICT')) conflicted.push(...allowed);
          throw error;
        }
        written.push(...allowed);
        allowed.forEach(note);
        if (cut === -1) return head;
      }
      throw new StepBoundary();
    },
  };
  return {
    storage: guarded,
    written,
    refused,
    conflicted,
    lastTypeOf: (position) => lastType.get(position) ?? null,
    get stopped() {
      return stopped;
    },
  };
}

export { positionOf };
