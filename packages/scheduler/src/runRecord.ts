import { GraphEventTypes, RunRecordFolder, foldStream } from '@roundtable/graph';
import type { CompiledGraph, DispatchCommand, FoldLookAhead, OpenAttempt } from '@roundtable/graph';
import { isStorageError } from '@roundtable/storage';
import type { NewEvent, RunStorage } from '@roundtable/storage';

/** What one call (a step, or a `run`/`resume` session) wrote, and whether an outcome of its attempt lost to another writer. */
export interface StepLog {
  readonly written: NewEvent[];
  /** Set when an outcome of this call's attempt was not written: another writer had moved the attempt on. */
  superseded: boolean;
}

export function newStepLog(): StepLog {
  return { written: [], superseded: false };
}

/** Where an attempt stood when an executor decided to write about it. */
export interface AttemptMark {
  readonly status: OpenAttempt['status'];
  readonly attempt: number;
}

/**
 * A run's record as one executor holds it: the fold of everything read or written so far, and
 * the one way to write to it. Appends are always at the folded revision; what is written is
 * folded without reading it back; on REVISION_CONFLICT what is new is read and folded.
 * Folding and appending are serialised (`exclusive`): attempts of one batch finish concurrently.
 */
export class RunRecord<State> {
  readonly runId: string;
  readonly folder: RunRecordFolder<State>;
  readonly #storage: RunStorage;
  /** The fold's look-ahead (SPEC 11.1), owned by this record alone. */
  readonly #lookAhead: FoldLookAhead<State>;
  #lock: Promise<unknown> = Promise.resolve();
  /** Called when an append met someone else's (it may be a cancel, which the attempts in flight must hear of). */
  readonly #conflictListeners = new Set<() => void>();

  constructor(runId: string, graph: CompiledGraph<State>, storage: RunStorage) {
    this.runId = runId;
    this.#storage = storage;
    this.folder = new RunRecordFolder(graph);
    this.#lookAhead = this.folder.lookAhead();
  }

  get revision(): number {
    return this.folder.revision;
  }

  /** Calls `listener` on each REVISION_CONFLICT of an append, until the returned function is called. */
  onConflict(listener: () => void): () => void {
    this.#conflictListeners.add(listener);
    return () => this.#conflictListeners.delete(listener);
  }

