import { setTimeout as sleep } from 'node:timers/promises';
import { freezeJsonFields } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { GraphEventTypes, GraphExecutionError, RunRecordFolder, foldStream, graphEventProblem, runStartedPayload } from '@roundtable/graph';
import type { CompiledGraph, DispatchCommand, GraphCommand, OpenAttempt } from '@roundtable/graph';
import { assertNewEvent, assertStreamId, checkedNewEvent, isStorageError } from '@roundtable/storage';
import type { NewEvent, RunStorage, StorageErrorCode } from '@roundtable/storage';
import type { Tracer } from '@opentelemetry/api';
import { AttemptFailureCodes, runAttempt } from './attemptOutcome.js';
import type { AttemptOutcome } from './attemptOutcome.js';
import type { GraphRunFailure, GraphRunResult } from './graphRunResult.js';
import { resolveBindings } from './nodeBinding.js';
import type { NodeBinding, NodeFailure, ResolvedBinding } from './nodeBinding.js';
import { answerProblem, readPauseHistory } from './answerPause.js';
import { CancelWatch } from './cancelWatch.js';
import { runEnded } from './runEnded.js';
import { randomEventId } from './randomEventId.js';
import { recordedResumeValue } from './resumeValue.js';
import { recordableText, thrownMessage } from './safeText.js';
import { attemptSpanOutcome, schedulerTracer, startAttemptSpan, traceWorkflow } from './tracing.js';

export interface GraphExecutorOptions<State> {
  /** The run's id, which is also its stream id. */
  readonly runId: string;
  readonly graph: CompiledGraph<State>;
  readonly storage: RunStorage;
  /** A binding for every node of the graph (own properties only), and none for anything else. */
  readonly nodes: Readonly<Record<string, NodeBinding>>;
  /** Timestamps of written events (default: the system clock). */
  readonly clock?: () => Date | number;
  /** Ids of written events (default: random UUIDs). */
  readonly newId?: () => string;
  /** OpenTelemetry tracer for the run's spans (SPEC 13); default: the global provider's. */
  readonly tracer?: Tracer;
}

export interface ResumeOptions {
  /**
   * Recorded in `graph:node-resumed` and given to the attempt as `ctx.resume`. Given, the call
   * is an answer to the position's pause (`answerPause`, then `run`): STALE_ANSWER when that
   * pause was answered already, PROTOCOL when there is none. Without it, a paused position is
   * answered with null and an unfinished attempt is recovered (SPEC 6).
   */
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
  const bindings = resolveBindings(options.graph as CompiledGraph<unknown>, options.nodes);
  const executor = new StoredGraphExecutor(options, bindings);
  await executor.catchUp();
  return executor;
}

class StoredGraphExecutor<State> implements GraphExecutor {
  readonly runId: string;
  readonly #graph: CompiledGraph<State>;
  readonly #storage: RunStorage;
  readonly #bindings: ReadonlyMap<string, ResolvedBinding>;
  readonly #folder: RunRecordFolder<State>;
  readonly #clock: () => Date | number;
  readonly #newId: () => string;
  readonly #nodeOrder: readonly string[];
  readonly #tracer: Tracer;
  /** Serialises folding and appending: attempts of one batch finish concurrently. */
  #lock: Promise<unknown> = Promise.resolve();
  #busy = false;
  /** Outcomes waiting for the next append (group commit, SPEC 11.1). */
  #pending: PendingOutcome[] = [];
  /** A dispatch batch appended, with its attempts started, in the same append as an outcome. */
  #startedBatch: readonly DispatchCommand[] | null = null;
  /** This session's watch for a cancel (SPEC 20), which aborts the attempts in flight. */
  #cancelWatch: CancelWatch | null = null;
  /** The last timestamp written and its clock reading: events of one millisecond share the text. */
  #lastTime = Number.NaN;
  #lastTimestamp = '';

