import { isIdentifier } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { GraphExecutionError } from './graphExecutionError.js';
import type { CompiledGraph } from './compileGraph.js';
import type { DispatchCommand } from './graphCommand.js';

/** The event kinds the executor writes; all are version 1. */
export const GraphEventTypes = {
  RUN_STARTED: 'graph:run-started',
  NODE_DISPATCHED: 'graph:node-dispatched',
  NODE_ATTEMPT_STARTED: 'graph:node-attempt-started',
  NODE_COMPLETED: 'graph:node-completed',
  NODE_FAILED: 'graph:node-failed',
  NODE_PAUSED: 'graph:node-paused',
  NODE_RESUMED: 'graph:node-resumed',
} as const;

export const GRAPH_EVENT_VERSION = 1;

const PAYLOAD_FIELDS: Record<string, readonly string[]> = {
  [GraphEventTypes.RUN_STARTED]: ['definition'],
  [GraphEventTypes.NODE_DISPATCHED]: ['nodeId', 'position'],
  [GraphEventTypes.NODE_ATTEMPT_STARTED]: ['nodeId', 'position', 'attempt', 'retrySafe'],
  [GraphEventTypes.NODE_COMPLETED]: ['nodeId', 'position', 'result'],
  [GraphEventTypes.NODE_FAILED]: ['nodeId', 'position', 'code', 'message'],
  [GraphEventTypes.NODE_PAUSED]: ['nodeId', 'position', 'reason', 'request'],
  [GraphEventTypes.NODE_RESUMED]: ['nodeId', 'position', 'value'],
};

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
  readonly pause: { readonly reason: string; readonly request: Json } | null;
  /** The value of the latest `node-resumed`, or null. */
  readonly resumeValue: Json;
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

  readonly #graph: CompiledGraph<State>;
  readonly #nodeIds: ReadonlySet<string>;
  #expectedBatch: DispatchCommand[] = [];
  #batchIndex = 0;

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
    const fields = PAYLOAD_FIELDS[event.type];
    if (fields === undefined) throw invalidEvent(event, 'unknown graph event type.');
    if (event.version !== GRAPH_EVENT_VERSION) throw invalidEvent(event, `version ${event.version} is not supported (only 1).`);
    const payload = event.payload;
    if (!isObject(payload)) throw invalidEvent(event, 'payload must be an object.');
    const keys = Object.keys(payload);
    if (keys.length !== fields.length || !fields.every((field) => Object.prototype.hasOwnProperty.call(payload, field))) {
      throw invalidEvent(event, `payload must have exactly the fields ${fields.join(', ')}.`);
    }
    if (event.type === GraphEventTypes.RUN_STARTED) {
      this.#applyRunStarted(event);
    } else {
      if (this.definition === null) throw invalidEvent(event, 'the record does not start with graph:run-started.');
      this.#applyNodeEvent(event, payload);
    }
    this.revision = event.revision;
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
    const { nodeId, position } = payload;
    if (typeof nodeId !== 'string' || !this.#nodeIds.has(nodeId)) throw invalidEvent(event, `node ${JSON.stringify(nodeId)} is not declared.`);
    if (typeof position !== 'string' || !isIdentifier(position)) throw invalidEvent(event, 'position must be an identifier.');

    if (event.type === GraphEventTypes.NODE_DISPATCHED) {
      this.#applyDispatch(event, nodeId, position);
    } else {
      if (this.#batchIndex !== this.#expectedBatch.length) throw invalidEvent(event, 'the dispatch batch before it is shorter than decide returned.');
      const open = this.open.get(position);
      if (open === undefined || open.nodeId !== nodeId) throw invalidEvent(event, `no unfinished attempt of ${nodeId} at ${position}.`);
      this.#applyAttemptEvent(event, payload, open);
    }
    this.state = this.#graph.reduce(this.state, { type: event.type, version: event.version, payload });
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
    });
  }

  #applyAttemptEvent(event: RecordedEvent, payload: Record<string, Json>, open: OpenAttempt): void {
    const position = open.position;
    switch (event.type) {
      case GraphEventTypes.NODE_ATTEMPT_STARTED: {
        if (open.status !== 'dispatched' && open.status !== 'resumed') throw invalidEvent(event, `attempt at ${position} is ${open.status}.`);
        if (payload.attempt !== open.attempt + 1) throw invalidEvent(event, `attempt must be ${open.attempt + 1}.`);
        if (typeof payload.retrySafe !== 'boolean') throw invalidEvent(event, 'retrySafe must be a boolean.');
        this.open.set(position, { ...open, status: 'started', attempt: open.attempt + 1, retrySafe: payload.retrySafe, pause: null });
        return;
      }
      case GraphEventTypes.NODE_COMPLETED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        this.open.delete(position);
        return;
      case GraphEventTypes.NODE_FAILED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        if (typeof payload.code !== 'string' || typeof payload.message !== 'string') throw invalidEvent(event, 'code and message must be strings.');
        this.open.delete(position);
        return;
      case GraphEventTypes.NODE_PAUSED:
        if (open.status !== 'started') throw invalidEvent(event, `no attempt in flight at ${position}.`);
        if (typeof payload.reason !== 'string') throw invalidEvent(event, 'reason must be a string.');
        this.open.set(position, { ...open, status: 'paused', pause: { reason: payload.reason, request: payload.request ?? null } });
        return;
      case GraphEventTypes.NODE_RESUMED:
        // A paused attempt resumes; so does a started one whose process died (crash recovery).
        if (open.status !== 'paused' && open.status !== 'started') throw invalidEvent(event, `attempt at ${position} is ${open.status}, not paused.`);
        this.open.set(position, { ...open, status: 'resumed', resumeValue: payload.value ?? null });
        return;
      default:
        throw invalidEvent(event, 'unknown graph event type.');
    }
  }
}
