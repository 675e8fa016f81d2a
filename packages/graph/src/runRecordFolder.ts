import type { Json } from '@roundtable/core';
import { builtEventReducer } from './compileGraph.js';
import type { CompiledGraph } from './compileGraph.js';
import type { GraphEvent } from './graphEvent.js';
import type { DispatchCommand } from './graphCommand.js';
import { GraphEventTypes, graphEventProblem } from './graphEventTypes.js';
import { GraphExecutionError } from './graphExecutionError.js';
import { invalidEvent } from './recordedEvent.js';
import type { RecordedEvent } from './recordedEvent.js';
import { PositionSet } from './positionSet.js';
import { parseRunForkedEvent } from './runForkedEvent.js';
import { parseRunStartedEvent, storedGraphMismatch } from './runStartedEvent.js';
import type { StoredRunDefinition } from './runStartedEvent.js';

/**
 * An attempt that is not finished: dispatched and not yet started, started without an
 * outcome, paused, or resumed and not yet restarted. Completed and failed attempts are dropped.
 */
export interface OpenAttempt {
  readonly nodeId: string;
  readonly position: string;
  readonly status: 'dispatched' | 'started' | 'paused' | 'resumed';
  /** How many `node-attempt-started` events this position has (0 before the first). */
  readonly attempt: number;
  /** The dispatch input `decide` produced for this position. */
  readonly input: Json;
  readonly dispatchEventId: string;
  readonly retrySafe: boolean | null;
  /** The pause while the attempt is paused, else null. */
  readonly pause: AttemptPause | null;
  /** The value of the latest `node-resumed`, or null. */
  readonly resumeValue: Json;
  /** The pause that the latest `node-resumed` answered (null when it resumed a started attempt). */
  readonly answeredPause: AttemptPause | null;
  /** The failure recorded by a `node-retried` since the last resume, or null. */
  readonly previousFailure: AttemptFailure | null;
  /** How many `node-retried` events this position has. */
  readonly retries: number;
}

export interface AttemptPause {
  readonly reason: string;
  readonly request: Json;
}

export interface AttemptFailure {
  readonly code: string;
  readonly message: string;
}

/** A `graph:run-cancelled` as the record holds it. */
export interface RecordedCancel {
  readonly reason: string;
  /** The revision of the `graph:run-cancelled` event. */
  readonly revision: number;
}

/** A `graph:run-forked` as the fold met it: the run is a fork of `from` at run revision `at` (SPEC 21). */
export interface RecordedFork {
  readonly from: string;
  readonly at: number;
  readonly prefixDigest: string;
}

/** A `graph:node-failed` as the record holds it. */
export interface RecordedFailure {
  readonly nodeId: string;
  readonly position: string;
  readonly code: string;
  readonly message: string;
}

/**
 * What a writer that appends to the record it folds may tell the fold ahead of applying its own
 * events (SPEC 11.1), so it reduces and decides once per event, not twice.
 */
export interface FoldLookAhead<State> {
  /**
   * The state after folding `events` (graph events about open attempts, in order) into the
   * current state, without applying them. Applying the same events next (the same payload
   * objects, e.g. after appending them) reuses these states instead of reducing again, so a
   * writer can ask `decide` about the state its next append leads to. Checks nothing:
   * `apply` still checks every event. `stateAfter([])` drops what was computed ahead.
   */
  stateAfter(events: readonly { readonly type: string; readonly version: number; readonly payload: Json }[]): State;
  /**
   * Tells the fold which batch its owner is about to append, so applying that batch does not
   * run `decide` a second time. `commands` must be what `decide` returned for the current state.
   */
  expectDispatchBatch(commands: readonly DispatchCommand[]): void;
}

/**
 * The attempt `from` with every changing field spelled out: an explicit literal of the
 * interface's fields is several times cheaper than a spread of the previous attempt, and an
 * attempt moves on at least once per turn.
 */
function movedOn(
  from: OpenAttempt,
  status: OpenAttempt['status'],
  attempt: number,
  retrySafe: boolean | null,
  pause: AttemptPause | null,
  resumeValue: Json,
  answeredPause: AttemptPause | null,
  previousFailure: AttemptFailure | null,
  retries: number,
): OpenAttempt {
  return {
    nodeId: from.nodeId,
    position: from.position,
    status,
    attempt,
    input: from.input,
    dispatchEventId: from.dispatchEventId,
    retrySafe,
    pause,
    resumeValue,
    answeredPause,
    previousFailure,
    retries,
  };
}