  /** Folds what others appended when the head moved past the folded revision (for the cancel watch). */
  async foldIfMoved(): Promise<void> {
    if ((await this.#storage.head(this.runId)) > this.folder.revision) await this.catchUp();
  }

  /** Folds only what is new since the last fold. */
  catchUp(): Promise<void> {
    return this.exclusive(() => this.readNew());
  }

  /** Reads what others appended since the last fold; true when there was something. */
  async foldedSomethingNew(): Promise<boolean> {
    const before = this.folder.revision;
    await this.catchUp();
    return this.folder.revision !== before;
  }

  /** The state once `events` are folded, remembered so that folding them next reuses it. */
  stateAfter(events: readonly NewEvent[]): State {
    return this.#lookAhead.stateAfter(events);
  }

  /** Forgets the look-ahead: the record did not take the events it was computed for. */
  dropLookAhead(): void {
    this.#lookAhead.stateAfter([]);
  }

  /**
   * Appends `graph:run-started` unless the fold already holds it (another step of this executor
   * started the run while this one waited for the lock); when another executor started the run
   * first, folds theirs (which checks it is the same graph).
   */
  start(started: NewEvent, log: StepLog): Promise<void> {
    return this.exclusive(async () => {
      if (this.folder.revision > 0) return;
      try {
        await this.appendAndFold([started], log);
      } catch (error) {
        if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
        await this.readNew();
      }
    });
  }

  /**
   * Appends a dispatch batch's events (`batch` starts at index 0) in one append, at `decidedAt`,
   * the revision of the fold `decide` returned the batch for; false, writing nothing, when the
   * fold has moved since (another step of this executor wrote while this one waited for the
   * lock: the batch may be dispatched already) or another writer got there first.
   */
  dispatch(events: readonly NewEvent[], batch: readonly DispatchCommand[], decidedAt: number, log: StepLog): Promise<boolean> {
    return this.exclusive(async () => {
      if (this.folder.revision !== decidedAt) return false;
      try {
        await this.appendAndFold(events, log, { commands: batch, at: 0 });
        return true;
      } catch (error) {
        if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
        await this.readNew();
        return false;
      }
    });
  }

  /**
   * Appends one event about an attempt, made by `build`, while the attempt is still as `open`
   * found it (the same status and attempt number). Returns whether the event was written.
   */
  appendForAttempt(open: OpenAttempt, build: () => NewEvent, log: StepLog): Promise<boolean> {
    return this.exclusive(() => this.appendWithRefold(open.position, open, build, log));
  }

  /**
   * The one append-and-refold loop (for a caller that already holds the lock): while the
   * attempt at `position` is still `expected` ("is this attempt still ours?"), appends the event
   * `build` makes at the known revision; on REVISION_CONFLICT folds what is new and checks
   * again. Returns false, writing nothing, once someone else has moved the attempt on.
   */
  async appendWithRefold(position: string, expected: AttemptMark, build: () => NewEvent, log: StepLog): Promise<boolean> {
    for (;;) {
      if (!isStill(this.folder.openAttempt(position), expected)) return false;
      const event = build();
      // After a cancel the record takes only outcomes of started attempts: no start, no answer.
      if (this.folder.cancelled !== null && !OUTCOME_TYPES.has(event.type)) return false;
      try {
        await this.appendAndFold([event], log);
        return true;
      } catch (error) {
        if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
        await this.readNew();
      }
    }
  }

  /**
   * Appends at the folded revision, then folds the written events without reading them back;
   * `batch` is the dispatch batch `decide` returned that starts at event index `at`. For a
   * caller that holds the lock.
   */
  async appendAndFold(events: readonly NewEvent[], log: StepLog, batch?: { readonly commands: readonly DispatchCommand[]; readonly at: number }): Promise<void> {
    const expected = this.folder.revision;
    try {
      await this.#storage.append(this.runId, expected, events);
    } catch (error) {
      // Someone else appended: it may be a cancel, which the attempts in flight must hear of.
      if (isStorageError(error, 'REVISION_CONFLICT')) for (const listener of this.#conflictListeners) listener();
      throw error;
    }
    for (const event of events) log.written.push(event);
    const folder = this.folder;
    for (let index = 0; index < events.length; index++) {
      const event = events[index]!;
      if (batch !== undefined && index === batch.at) this.#lookAhead.expectDispatchBatch(batch.commands);
      folder.apply({ revision: expected + index + 1, eventId: event.eventId, type: event.type, version: event.version, payload: event.payload });
    }
    folder.endOfRead();
  }

  /** Folds what is new in the record (for a caller that holds the lock). */
  async readNew(): Promise<void> {
    await foldStream(this.#storage, this.runId, { folder: this.folder });
  }

  /** Runs `work` after every earlier piece of exclusive work, whether that failed or not. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#lock.then(work, work);
    this.#lock = result.catch(() => undefined);
    return result;
  }
}

/** The events a cancelled run still takes (the fold's rule, SPEC 20): outcomes of attempts already started. */
const OUTCOME_TYPES: ReadonlySet<string> = new Set([GraphEventTypes.NODE_COMPLETED, GraphEventTypes.NODE_FAILED, GraphEventTypes.NODE_PAUSED, GraphEventTypes.NODE_RETRIED]);

/** The mark of the started attempt `attempt`, which an outcome may end. */
export function startedAttempt(attempt: number): AttemptMark {
  return { status: 'started', attempt };
}

/** "Is this attempt still ours?": whether the attempt is still where `expected` found it. */
function isStill(current: OpenAttempt | undefined, expected: AttemptMark): boolean {
  return current !== undefined && current.status === expected.status && current.attempt === expected.attempt;
}
