import { randomUUID } from 'node:crypto';
import type { Json } from '@roundtable/core';
import { GraphEventTypes, GraphExecutionError, RunRecordFolder, runStartedPayload } from '@roundtable/graph';
import type { CompiledGraph, DispatchCommand, GraphCommand, OpenAttempt } from '@roundtable/graph';
import { assertStreamId, isStorageError } from '@roundtable/storage';
import type { NewEvent, RunStorage } from '@roundtable/storage';
import { AttemptFailureCodes, runAttempt } from './attemptOutcome.js';
import type { AttemptOutcome } from './attemptOutcome.js';
import type { GraphRunResult } from './graphRunResult.js';
import { normalizeBinding } from './nodeBinding.js';
import type { NodeBinding, NodeBindingObject } from './nodeBinding.js';

export interface GraphExecutorOptions<State> {
  /** The run's id, which is also its stream id. */
  readonly runId: string;
  readonly graph: CompiledGraph<State>;
  readonly storage: RunStorage;
  /** A binding for every node of the graph. */
  readonly nodes: Readonly<Record<string, NodeBinding>>;
  /** Timestamps of written events (default: the system clock). */
  readonly clock?: () => Date | number;
  /** Ids of written events (default: random UUIDs). */
  readonly newId?: () => string;
}

export interface ResumeOptions {
  /** Recorded in `graph:node-resumed` and given to the attempt as `ctx.resume`. */
  readonly value?: Json;
  readonly signal?: AbortSignal;
}

export interface GraphExecutor {
  readonly runId: string;
  /** The last revision folded. */
  readonly revision: number;
  run(signal?: AbortSignal): Promise<GraphRunResult>;
  resume(position: string, options?: ResumeOptions): Promise<GraphRunResult>;
}

const RECONCILE_REASON = 'An attempt was in flight when its process stopped and its binding is not retrySafe; decide whether to run it again.';

/**
 * Opens a run: folds whatever the record already holds (refusing a different graph with
 * STORED_GRAPH_MISMATCH) and returns an executor that continues it. Nothing is written until
 * `run` or `resume` is called.
 */
export async function createGraphExecutor<State>(options: GraphExecutorOptions<State>): Promise<GraphExecutor> {
  assertStreamId(options.runId);
  const bindings = new Map<string, NodeBindingObject>();
  for (const node of options.graph.definition.value.nodes) {
    const binding = options.nodes[node.id];
    if (binding === undefined || (typeof binding !== 'function' && typeof binding?.run !== 'function')) {
      throw new GraphExecutionError('MISSING_NODE_BINDING', `Node "${node.id}" has no binding (a function or { run }).`, { details: { nodeId: node.id } });
    }
    bindings.set(node.id, normalizeBinding(binding));
  }
  const executor = new StoredGraphExecutor(options, bindings);
  await executor.catchUp();
  return executor;
}

class StoredGraphExecutor<State> implements GraphExecutor {
  readonly runId: string;
  readonly #graph: CompiledGraph<State>;
  readonly #storage: RunStorage;
  readonly #bindings: ReadonlyMap<string, NodeBindingObject>;
  readonly #folder: RunRecordFolder<State>;
  readonly #clock: () => Date | number;
  readonly #newId: () => string;
  readonly #nodeOrder: readonly string[];
  /** Serialises folding and appending: attempts of one batch finish concurrently. */
  #lock: Promise<unknown> = Promise.resolve();
  #busy = false;

  constructor(options: GraphExecutorOptions<State>, bindings: ReadonlyMap<string, NodeBindingObject>) {
    this.runId = options.runId;
    this.#graph = options.graph;
    this.#storage = options.storage;
    this.#bindings = bindings;
    this.#folder = new RunRecordFolder(options.graph);
    this.#clock = options.clock ?? (() => new Date());
    this.#newId = options.newId ?? randomUUID;
    this.#nodeOrder = options.graph.definition.value.nodes.map((node) => node.id);
  }

  get revision(): number {
    return this.#folder.revision;
  }

  /** Folds only what is new since the last fold. */
  async catchUp(): Promise<void> {
    await this.#exclusive(() => this.#readNew());
  }