/** The events a cancelled run still takes: outcomes of attempts that were started before the cancel. */
const CANCEL_KEEPS: ReadonlySet<string> = new Set([GraphEventTypes.NODE_COMPLETED, GraphEventTypes.NODE_FAILED, GraphEventTypes.NODE_PAUSED, GraphEventTypes.NODE_RETRIED]);

/**
 * Folds a run's record into graph state, incrementally and strictly: every standard `graph:`
 * event must have version 1, exactly its payload fields and a declared node, and events must
 * fit together (a dispatch batch equals what `decide` returned at that point; an outcome
 * needs a matching started attempt). Anything else throws `INVALID_EVENT` before the caller
 * writes or delivers anything. Events outside `graph:` only advance the revision.
 *
 * The executor and the room projector share this one fold, so both accept exactly the same
 * records. What it knows is read-only to its users: they change it only by applying events.
 * Cost per event is the graph's `reduce` plus O(1) bookkeeping; `decide` runs once per
 * dispatch batch.
 */
export class RunRecordFolder<State> {
  #state: State;
  #revision = 0;
  #definition: StoredRunDefinition | null = null;
  /**
   * Unfinished attempts by position, in dispatch order; a finished one's entry is set to
   * undefined, not deleted, and the map is rebuilt once such entries outnumber the open ones
   * (see `#finish`).
   */
  #open = new Map<string, OpenAttempt | undefined>();
  /** How many entries of `#open` are unfinished attempts. */
  #openCount = 0;
  /** Every position ever dispatched in this run (a team run's as bits per member, see `PositionSet`). */
  readonly #dispatched = new PositionSet();
  /** Every `graph:node-failed` of the record, in record order. */
  readonly #failures: RecordedFailure[] = [];
  /** The run's `graph:run-cancelled`, once applied. */
  #cancelled: RecordedCancel | null = null;
  /** Every `graph:run-forked` folded, the root's first (a fork of a fork has two). */
  readonly #forks: RecordedFork[] = [];

  readonly #graph: CompiledGraph<State>;
  /** `graph.reduce` for the `{ type, version, payload }` that `#reduce` builds from an event `graphEventProblem` passed. */
  readonly #reduceBuilt: (state: State, event: GraphEvent) => State;
  readonly #nodeIds: ReadonlySet<string>;
  #expectedBatch: DispatchCommand[] = [];
  #batchIndex = 0;
  #lookAheadClaimed = false;
  /** States computed ahead by `stateAfter`, which `apply` of the same events reuses. */
  #ahead: { readonly type: string; readonly payload: Json; readonly before: State; readonly after: State }[] = [];

  constructor(graph: CompiledGraph<State>) {
    this.#graph = graph;
    this.#reduceBuilt = builtEventReducer(graph);
    this.#nodeIds = new Set(graph.definition.value.nodes.map((node) => node.id));
    this.#state = graph.initialState();
  }

  /** The graph state after the last event applied. */
  get state(): State {
    return this.#state;
  }

  /** The revision of the last event applied (0 before the first). */
  get revision(): number {
    return this.#revision;
  }

  /** What `graph:run-started` stored, or null before it was applied. */
  get definition(): StoredRunDefinition | null {
    return this.#definition;
  }

  /** Every `graph:node-failed` of the record, in record order. */
  get failures(): readonly RecordedFailure[] {
    return this.#failures;
  }

  /**
   * The run's cancel (SPEC 20), or null. After it the fold accepts only the outcomes of attempts
   * already started: no dispatch, no attempt start, no answer.
   */
  get cancelled(): RecordedCancel | null {
    return this.#cancelled;
  }

  /**
   * The forks this run's record passes through, oldest first: empty for a run that is not a
   * fork; the last is this run's own fork point.
   */
  get forks(): readonly RecordedFork[] {
    return this.#forks;
  }

