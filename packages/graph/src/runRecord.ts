import { isIdentifier } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { GraphExecutionError } from './graphExecutionError.js';
import type { CompiledGraph } from './compileGraph.js';
import type { DispatchCommand } from './graphCommand.js';
import { GRAPH_EVENT_PAYLOAD_FIELDS } from './graphEvent.js';

/** The event kinds the executor writes; all are version 1. */
export const GraphEventTypes = {
  RUN_STARTED: 'graph:run-started',
  NODE_DISPATCHED: 'graph:node-dispatched',
  NODE_ATTEMPT_STARTED: 'graph:node-attempt-started',
  NODE_COMPLETED: 'graph:node-completed',
  NODE_FAILED: 'graph:node-failed',
  NODE_PAUSED: 'graph:node-paused',
  NODE_RESUMED: 'graph:node-resumed',
  NODE_RETRIED: 'graph:node-retried',
} as const;

export const GRAPH_EVENT_VERSION = 1;

const PAYLOAD_FIELDS = GRAPH_EVENT_PAYLOAD_FIELDS;

/**
 * What is wrong with the shape of a standard `graph:` event, or null: version 1, exactly its
 * payload fields, and each field of the right type. Events outside `graph:` pass. The fold
 * applies this to every event it reads and the executor to every event it is about to write,
 * so the executor can never write an event that a later fold refuses for its shape. (Whether
 * the event fits the record so far, such as a declared node or a matching attempt, is the
 * fold's business; that the payload is JSON with well-formed strings is the storage's.)
 */
export function graphEventProblem(event: { readonly type: string; readonly version: number; readonly payload: unknown }): string | null {
  if (!event.type.startsWith('graph:')) return null;
  const fields = PAYLOAD_FIELDS[event.type];
  if (fields === undefined) return 'unknown graph event type.';
  if (event.version !== GRAPH_EVENT_VERSION) return `version ${String(event.version)} is not supported (only 1).`;
  const payload = event.payload;
  if (!isObject(payload)) return 'payload must be an object.';
  const keys = Object.keys(payload);
  if (keys.length !== fields.length || !fields.every((field) => Object.prototype.hasOwnProperty.call(payload, field))) {
    return `payload must have exactly the fields ${fields.join(', ')}.`;
  }
  if (event.type === GraphEventTypes.RUN_STARTED) return null;
  if (typeof payload.nodeId !== 'string') return 'nodeId must be a string.';
  if (typeof payload.position !== 'string' || !isIdentifier(payload.position)) return 'position must be an identifier.';
  switch (event.type) {
    case GraphEventTypes.NODE_ATTEMPT_STARTED:
      if (!isPositiveSafeInteger(payload.attempt)) return 'attempt must be a positive safe integer.';
      return typeof payload.retrySafe === 'boolean' ? null : 'retrySafe must be a boolean.';
    case GraphEventTypes.NODE_FAILED:
      return typeof payload.code === 'string' && typeof payload.message === 'string' ? null : 'code and message must be strings.';
    case GraphEventTypes.NODE_RETRIED:
      if (!isPositiveSafeInteger(payload.attempt)) return 'attempt must be a positive safe integer.';
      return typeof payload.code === 'string' && typeof payload.message === 'string' ? null : 'code and message must be strings.';
    case GraphEventTypes.NODE_PAUSED:
      return typeof payload.reason === 'string' ? null : 'reason must be a string.';
    default:
      return null;
  }
}

function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** What `graph:run-started` stores about the graph. */
export interface StoredRunDefinition {
  readonly kind: string;
  readonly typeVersion: number;
  readonly digest: string;
  readonly value: Json;
}

/** The part of a stored event a fold needs. */
export interface RecordedEvent {
  readonly revision: number;
  readonly eventId: string;
  readonly type: string;
  readonly version: number;
  readonly payload: Json;
}

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

/** A `graph:node-failed` as the record holds it. */
export interface RecordedFailure {
  readonly nodeId: string;
  readonly position: string;
  readonly code: string;
  readonly message: string;
}