  run(signal?: AbortSignal): Promise<GraphRunResult> {
    return this.#session(signal, async (runSignal) => {
      if (this.#folder.revision === 0) await this.#start();
      return this.#drive(runSignal);
    });
  }

  resume(position: string, options: ResumeOptions = {}): Promise<GraphRunResult> {
    return this.#session(options.signal, async (runSignal) => {
      await this.catchUp();
      const open = this.#folder.open.get(position);
      if (open === undefined) {
        throw new GraphExecutionError('PROTOCOL', `Position ${JSON.stringify(position)} is not an unfinished attempt of run ${this.runId}.`, {
          details: { position },
        });
      }
      const value = options.value ?? null;
      const binding = this.#bindings.get(open.nodeId)!;
      if (open.status === 'paused' || (open.status === 'started' && binding.retrySafe === true)) {
        const resumed = await this.#appendForAttempt(open, (current) =>
          current.status === open.status && current.attempt === open.attempt ? this.#event(GraphEventTypes.NODE_RESUMED, { nodeId: open.nodeId, position, value }, open.dispatchEventId) : null,
        );
        if (resumed) await this.#execute(position, runSignal);
      } else if (open.status === 'started') {
        await this.#appendForAttempt(open, (current) =>
          current.status === 'started' && current.attempt === open.attempt
            ? this.#event(
                GraphEventTypes.NODE_PAUSED,
                { nodeId: open.nodeId, position, reason: RECONCILE_REASON, request: { kind: 'reconcile-attempt' } },
                open.dispatchEventId,
              )
            : null,
        );
      } else {
        await this.#execute(position, runSignal);
      }
      return this.#drive(runSignal);
    });
  }

  /** One `run` or `resume` at a time per executor; an aborted signal stops before any write. */
  async #session(signal: AbortSignal | undefined, body: (signal: AbortSignal) => Promise<GraphRunResult>): Promise<GraphRunResult> {
    if (this.#busy) throw new GraphExecutionError('PROTOCOL', 'run or resume is already in progress on this executor.');
    this.#busy = true;
    try {
      const runSignal = signal ?? new AbortController().signal;
      throwIfAborted(runSignal);
      // The loop checks the signal before each batch, so a run that finished is not reported aborted.
      return await body(runSignal);
    } finally {
      this.#busy = false;
    }
  }

  async #start(): Promise<void> {
    const started = this.#event(GraphEventTypes.RUN_STARTED, runStartedPayload(this.#graph as CompiledGraph<unknown>) as unknown as Json, null);
    await this.#exclusive(async () => {
      try {
        await this.#appendAndFold([started]);
      } catch (error) {
        // Another executor started it first: fold theirs (which checks it is the same graph).
        if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
        await this.#readNew();
      }
    });
  }

  async #drive(signal: AbortSignal): Promise<GraphRunResult> {
    for (;;) {
      throwIfAborted(signal);
      const unfinished = [...this.#folder.open.values()].filter((attempt) => attempt.status !== 'paused');
      if (unfinished.length > 0) return { kind: 'waiting', positions: unfinished.map((attempt) => attempt.position) };
      const commands = this.#graph.decide(this.#folder.state);
      const first = commands[0];
      if (first === undefined) {
        throw new GraphExecutionError('EMPTY_DECISION', `decide returned no command for run ${this.runId} and no attempt is in flight.`);
      }
      if (first.kind !== 'dispatch') return this.#terminal(first);
      const batch = commands as DispatchCommand[];
      const dispatched = await this.#dispatch(batch);
      if (!dispatched) continue;
      await Promise.all(batch.map((command) => this.#execute(command.position, signal)));
    }
  }

  /** Appends one batch of dispatches atomically; false when another writer got there first. */
  async #dispatch(batch: readonly DispatchCommand[]): Promise<boolean> {
    for (const command of batch) {
      if (this.#folder.dispatched.has(command.position)) {
        throw new GraphExecutionError('DUPLICATE_POSITION', `decide dispatched position ${command.position} a second time.`, {
          details: { position: command.position },
        });
      }
    }
    const events = batch.map((command) =>
      this.#event(GraphEventTypes.NODE_DISPATCHED, { nodeId: command.nodeId, position: command.position }, null),
    );
    return this.#exclusive(async () => {
      try {
        await this.#appendAndFold(events, batch);
        return true;
      } catch (error) {
        if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
        await this.#readNew();
        return false;
      }
    });
  }

  /** Runs the next attempt of an open position and records its outcome. */
  async #execute(position: string, signal: AbortSignal): Promise<void> {
    const open = this.#folder.open.get(position);
    if (open === undefined || (open.status !== 'dispatched' && open.status !== 'resumed')) return;
    const binding = this.#bindings.get(open.nodeId)!;
    const attempt = open.attempt + 1;
    const started = await this.#appendForAttempt(open, (current) =>
      current.status === open.status && current.attempt === open.attempt
        ? this.#event(GraphEventTypes.NODE_ATTEMPT_STARTED, { nodeId: open.nodeId, position, attempt, retrySafe: binding.retrySafe === true }, open.dispatchEventId)
        : null,
    );
    if (!started) return;
    const outcome = await runAttempt(
      this.#graph as CompiledGraph<unknown>,
      binding,
      { input: open.input, nodeId: open.nodeId, position, resume: open.resumeValue },
      signal,
    );
    if (outcome.kind === 'aborted' || signal.aborted) return;
    const isOurs = (current: OpenAttempt) => current.status === 'started' && current.attempt === attempt;
    try {
      await this.#appendForAttempt(open, (current) => (isOurs(current) ? this.#outcomeEvent(open, outcome) : null));
    } catch (error) {
      const code = isStorageError(error, 'STORAGE_LIMIT_EXCEEDED')
        ? AttemptFailureCodes.RESULT_TOO_LARGE
        : isStorageError(error, 'KNOWN_SECRET')
          ? AttemptFailureCodes.KNOWN_SECRET
          : null;
      if (code === null) throw error;
      const message =
        code === AttemptFailureCodes.RESULT_TOO_LARGE ? `Storage refused the outcome as too large: ${error instanceof Error ? error.message : ''}` : 'Storage refused the outcome: it contains a known secret.';
      await this.#appendForAttempt(open, (current) => (isOurs(current) ? this.#event(GraphEventTypes.NODE_FAILED, { nodeId: open.nodeId, position, code, message }, open.dispatchEventId) : null));
    }
  }

  #outcomeEvent(open: OpenAttempt, outcome: Exclude<AttemptOutcome, { kind: 'aborted' }>): NewEvent {
    const { nodeId, position } = open;
    switch (outcome.kind) {
      case 'completed':
        return this.#event(GraphEventTypes.NODE_COMPLETED, { nodeId, position, result: outcome.result }, open.dispatchEventId);
      case 'failed':
        return this.#event(GraphEventTypes.NODE_FAILED, { nodeId, position, code: outcome.code, message: outcome.message }, open.dispatchEventId);
      case 'paused':
        return this.#event(GraphEventTypes.NODE_PAUSED, { nodeId, position, reason: outcome.reason, request: outcome.request }, open.dispatchEventId);
    }
  }

  /**
   * Appends one event about an attempt at the known revision. On a conflict it folds what is
   * new and asks `build` again: null means someone else moved the attempt on, so nothing is
   * written. Returns whether the event was written.
   */
  async #appendForAttempt(open: OpenAttempt, build: (current: OpenAttempt) => NewEvent | null): Promise<boolean> {
    return this.#exclusive(async () => {
      for (;;) {
        const current = this.#folder.open.get(open.position);
        const event = current === undefined ? null : build(current);
        if (event === null) return false;
        try {
          await this.#appendAndFold([event]);
          return true;
        } catch (error) {
          if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
          await this.#readNew();
        }
      }
    });
  }

  #terminal(command: Exclude<GraphCommand, DispatchCommand>): GraphRunResult {
    switch (command.kind) {
      case 'complete':
        return { kind: 'complete', output: command.output };
      case 'fail':
        return { kind: 'fail', code: command.code, message: command.message };
      case 'pause': {
        const paused = [...this.#folder.open.values()].filter((attempt) => attempt.status === 'paused');
        const first = this.#nodeOrder.map((nodeId) => paused.find((attempt) => attempt.nodeId === nodeId)).find((attempt) => attempt !== undefined);
        return { kind: 'pause', reason: command.reason, position: first?.position ?? null, request: first?.pause?.request ?? null };
      }
    }
  }

  #event(type: string, payload: Json, causationId: string | null): NewEvent {
    const now = this.#clock();
    return {
      eventId: this.#newId(),
      type,
      version: 1,
      timestamp: (typeof now === 'number' ? new Date(now) : now).toISOString(),
      correlationId: this.runId,
      causationId,
      payload,
    };
  }

  /** Appends at the folded revision, then folds the written events without reading them back. */
  async #appendAndFold(events: readonly NewEvent[], batch?: readonly DispatchCommand[]): Promise<void> {
    const expected = this.#folder.revision;
    await this.#storage.append(this.runId, expected, events);
    if (batch) this.#folder.expectDispatchBatch(batch);
    events.forEach((event, index) => this.#folder.apply({ ...event, revision: expected + index + 1 }));
    this.#folder.endOfRead();
  }

  async #readNew(): Promise<void> {
    for await (const event of this.#storage.read(this.runId, { after: this.#folder.revision })) this.#folder.apply(event);
    this.#folder.endOfRead();
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#lock.then(work, work);
    this.#lock = result.catch(() => undefined);
    return result;
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new GraphExecutionError('ABORTED', 'The run was aborted; unfinished attempts stay unfinished and can be resumed.');
}