  constructor(options: GraphExecutorOptions<State>, bindings: ReadonlyMap<string, ResolvedBinding>) {
    this.runId = options.runId;
    this.#graph = options.graph;
    this.#storage = options.storage;
    this.#bindings = bindings;
    this.#folder = new RunRecordFolder(options.graph);
    this.#clock = options.clock ?? (() => Date.now());
    this.#newId = options.newId ?? randomEventId;
    this.#nodeOrder = options.graph.definition.value.nodes.map((node) => node.id);
    this.#tracer = schedulerTracer(options.tracer);
  }

  get revision(): number {
    return this.#folder.revision;
  }

  /** Folds only what is new since the last fold. */
  async catchUp(): Promise<void> {
    await this.#exclusive(() => this.#readNew());
  }

  /** Each call is one `invoke_workflow` span (SPEC 13). */
  run(signal?: AbortSignal): Promise<GraphRunResult> {
    return this.#traced({ operation: 'run' }, () => this.#run(signal));
  }

  resume(position: string, options: ResumeOptions = {}): Promise<GraphRunResult> {
    return this.#traced({ operation: 'resume', position }, () => this.#resume(position, options));
  }

  #run(signal?: AbortSignal): Promise<GraphRunResult> {
    return this.#session(signal, async (runSignal) => {
      if (this.#folder.revision === 0) await this.#start();
      return this.#drive(runSignal);
    });
  }

  #resume(position: string, options: ResumeOptions): Promise<GraphRunResult> {
    return this.#session(options.signal, async (runSignal) => {
      // The recorded (canonical) form; a value that is not JSON is INVALID_JSON_VALUE, before any write.
      const value = recordedResumeValue(options.value ?? null);
      await this.catchUp();
      const open = this.#folder.openAttempt(position);
      if (open?.status === 'paused' || options.value !== undefined) {
        // An answer (SPEC 20): written only while the position is still paused.
        await this.#answer(position, value);
        await this.#execute(position, runSignal);
      } else if (open === undefined) {
        const unfinished = this.#folder.openAttempts().map((attempt) => attempt.position);
        throw new GraphExecutionError(
          'PROTOCOL',
          `Position ${JSON.stringify(position)} is not an unfinished attempt of run ${this.runId} (${unfinished.length === 0 ? 'it has none' : `unfinished: ${unfinished.join(', ')}`}).`,
          { details: { position, unfinished } },
        );
      } else if (open.status === 'started' && this.#bindings.get(open.nodeId)!.retrySafe) {
        const resumed = await this.#appendForAttempt(open, () => this.#event(GraphEventTypes.NODE_RESUMED, { nodeId: open.nodeId, position, value }, open.dispatchEventId));
        if (resumed) await this.#execute(position, runSignal);
      } else if (open.status === 'started') {
        await this.#appendForAttempt(open, () =>
          this.#event(GraphEventTypes.NODE_PAUSED, { nodeId: open.nodeId, position, reason: RECONCILE_REASON, request: { kind: 'reconcile-attempt' } }, open.dispatchEventId),
        );
      } else {
        await this.#execute(position, runSignal);
      }
      return this.#drive(runSignal);
    });
  }

  /**
   * Appends the answer to the pause at `position` while it is still paused; of two racing
   * answers one is written and the other throws STALE_ANSWER having written nothing. A position
   * with no pause to answer is PROTOCOL (the record is read for its history only then).
   */
  async #answer(position: string, value: Json): Promise<void> {
    if (this.#folder.cancelled !== null) throw runEnded(this.runId, this.#folder, 'answer');
    const open = this.#folder.openAttempt(position);
    if (open?.status === 'paused') {
      const answered = await this.#appendForAttempt(open, () => this.#event(GraphEventTypes.NODE_RESUMED, { nodeId: open.nodeId, position, value }, open.dispatchEventId));
      if (answered) return;
    }
    if (this.#folder.cancelled !== null) throw runEnded(this.runId, this.#folder, 'answer');
    const history = await readPauseHistory(this.#storage, this.runId, position);
    throw answerProblem(this.#folder.openAttempt(position), this.#folder.hasDispatched(position), history, this.runId, position, undefined)!;
  }

  /** One `invoke_workflow` span around a `run` or `resume` call. */
  #traced(call: { operation: 'run' | 'resume'; position?: string }, body: () => Promise<GraphRunResult>): Promise<GraphRunResult> {
    const info = { definitionId: this.#graph.definition.value.id, runId: this.runId, ...call };
    return traceWorkflow(this.#tracer, info, () => this.#folder.revision, body);
  }

  /** One `run` or `resume` at a time per executor; an aborted signal stops before any write. */
  async #session(signal: AbortSignal | undefined, body: (signal: AbortSignal) => Promise<GraphRunResult>): Promise<GraphRunResult> {
    if (this.#busy) throw new GraphExecutionError('PROTOCOL', 'run or resume is already in progress on this executor.');
    this.#busy = true;
    const runSignal = signal ?? new AbortController().signal;
    const watch = new CancelWatch(this.#storage, this.runId, runSignal, () => this.#revisionIfNew(), () => this.#folder.cancelled !== null);
    this.#cancelWatch = watch;
    try {
      throwIfAborted(runSignal);
      // The loop checks the signal before each batch, so a run that finished is not reported aborted.
      return await body(runSignal);
    } finally {
      watch.stop();
      this.#cancelWatch = null;
      // A batch started in a session that failed is in flight: the next call reports it waiting.
      this.#startedBatch = null;
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
      // The batch the last outcome's append dispatched and started (SPEC 11.1): run it now.
      const started = this.#startedBatch;
      this.#startedBatch = null;
      if (started !== null) {
        await this.#executeBatch(started, signal);
        continue;
      }
      throwIfAborted(signal);
      const cancel = this.#folder.cancelled;
      if (cancel !== null) {
        // Cancelled (SPEC 20): nothing starts; the result waits for the attempts in flight.
        const inFlight = this.#folder.startedPositions();
        if (inFlight.length === 0) return { kind: 'cancelled', reason: cancel.reason, revision: cancel.revision };
        if (await this.#foldedSomethingNew()) continue;
        return { kind: 'waiting', positions: inFlight };
      }
      // Ready work (SPEC 20): an answered or retried attempt, or a dispatched position, that no
      // attempt has started since. Any executor starts it; the attempt-start append fences racers.
      const ready = this.#folder.openAttempts().filter((attempt) => attempt.status === 'dispatched' || attempt.status === 'resumed');
      if (ready.length > 0) {
        if (ready.length === 1) await this.#execute(ready[0]!.position, signal);
        else {
          // Every ready attempt gets its try before an error of one is thrown.
          const settled = await Promise.allSettled(ready.map((attempt) => this.#execute(attempt.position, signal)));
          const failed = settled.find((outcome) => outcome.status === 'rejected');
          if (failed !== undefined) throw failed.reason;
        }
        continue;
      }
      if (this.#folder.unfinishedPositions().length > 0) {
        // Another executor may have finished them: report waiting only for what is still open.
        if (await this.#foldedSomethingNew()) continue;
        return { kind: 'waiting', positions: this.#folder.unfinishedPositions() };
      }
      const commands = this.#graph.decide(this.#folder.state);
      const first = commands[0];
      if (first === undefined) {
        throw new GraphExecutionError('EMPTY_DECISION', `decide returned no command for run ${this.runId} and no attempt is in flight.`);
      }
      if (first.kind !== 'dispatch') {
        if (await this.#foldedSomethingNew()) continue;
        return this.#terminal(first);
      }
      const batch = commands as DispatchCommand[];
      const dispatched = await this.#dispatch(batch);
      if (!dispatched) continue;
      await this.#executeBatch(batch, signal);
    }
  }

  /** Runs the attempts of a batch whose starts this executor appended, concurrently. */
  async #executeBatch(batch: readonly DispatchCommand[], signal: AbortSignal): Promise<void> {
    if (batch.length === 1) await this.#execute(batch[0]!.position, signal, true);
    else await Promise.all(batch.map((command) => this.#execute(command.position, signal, true)));
  }

  /** Reads what others appended since the last fold; true when there was something. */
  async #foldedSomethingNew(): Promise<boolean> {
    const before = this.#folder.revision;
    await this.catchUp();
    return this.#folder.revision !== before;
  }

  /**
   * Appends one batch of dispatches and the start of each of its attempts in one append (no
   * member code runs between them); false when another writer got there first.
   */
  async #dispatch(batch: readonly DispatchCommand[]): Promise<boolean> {
    for (const command of batch) {
      if (this.#folder.hasDispatched(command.position)) {
        throw new GraphExecutionError('DUPLICATE_POSITION', `decide dispatched position ${command.position} a second time.`, {
          details: { position: command.position },
        });
      }
    }
    const events = this.#dispatchEvents(batch);
    return this.#exclusive(async () => {
      try {
        await this.#appendAndFold(events, { commands: batch, at: 0 });
        return true;
      } catch (error) {
        if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
        await this.#readNew();
        return false;
      }
    });
  }

  /** `before`, then `node-dispatched` for each command of a batch, then `node-attempt-started` for each. */
  #dispatchEvents(batch: readonly DispatchCommand[], before: readonly NewEvent[] = []): NewEvent[] {
    const events = before.slice();
    const count = batch.length;
    for (const command of batch) events.push(this.#event(GraphEventTypes.NODE_DISPATCHED, frozenPayload(DISPATCHED_KEYS, [command.nodeId, command.position]), null));
    for (let index = 0; index < count; index++) {
      const command = batch[index]!;
      const payload = frozenPayload(STARTED_KEYS, [1, command.nodeId, command.position, this.#bindings.get(command.nodeId)!.retrySafe]);
      events.push(this.#event(GraphEventTypes.NODE_ATTEMPT_STARTED, payload, events[before.length + index]!.eventId));
    }
    return events;
  }

  /**
   * Runs the next attempt of an open position and records its outcome; while the binding's
   * `retry` allows, a failure is recorded as `node-retried` and the next attempt follows.
   */
  async #execute(position: string, signal: AbortSignal, alreadyStarted = false): Promise<void> {
    for (let first = true; ; first = false) {
      let open = this.#folder.openAttempt(position);
      if (open === undefined) return;
      const binding = this.#bindings.get(open.nodeId)!;
      let attempt: number;
      if (first && alreadyStarted) {
        // This executor appended the attempt's start together with its dispatch.
        if (open.status !== 'started') return;
        attempt = open.attempt;
      } else {
        if (open.status !== 'dispatched' && open.status !== 'resumed') return;
        const before = open;
        attempt = before.attempt + 1;
        const started = await this.#appendForAttempt(before, () =>
          this.#event(GraphEventTypes.NODE_ATTEMPT_STARTED, frozenPayload(STARTED_KEYS, [attempt, before.nodeId, position, binding.retrySafe]), before.dispatchEventId),
        );
        if (!started) return;
        open = before;
      }
      // The member runs inside its attempt's span, so the spans it starts nest under it.
      const context = {
        input: open.input,
        nodeId: open.nodeId,
        position,
        resume: open.resumeValue,
        attempt,
        pause: open.answeredPause,
        previousFailure: open.previousFailure,
      };
      const span = startAttemptSpan(this.#tracer, { memberId: open.nodeId, runId: this.runId, position, attempt });
      let written: NewEvent | null = null;
      const watch = this.#cancelWatch;
      try {
        const attemptSignal = watch === null ? signal : watch.attemptSignal();
        const ran = await span.within(() => runAttempt(this.#graph as CompiledGraph<unknown>, binding, context, attemptSignal));
        if (signal.aborted) return;
        // An attempt stopped by a cancel, or failing after it, is recorded CANCELLED; one that completed anyway is kept.
        const outcome = watch?.cancelled === true && ran.kind !== 'completed' && ran.kind !== 'paused' ? this.#cancelledOutcome() : ran;
        if (outcome.kind === 'aborted') return;
        written = await this.#recordOutcome(open, attempt, binding, outcome, signal);
      } finally {
        span.end(attemptSpanOutcome(written));
      }
      if (written?.type !== GraphEventTypes.NODE_RETRIED) return;
      if (binding.retry.backoffMs > 0) {
        try {
          await sleep(binding.retry.backoffMs, undefined, { signal });
        } catch {
          return; // aborted: the position stays retried and not restarted, which `resume` continues
        }
      }
    }
  }

  /**
   * Records exactly one outcome of a started attempt. Every event is checked before it is
   * written by the same shape check the fold applies and by the storage's envelope check, so
   * the record never holds an outcome that a later fold refuses. Outcomes that arrive while an
   * append is in flight are written together by the next one (group commit). Returns the event
   * written, or null when another executor moved the attempt on (a `node-retried` means: start
   * the next attempt).
   */
  #recordOutcome(open: OpenAttempt, attempt: number, binding: ResolvedBinding, outcome: Exclude<AttemptOutcome, { kind: 'aborted' }>, signal: AbortSignal): Promise<NewEvent | null> {
    let event = this.#outcomeEvent(open, attempt, binding, outcome);
    const problem = unrecordable(event);
    if (problem !== null) {
      event = this.#failureEvent(open, attempt, binding, {
        code: outcome.kind === 'completed' ? AttemptFailureCodes.RESULT_INVALID : AttemptFailureCodes.EFFECT_FAILED,
        message: `The attempt's outcome cannot be recorded: ${problem}`,
      });
    }
    return new Promise<NewEvent | null>((resolve, reject) => {
      this.#pending.push({ open, attempt, binding, event, resolve, reject, settled: false });
      void this.#exclusive(() => this.#flushOutcomes(signal));
    });
  }

  /**
   * Writes every outcome waiting, in arrival order, in one append; when they leave no attempt
   * in flight and `decide` then dispatches, the same append carries that batch and the start of
   * each of its attempts (SPEC 11.1), which `#drive` runs next. If the storage refuses the
   * grouped append (a conflict, or content it will not hold), each outcome is written alone
   * with the usual conflict and refusal handling, and nothing else.
   */
  async #flushOutcomes(signal: AbortSignal): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length === 0) return;
    try {
      const ours: PendingOutcome[] = [];
      const outcomes: NewEvent[] = [];
      for (const entry of pending) {
        const current = this.#folder.openAttempt(entry.open.position);
        if (current !== undefined && current.status === 'started' && current.attempt === entry.attempt) {
          ours.push(entry);
          outcomes.push(entry.event);
        } else settle(entry, null);
      }
      if (ours.length === 0) return;
      const next = signal.aborted ? null : this.#batchAfter(outcomes);
      const events = next === null ? outcomes : this.#dispatchEvents(next, outcomes);
      try {
        await this.#appendAndFold(events, next === null ? undefined : { commands: next, at: outcomes.length });
        this.#startedBatch = next;
        for (const entry of ours) settle(entry, entry.event);
        return;
      } catch (error) {
        if (!isStorageError(error, 'REVISION_CONFLICT') && refusedOutcome(error) === null) throw error;
        this.#folder.stateAfter([]); // drops the look-ahead: the record did not take these events
      }
      for (const entry of ours) settle(entry, await this.#recordAlone(entry));
    } catch (error) {
      for (const entry of pending) if (!entry.settled) entry.reject(error);
    }
  }

  /**
   * The dispatch batch `decide` returns once `outcomes` are folded, or null when they leave an
   * attempt in flight, `decide` ends the run, or the batch is one `#drive` refuses.
   */
  #batchAfter(outcomes: readonly NewEvent[]): DispatchCommand[] | null {
    if (this.#folder.cancelled !== null) return null;
    for (const attempt of this.#folder.openAttempts()) {
      const type = finishedAs(outcomes, attempt.position);
      const stillOpen = type === undefined ? attempt.status !== 'paused' : type === GraphEventTypes.NODE_RETRIED;
      if (stillOpen) return null;
    }
    const commands = this.#graph.decide(this.#folder.stateAfter(outcomes));
    if (commands.length === 0 || commands.some((command) => command.kind !== 'dispatch')) return null;
    const batch = commands as DispatchCommand[];
    const positions = new Set(batch.map((command) => command.position));
    if (positions.size !== batch.length || batch.some((command) => this.#folder.hasDispatched(command.position))) return null;
    return batch;
  }

  /** One outcome in its own append; a content refusal records the failure instead. */
  async #recordAlone(entry: PendingOutcome): Promise<NewEvent | null> {
    const { open, attempt, binding, event } = entry;
    const ours = startedAttempt(attempt);
    try {
      const written = await this.#appendWithRefold(open.position, ours, () => event);
      return written ? event : null;
    } catch (error) {
      const failure = refusedOutcome(error);
      if (failure === null) throw error;
      const fallback = this.#failureEvent(open, attempt, binding, failure);
      const written = await this.#appendWithRefold(open.position, ours, () => fallback);
      return written ? fallback : null;
    }
  }

  #outcomeEvent(open: OpenAttempt, attempt: number, binding: ResolvedBinding, outcome: Exclude<AttemptOutcome, { kind: 'aborted' }>): NewEvent {
    const { nodeId, position } = open;
    switch (outcome.kind) {
      case 'completed':
        return this.#event(GraphEventTypes.NODE_COMPLETED, frozenPayload(COMPLETED_KEYS, [nodeId, position, outcome.result]), open.dispatchEventId);
      case 'failed':
        return this.#failureEvent(open, attempt, binding, outcome);
      case 'paused':
        return this.#event(GraphEventTypes.NODE_PAUSED, frozenPayload(PAUSED_KEYS, [nodeId, position, outcome.reason, outcome.request]), open.dispatchEventId);
    }
  }

  /** The failure of an attempt a cancel stopped (SPEC 20). */
  #cancelledOutcome(): { kind: 'failed'; code: string; message: string } {
    const reason = this.#folder.cancelled?.reason ?? '';
    return { kind: 'failed', code: AttemptFailureCodes.CANCELLED, message: `The run was cancelled: ${reason}` };
  }

  /** `node-retried` while the binding's retry allows another attempt, else `node-failed`. */
  #failureEvent(open: OpenAttempt, attempt: number, binding: ResolvedBinding, failure: NodeFailure): NewEvent {
    const { nodeId, position } = open;
    const { code } = failure;
    const message = recordableText(failure.message);
    // maxAttempts counts failed attempts: a pause or a crash re-run does not use one up; a
    // cancelled run starts no attempt, so its failures are final.
    const retry = this.#folder.cancelled === null && binding.retry.codes.has(code) && open.retries + 1 < binding.retry.maxAttempts;
    return retry
      ? this.#event(GraphEventTypes.NODE_RETRIED, frozenPayload(RETRIED_KEYS, [attempt, code, message, nodeId, position]), open.dispatchEventId)
      : this.#event(GraphEventTypes.NODE_FAILED, frozenPayload(FAILED_KEYS, [code, message, nodeId, position]), open.dispatchEventId);
  }

  /**
   * Appends one event about an attempt, made by `build`, while the attempt is still as `open`
   * found it (the same status and attempt number). Returns whether the event was written.
   */
  #appendForAttempt(open: OpenAttempt, build: () => NewEvent): Promise<boolean> {
    return this.#exclusive(() => this.#appendWithRefold(open.position, open, build));
  }

  /**
   * The one append-and-refold loop (for a caller that already holds the lock): while the
   * attempt at `position` is still `expected` ("is this attempt still ours?"), appends the event
   * `build` makes at the known revision; on REVISION_CONFLICT folds what is new and checks
   * again. Returns false, writing nothing, once someone else has moved the attempt on.
   */
  async #appendWithRefold(position: string, expected: AttemptMark, build: () => NewEvent): Promise<boolean> {
    for (;;) {
      if (!isStill(this.#folder.openAttempt(position), expected)) return false;
      const event = build();
      // After a cancel the record takes only outcomes of started attempts: no start, no answer.
      if (this.#folder.cancelled !== null && !OUTCOME_TYPES.has(event.type)) return false;
      try {
        await this.#appendAndFold([event]);
        return true;
      } catch (error) {
        if (!isStorageError(error, 'REVISION_CONFLICT')) throw error;
        await this.#readNew();
      }
    }
  }

  #terminal(command: Exclude<GraphCommand, DispatchCommand>): GraphRunResult {
    switch (command.kind) {
      case 'complete':
        return { kind: 'complete', output: command.output };
      case 'fail':
        return { kind: 'fail', code: command.code, message: command.message, failures: this.#failures() };
      case 'pause': {
        const paused = this.#folder.openAttempts().filter((attempt) => attempt.status === 'paused');
        const first = this.#nodeOrder.map((nodeId) => paused.find((attempt) => attempt.nodeId === nodeId)).find((attempt) => attempt !== undefined);
        return { kind: 'pause', reason: command.reason, position: first?.position ?? null, request: first?.pause?.request ?? null };
      }
    }
  }

  /** Every recorded failure, in node declaration order (record order within a node). */
  #failures(): GraphRunFailure[] {
    const failures = this.#folder.failures;
    return this.#nodeOrder.flatMap((nodeId) =>
      failures.filter((failure) => failure.nodeId === nodeId).map(({ position, code, message }) => ({ memberId: nodeId, position, code, message })),
    );
  }

  /**
   * A new event, frozen, built by the storage's `checkedNewEvent`: its envelope (fields, keys,
   * data properties) is checked once, from the values, and neither the check an outcome gets
   * before it is written (`assertNewEvent` in `unrecordable`) nor the storage's preflight
   * reflects on it again; both still check its payload. An id from `newId` that is not an
   * identifier leaves the event unchecked, refused by those checks as before.
   */
  #event(type: string, payload: Json, causationId: string | null): NewEvent {
    return checkedNewEvent(this.#newId(), type, 1, this.#timestamp(), this.runId, causationId, payload);
  }

  /** The clock's reading as `YYYY-MM-DDTHH:MM:SS.mmmZ` (an invalid date throws RangeError, as before). */
  #timestamp(): string {
    const now = this.#clock();
    const time = typeof now === 'number' ? now : now.getTime();
    if (time !== this.#lastTime) {
      this.#lastTimestamp = new Date(time).toISOString();
      this.#lastTime = time;
    }
    return this.#lastTimestamp;
  }

  /**
   * Appends at the folded revision, then folds the written events without reading them back;
   * `batch` is the dispatch batch `decide` returned that starts at event index `at`.
   */
  async #appendAndFold(events: readonly NewEvent[], batch?: { readonly commands: readonly DispatchCommand[]; readonly at: number }): Promise<void> {
    const expected = this.#folder.revision;
    try {
      await this.#storage.append(this.runId, expected, events);
    } catch (error) {
      // Someone else appended: it may be a cancel, which the attempts in flight must hear of.
      if (isStorageError(error, 'REVISION_CONFLICT')) this.#cancelWatch?.poke();
      throw error;
    }
    const folder = this.#folder;
    for (let index = 0; index < events.length; index++) {
      const event = events[index]!;
      if (batch !== undefined && index === batch.at) folder.expectDispatchBatch(batch.commands);
      folder.apply({ revision: expected + index + 1, eventId: event.eventId, type: event.type, version: event.version, payload: event.payload });
    }
    folder.endOfRead();
  }

  async #readNew(): Promise<void> {
    await foldStream(this.#storage, this.runId, { folder: this.#folder });
  }

  /** Folds what others appended when the head moved past the folded revision (for the cancel watch). */
  async #revisionIfNew(): Promise<void> {
    if ((await this.#storage.head(this.runId)) > this.#folder.revision) await this.catchUp();
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#lock.then(work, work);
    this.#lock = result.catch(() => undefined);
    return result;
  }
}

/** An outcome waiting for the next append. */
interface PendingOutcome {
  readonly open: OpenAttempt;
  readonly attempt: number;
  readonly binding: ResolvedBinding;
  readonly event: NewEvent;
  readonly resolve: (written: NewEvent | null) => void;
  readonly reject: (error: unknown) => void;
  /** Set once `resolve` was called (a failure of the flush rejects only the others). */
  settled: boolean;
}

/** Resolves a waiting outcome with the event written for it (null: none). */
function settle(entry: PendingOutcome, written: NewEvent | null): void {
  entry.settled = true;
  entry.resolve(written);
}

/** Where an attempt stood when this executor decided to write about it. */
interface AttemptMark {
  readonly status: OpenAttempt['status'];
  readonly attempt: number;
}

/** The mark of the started attempt `attempt`, which an outcome may end. */
function startedAttempt(attempt: number): AttemptMark {
  return { status: 'started', attempt };
}

/** The type of the last of `outcomes` about `position`, or undefined when none is. */
function finishedAs(outcomes: readonly NewEvent[], position: string): string | undefined {
  for (let index = outcomes.length - 1; index >= 0; index--) {
    const outcome = outcomes[index]!;
    if ((outcome.payload as { position: string }).position === position) return outcome.type;
  }
  return undefined;
}

/** "Is this attempt still ours?": whether the attempt is still where `expected` found it. */
function isStill(current: OpenAttempt | undefined, expected: AttemptMark): boolean {
  return current !== undefined && current.status === expected.status && current.attempt === expected.attempt;
}

/** The events a cancelled run still takes (the fold's rule, SPEC 20): outcomes of attempts already started. */
const OUTCOME_TYPES: ReadonlySet<string> = new Set([GraphEventTypes.NODE_COMPLETED, GraphEventTypes.NODE_FAILED, GraphEventTypes.NODE_PAUSED, GraphEventTypes.NODE_RETRIED]);

/** The fields of the payloads the executor writes most, in canonical order. */
const DISPATCHED_KEYS = Object.freeze(['nodeId', 'position']);
const STARTED_KEYS = Object.freeze(['attempt', 'nodeId', 'position', 'retrySafe']);
const COMPLETED_KEYS = Object.freeze(['nodeId', 'position', 'result']);
const PAUSED_KEYS = Object.freeze(['nodeId', 'position', 'reason', 'request']);
const RETRIED_KEYS = Object.freeze(['attempt', 'code', 'message', 'nodeId', 'position']);
const FAILED_KEYS = Object.freeze(['code', 'message', 'nodeId', 'position']);

/**
 * A payload checked, canonicalised, measured and frozen from its fields (`freezeJsonFields`: no
 * object of ours to reflect on, and a result frozen before is shared, not walked): the check
 * before writing, the storage's preflight and the fold then reuse that work instead of walking
 * the payload again. Payloads are JSON by construction (checked results, recordable text,
 * canonical requests, ids from the graph).
 */
function frozenPayload(keys: readonly string[], values: readonly Json[]): Json {
  return freezeJsonFields(keys, values).value;
}

/** Why an event would be refused by the fold's shape check or the storage's envelope check, or null. */
function unrecordable(event: NewEvent): string | null {
  const problem = graphEventProblem(event);
  if (problem !== null) return problem;
  try {
    assertNewEvent(event);
    return null;
  } catch (error) {
    return thrownMessage(error);
  }
}

/**
 * How a storage refusal of an outcome's content is recorded instead: the attempt's failure code
 * and the message (given the storage's own message). Other storage errors are not about the
 * outcome and are thrown.
 */
const REFUSED_OUTCOMES: Readonly<Partial<Record<StorageErrorCode, { readonly code: string; readonly message: (storageMessage: string) => string }>>> = {
  STORAGE_LIMIT_EXCEEDED: { code: AttemptFailureCodes.RESULT_TOO_LARGE, message: (text) => `Storage refused the outcome as too large: ${text}` },
  // Never quote the storage's message: the secret must not reach the record.
  KNOWN_SECRET: { code: AttemptFailureCodes.KNOWN_SECRET, message: () => 'Storage refused the outcome: it contains a known secret.' },
  INVALID_STORED_VALUE: { code: AttemptFailureCodes.EFFECT_FAILED, message: (text) => `Storage refused the outcome: ${text}` },
};

/** The failure to record when the storage refused an outcome for its content, or null for other errors. */
function refusedOutcome(error: unknown): NodeFailure | null {
  if (!isStorageError(error)) return null;
  const rule = REFUSED_OUTCOMES[error.code];
  return rule === undefined ? null : { code: rule.code, message: rule.message(thrownMessage(error)) };
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new GraphExecutionError('ABORTED', 'The run was aborted; unfinished attempts stay unfinished and can be resumed.');
}