function invalidEvent(event: RecordedEvent, problem: string): GraphExecutionError {
  return new GraphExecutionError('INVALID_EVENT', `Event ${event.type} at revision ${event.revision}: ${problem}`, {
    details: { revision: event.revision, type: event.type, eventId: event.eventId },
  });
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The run-started payload for a compiled graph. */
export function runStartedPayload(graph: CompiledGraph<unknown>): { definition: StoredRunDefinition } {
  return {
    definition: { kind: graph.kind, typeVersion: graph.typeVersion, digest: graph.definition.digest, value: graph.definition.value },
  };
}

/**
 * Reads the stored definition out of a run's first event, checking that it is a version-1
 * `graph:run-started` at revision 1 with exactly `{ definition: { kind, typeVersion, digest, value } }`.
 */
export function parseRunStartedEvent(event: RecordedEvent): StoredRunDefinition {
  if (event.type !== GraphEventTypes.RUN_STARTED || event.revision !== 1) {
    throw invalidEvent(event, 'a run must start with graph:run-started at revision 1.');
  }
  if (event.version !== GRAPH_EVENT_VERSION) throw invalidEvent(event, `version ${event.version} is not supported (only 1).`);
  const payload = event.payload;
  if (!isObject(payload) || Object.keys(payload).length !== 1 || !isObject(payload.definition)) {
    throw invalidEvent(event, 'payload must be exactly { definition }.');
  }
  const definition = payload.definition;
  if (
    Object.keys(definition).length !== 4 ||
    typeof definition.kind !== 'string' ||
    typeof definition.typeVersion !== 'number' ||
    typeof definition.digest !== 'string' ||
    !('value' in definition)
  ) {
    throw invalidEvent(event, 'definition must be { kind, typeVersion, digest, value }.');
  }
  return { kind: definition.kind, typeVersion: definition.typeVersion, digest: definition.digest, value: definition.value! };
}

/**
 * Folds a run's record into graph state, incrementally and strictly: every standard `graph:`
 * event must have version 1, exactly its payload fields and a declared node, and events must
 * fit together (a dispatch batch equals what `decide` returned at that point; an outcome
 * needs a matching started attempt). Anything else throws `INVALID_EVENT` before the caller
 * writes or delivers anything. Events outside `graph:` only advance the revision.
 *
 * The executor and the room projector share this one fold, so both accept exactly the same
 * records. Cost per event is the graph's `reduce` plus O(1) bookkeeping; `decide` runs once
 * per dispatch batch.
 */
export class RunRecordFolder<State> {
  state: State;
  revision = 0;
  definition: StoredRunDefinition | null = null;
  /** Unfinished attempts by position, in dispatch order. */
  readonly open = new Map<string, OpenAttempt>();
  /** Every position ever dispatched in this run. */
  readonly dispatched = new Set<string>();
  /** Every `graph:node-failed` of the record, in record order. */
  readonly failures: RecordedFailure[] = [];

  readonly #graph: CompiledGraph<State>;
  readonly #nodeIds: ReadonlySet<string>;
  #expectedBatch: DispatchCommand[] = [];
  #batchIndex = 0;
  /** States computed ahead by `stateAfter`, which `apply` of the same events reuses. */
  #ahead: { readonly type: string; readonly payload: Json; readonly before: State; readonly after: State }[] = [];

  constructor(graph: CompiledGraph<State>) {
    this.#graph = graph;
    this.#nodeIds = new Set(graph.definition.value.nodes.map((node) => node.id));
    this.state = graph.initialState();
  }

  /** Applies the next event of the record; its revision must follow the last one applied. */
  apply(event: RecordedEvent): void {
    if (event.revision !== this.revision + 1) throw invalidEvent(event, `expected revision ${this.revision + 1}.`);
    if (!event.type.startsWith('graph:')) {
      this.revision = event.revision;
      return;
    }
    const problem = graphEventProblem(event);
    if (problem !== null) throw invalidEvent(event, problem);
    const payload = event.payload as Record<string, Json>;
    if (event.type === GraphEventTypes.RUN_STARTED) {
      this.#applyRunStarted(event);
    } else {
      if (this.definition === null) throw invalidEvent(event, 'the record does not start with graph:run-started.');
      this.#applyNodeEvent(event, payload);
    }
    this.revision = event.revision;
  }

  /**
   * The state after folding `events` (graph events about open attempts, in order) into the
   * current state, without applying them. Applying the same events next (the same payload
   * objects, e.g. after appending them) reuses these states instead of reducing again, so a
   * writer can ask `decide` about the state its next append leads to. Checks nothing:
   * `apply` still checks every event.
   */
  stateAfter(events: readonly { readonly type: string; readonly version: number; readonly payload: Json }[]): State {
    let state = this.state;
    this.#ahead = events.map((event) => {
      const before = state;
      state = this.#graph.reduce(before, { type: event.type, version: event.version, payload: event.payload });
      return { type: event.type, payload: event.payload, before, after: state };
    });
    return state;
  }

  /**
   * Tells the fold which batch its owner is about to append, so applying that batch does not
   * run `decide` a second time. `commands` must be what `decide` returned for the current state.
   */
  expectDispatchBatch(commands: readonly DispatchCommand[]): void {
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
      throw new GraphExecutionError('INVALID_EVENT', `The dispatch batch ending at revision ${this.revision} is shorter than decide returned.`, {
        details: { revision: this.revision },
      });
    }
  }

  #applyRunStarted(event: RecordedEvent): void {
    if (this.definition !== null) throw invalidEvent(event, 'graph:run-started must be revision 1.');
    const stored = parseRunStartedEvent(event);
    const graph = this.#graph;
    if (stored.kind !== graph.kind || stored.typeVersion !== graph.typeVersion || stored.digest !== graph.definition.digest) {
      throw new GraphExecutionError(
        'STORED_GRAPH_MISMATCH',
        `The run holds a ${stored.kind} graph v${stored.typeVersion} (${stored.digest}), not this ${graph.kind} graph v${graph.typeVersion} (${graph.definition.digest}).`,
        { details: { stored: { kind: stored.kind, typeVersion: stored.typeVersion, digest: stored.digest } } },
      );
    }
    this.definition = stored;
  }

  #applyNodeEvent(event: RecordedEvent, payload: Record<string, Json>): void {
    const nodeId = payload.nodeId as string;
    const position = payload.position as string;
    if (!this.#nodeIds.has(nodeId)) throw invalidEvent(event, `node ${JSON.stringify(nodeId)} is not declared.`);

    if (event.type === GraphEventTypes.NODE_DISPATCHED) {
      this.#applyDispatch(event, nodeId, position);
    } else {
      if (this.#batchIndex !== this.#expectedBatch.length) throw invalidEvent(event, 'the dispatch batch before it is shorter than decide returned.');
      const open = this.open.get(position);
      if (open === undefined || open.nodeId !== nodeId) throw invalidEvent(event, `no unfinished attempt of ${nodeId} at ${position}.`);
      this.#applyAttemptEvent(event, payload, open);
    }
    this.state = this.#reduce(event, payload);
  }

  #reduce(event: RecordedEvent, payload: Record<string, Json>): State {
    const ahead = this.#ahead.shift();
    if (ahead !== undefined && ahead.before === this.state && ahead.type === event.type && ahead.payload === event.payload) return ahead.after;
    this.#ahead = [];
    return this.#graph.reduce(this.state, { type: event.type, version: event.version, payload });
  }

  #applyDispatch(event: RecordedEvent, nodeId: string, position: string): void {
    if (this.#expectedBatch.length === 0) {
      const commands = this.#graph.decide(this.state);
      if (commands.length === 0 || commands[0]!.kind !== 'dispatch') throw invalidEvent(event, 'decide did not dispatch at this point.');
      this.#expectedBatch = commands as DispatchCommand[];
      this.#batchIndex = 0;
    }
    const expected = this.#expectedBatch[this.#batchIndex]!;
    if (expected.nodeId !== nodeId || expected.position !== position) {
      throw invalidEvent(event, `decide dispatched ${expected.nodeId} at ${expected.position} here.`);
    }
    if (this.dispatched.has(position)) throw invalidEvent(event, `position ${position} was already dispatched.`);
    this.#batchIndex++;
    if (this.#batchIndex === this.#expectedBatch.length) {
      this.#expectedBatch = [];
      this.#batchIndex = 0;
    }
    this.dispatched.add(position);
    this.open.set(position, {
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

  #applyAttemptEvent(event: RecordedEvent, payload: Record<string, Json>, open: OpenAttempt): void {
    const position = open.position;
    switch (event.type) {
      case GraphEventTypes.NODE_ATTEMPT_STARTED: {
        if (open.status !== 'dispatched' && open.status !== 'resumed') throw invalidEvent(event, `attempt at ${position} is ${open.status}.`);
        if (payload.attempt !== open.attempt + 1) throw invalidEvent(event, `attempt must be ${open.attempt + 1}.`);
        this.open.set(position, { ...open, status: 'started', attempt: open.attempt + 1, retrySafe: payload.retrySafe as boolean, pause: null });
        return;
      }
      case GraphEventTypes.NODE_COMPLETED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        this.open.delete(position);
        return;
      case GraphEventTypes.NODE_FAILED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        this.open.delete(position);
        this.failures.push({ nodeId: open.nodeId, position, code: payload.code as string, message: payload.message as string });
        return;
      case GraphEventTypes.NODE_RETRIED:
        // The member stays in flight: the failed attempt is over and the next one has not started.
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        if (payload.attempt !== open.attempt) throw invalidEvent(event, `attempt must be ${open.attempt}, the attempt in flight.`);
        this.open.set(position, {
          ...open,
          status: 'resumed',
          previousFailure: { code: payload.code as string, message: payload.message as string },
          retries: open.retries + 1,
        });
        return;
      case GraphEventTypes.NODE_PAUSED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        this.open.set(position, { ...open, status: 'paused', pause: { reason: payload.reason as string, request: payload.request ?? null } });
        return;
      case GraphEventTypes.NODE_RESUMED:
        // A paused attempt resumes; so does a started one whose process died (crash recovery).
        if (open.status !== 'paused' && open.status !== 'started') throw invalidEvent(event, `attempt at ${position} is ${open.status}, not paused.`);
        this.open.set(position, {
          ...open,
          status: 'resumed',
          resumeValue: payload.value ?? null,
          answeredPause: open.status === 'paused' ? open.pause : null,
          previousFailure: null,
        });
        return;
      default:
        throw invalidEvent(event, 'unknown graph event type.');
    }
  }
}