  /** The positions of attempts started and without an outcome, in dispatch order (what a cancel waits for). */
  startedPositions(): string[] {
    const positions: string[] = [];
    for (const attempt of this.#open.values()) if (attempt !== undefined && attempt.status === 'started') positions.push(attempt.position);
    return positions;
  }

  /** The unfinished attempt at `position`, or undefined when there is none (never dispatched, completed or failed). */
  openAttempt(position: string): OpenAttempt | undefined {
    return this.#open.get(position);
  }

  /** Every unfinished attempt, paused ones included, in dispatch order (a new array). */
  openAttempts(): OpenAttempt[] {
    const attempts: OpenAttempt[] = [];
    for (const attempt of this.#open.values()) if (attempt !== undefined) attempts.push(attempt);
    return attempts;
  }

  /**
   * The positions of unfinished attempts that are not paused, in dispatch order: work that a
   * process started or was about to start (after a crash, what `resume` recovers).
   */
  unfinishedPositions(): string[] {
    const positions: string[] = [];
    for (const attempt of this.#open.values()) if (attempt !== undefined && attempt.status !== 'paused') positions.push(attempt.position);
    return positions;
  }

  /** Whether `position` was ever dispatched in this run (a position is dispatched at most once). */
  hasDispatched(position: string): boolean {
    return this.#dispatched.has(position);
  }

  /** Applies the next event of the record; its revision must follow the last one applied. */
  apply(event: RecordedEvent): void {
    if (event.revision !== this.#revision + 1) throw invalidEvent(event, `expected revision ${this.#revision + 1}.`);
    // Revision 1 is always the run's start (SPEC 4): a record that opens with anything else can
    // never be folded, so nothing may be written after it.
    if (event.revision === 1 && event.type !== GraphEventTypes.RUN_STARTED) throw invalidEvent(event, 'a run must start with graph:run-started at revision 1.');
    if (!event.type.startsWith('graph:')) {
      this.#revision = event.revision;
      return;
    }
    const problem = graphEventProblem(event);
    if (problem !== null) throw invalidEvent(event, problem);
    const payload = event.payload as Record<string, Json>;
    if (event.type === GraphEventTypes.RUN_STARTED) this.#applyRunStarted(event);
    else if (event.type === GraphEventTypes.RUN_CANCELLED) this.#applyRunCancelled(event, payload);
    else if (event.type === GraphEventTypes.RUN_FORKED) this.#applyRunForked(event);
    else this.#applyNodeEvent(event, payload);
    this.#revision = event.revision;
  }

  /**
   * The fold's look-ahead, for the one writer that owns this folder (the scheduler's executor):
   * the first call returns it, a second is PROTOCOL, so no other user of the folder can change
   * what its next `apply` reuses. See `FoldLookAhead`.
   */
  lookAhead(): FoldLookAhead<State> {
    if (this.#lookAheadClaimed) throw new GraphExecutionError('PROTOCOL', 'The look-ahead of this folder belongs to another writer.');
    this.#lookAheadClaimed = true;
    return {
      stateAfter: (events) => this.#stateAfter(events),
      expectDispatchBatch: (commands) => this.#expectDispatchBatch(commands),
    };
  }

  #stateAfter(events: readonly { readonly type: string; readonly version: number; readonly payload: Json }[]): State {
    let state = this.#state;
    this.#ahead = events.map((event) => {
      const before = state;
      state = this.#graph.reduce(before, { type: event.type, version: event.version, payload: event.payload });
      return { type: event.type, payload: event.payload, before, after: state };
    });
    return state;
  }

  #expectDispatchBatch(commands: readonly DispatchCommand[]): void {
    if (this.#batchIndex !== this.#expectedBatch.length) return;
    this.#expectedBatch = [...commands];
    this.#batchIndex = 0;
  }

  /**
   * Call after the last event of a read: a dispatch batch is one atomic append, so a read
   * never ends inside one; a batch shorter than `decide`'s is an invalid record.
   */
  endOfRead(): void {
    if (this.#batchIndex !== this.#expectedBatch.length) {
      throw new GraphExecutionError('INVALID_EVENT', `The dispatch batch ending at revision ${this.#revision} is shorter than decide returned.`, {
        details: { revision: this.#revision },
      });
    }
  }

  #applyRunStarted(event: RecordedEvent): void {
    if (this.#definition !== null) throw invalidEvent(event, 'graph:run-started must be revision 1.');
    const stored = parseRunStartedEvent(event);
    const mismatch = storedGraphMismatch(stored, this.#graph);
    if (mismatch !== null) throw mismatch;
    this.#definition = stored;
  }

  /**
   * A cancel is one event between batches of a run that has not ended (a pause has not ended
   * it), written once; the graph's state does not change (reduce never sees it).
   */
  #applyRunCancelled(event: RecordedEvent, payload: Record<string, Json>): void {
    if (this.#cancelled !== null) throw invalidEvent(event, `the run was cancelled already at revision ${this.#cancelled.revision}.`);
    if (this.#batchIndex !== this.#expectedBatch.length) throw invalidEvent(event, 'the dispatch batch before it is shorter than decide returned.');
    if (this.#openCount === 0) {
      const first = this.#graph.decide(this.#state)[0];
      if (first !== undefined && (first.kind === 'complete' || first.kind === 'fail')) throw invalidEvent(event, `the run has ended (${first.kind}).`);
    }
    this.#cancelled = { reason: payload.reason as string, revision: event.revision };
  }

  /**
   * A fork continues its parent's fold at the fork point (SPEC 21): `graph:run-forked` follows
   * event `at` directly, never inside a dispatch batch, with the definition in force there. An
   * attempt started there without an outcome is abandoned: in the fork it is ready work and
   * runs again as a new attempt (its number one higher). Pauses stay open, a cancel stays; the
   * graph's state does not change (reduce never sees it).
   */
  #applyRunForked(event: RecordedEvent): void {
    const forked = parseRunForkedEvent(event);
    if (this.#definition === null) throw invalidEvent(event, 'a fork needs the run it forks (its first event is the fork point\'s next).');
    if (forked.at !== event.revision - 1) throw invalidEvent(event, `a fork at ${forked.at} must follow revision ${forked.at}.`);
    if (this.#batchIndex !== this.#expectedBatch.length) throw invalidEvent(event, 'a run cannot be forked inside a dispatch batch.');
    const mismatch = storedGraphMismatch(forked.definition, this.#graph);
    if (mismatch !== null || forked.definition.digest !== this.#definition.digest) {
      throw invalidEvent(event, `the fork's definition (${forked.definition.digest}) is not the one in force at ${forked.at} (${this.#definition.digest}).`);
    }
    for (const [position, open] of this.#open) {
      if (open === undefined || open.status !== 'started') continue;
      this.#open.set(position, movedOn(open, 'resumed', open.attempt, open.retrySafe, open.pause, open.resumeValue, open.answeredPause, open.previousFailure, open.retries));
    }
    this.#forks.push({ from: forked.from, at: forked.at, prefixDigest: forked.prefixDigest });
  }

  #applyNodeEvent(event: RecordedEvent, payload: Record<string, Json>): void {
    const nodeId = payload.nodeId as string;
    const position = payload.position as string;
    if (!this.#nodeIds.has(nodeId)) throw invalidEvent(event, `node ${JSON.stringify(nodeId)} is not declared.`);
    if (this.#cancelled !== null && !CANCEL_KEEPS.has(event.type)) {
      throw invalidEvent(event, `the run was cancelled at revision ${this.#cancelled.revision}: only outcomes of attempts already started may follow.`);
    }

    if (event.type === GraphEventTypes.NODE_DISPATCHED) {
      this.#applyDispatch(event, nodeId, position);
    } else {
      if (this.#batchIndex !== this.#expectedBatch.length) throw invalidEvent(event, 'the dispatch batch before it is shorter than decide returned.');
      const open = this.#open.get(position);
      if (open === undefined || open.nodeId !== nodeId) throw invalidEvent(event, `no unfinished attempt of ${nodeId} at ${position}.`);
      this.#applyAttemptEvent(event, payload, open);
    }
    this.#state = this.#reduce(event, payload);
  }

  #reduce(event: RecordedEvent, payload: Record<string, Json>): State {
    if (this.#ahead.length > 0) {
      const ahead = this.#ahead.shift()!;
      if (ahead.before === this.#state && ahead.type === event.type && ahead.payload === event.payload) return ahead.after;
      this.#ahead = [];
    }
    return this.#reduceBuilt(this.#state, { type: event.type, version: event.version, payload });
  }

  #applyDispatch(event: RecordedEvent, nodeId: string, position: string): void {
    if (this.#expectedBatch.length === 0) {
      const commands = this.#graph.decide(this.#state);
      if (commands.length === 0 || commands[0]!.kind !== 'dispatch') throw invalidEvent(event, 'decide did not dispatch at this point.');
      this.#expectedBatch = commands as DispatchCommand[];
      this.#batchIndex = 0;
    }
    const expected = this.#expectedBatch[this.#batchIndex]!;
    if (expected.nodeId !== nodeId || expected.position !== position) {
      throw invalidEvent(event, `decide dispatched ${expected.nodeId} at ${expected.position} here.`);
    }
    // Adding a position the set holds changes nothing, so a refused dispatch still leaves the
    // folder as it was (nothing after it in this method throws).
    if (!this.#dispatched.add(position)) throw invalidEvent(event, `position ${position} was already dispatched.`);
    this.#batchIndex++;
    if (this.#batchIndex === this.#expectedBatch.length) {
      this.#expectedBatch = [];
      this.#batchIndex = 0;
    }
    this.#openCount++;
    this.#open.set(position, {
      nodeId,
      position,
      status: 'dispatched',
      attempt: 0,
      input: expected.input,
      dispatchEventId: event.eventId,
      retrySafe: null,
      pause: null,
      resumeValue: null,
      answeredPause: null,
      previousFailure: null,
      retries: 0,
    });
  }

  /**
   * Drops a finished attempt. Not `Map.prototype.delete`: a map that is deleted from as often as
   * it is added to rehashes into a new table every few entries and links the old table to the
   * new one, and those dead tables, once in the old generation, keep every attempt (its input,
   * with the messages it quotes) that passed through them alive across young-generation
   * collections, so all of them were promoted before dying. Setting the entry to undefined
   * changes it in place; a fresh map, built once finished entries outnumber open ones, links to
   * nothing. Dispatch order is kept either way.
   */
  #finish(position: string): void {
    this.#open.set(position, undefined);
    this.#openCount--;
    if (this.#open.size <= 2 * this.#openCount + 8) return;
    const open = new Map<string, OpenAttempt | undefined>();
    for (const [key, attempt] of this.#open) if (attempt !== undefined) open.set(key, attempt);
    this.#open = open;
  }

  #applyAttemptEvent(event: RecordedEvent, payload: Record<string, Json>, open: OpenAttempt): void {
    const position = open.position;
    switch (event.type) {
      case GraphEventTypes.NODE_ATTEMPT_STARTED: {
        if (open.status !== 'dispatched' && open.status !== 'resumed') throw invalidEvent(event, `attempt at ${position} is ${open.status}.`);
        if (payload.attempt !== open.attempt + 1) throw invalidEvent(event, `attempt must be ${open.attempt + 1}.`);
        this.#open.set(position, movedOn(open, 'started', open.attempt + 1, payload.retrySafe as boolean, null, open.resumeValue, open.answeredPause, open.previousFailure, open.retries));
        return;
      }
      case GraphEventTypes.NODE_COMPLETED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        this.#finish(position);
        return;
      case GraphEventTypes.NODE_FAILED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        this.#finish(position);
        this.#failures.push({ nodeId: open.nodeId, position, code: payload.code as string, message: payload.message as string });
        return;
      case GraphEventTypes.NODE_RETRIED:
        // The member stays in flight: the failed attempt is over and the next one has not started.
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        if (payload.attempt !== open.attempt) throw invalidEvent(event, `attempt must be ${open.attempt}, the attempt in flight.`);
        this.#open.set(
          position,
          movedOn(open, 'resumed', open.attempt, open.retrySafe, open.pause, open.resumeValue, open.answeredPause, { code: payload.code as string, message: payload.message as string }, open.retries + 1),
        );
        return;
      case GraphEventTypes.NODE_PAUSED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        this.#open.set(
          position,
          movedOn(open, 'paused', open.attempt, open.retrySafe, { reason: payload.reason as string, request: payload.request ?? null }, open.resumeValue, open.answeredPause, open.previousFailure, open.retries),
        );
        return;
      case GraphEventTypes.NODE_RESUMED:
        // A paused attempt resumes; so does a started one whose process died (crash recovery).
        if (open.status !== 'paused' && open.status !== 'started') throw invalidEvent(event, `attempt at ${position} is ${open.status}, not paused.`);
        this.#open.set(
          position,
          movedOn(open, 'resumed', open.attempt, open.retrySafe, open.pause, payload.value ?? null, open.status === 'paused' ? open.pause : null, null, open.retries),
        );
        return;
      default:
        throw invalidEvent(event, 'unknown graph event type.');
    }
  }
}
