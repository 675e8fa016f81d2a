import type { Json } from '@roundtable/core';
import { GraphExecutionError, isGraphExecutionError, nextStep, runView } from '@roundtable/graph';
import type { CompiledGraph, NextStep, OpenAttempt } from '@roundtable/graph';
import { assertStreamId, waitForAppend } from '@roundtable/storage';
import type { RunStorage } from '@roundtable/storage';
import type { Tracer } from '@opentelemetry/api';
import { answerProblem, readPauseHistory } from './answerPause.js';
import { AttemptRunner } from './attemptRunner.js';
import { CancelWatch } from './cancelWatch.js';
import type { AttemptStepOptions, GraphExecutor, GraphExecutorOptions, ResumeOptions, ServeOptions, StepOptions, StepReport } from './graphExecutor.js';
import { runResultOf } from './graphRunResult.js';
import type { GraphRunResult } from './graphRunResult.js';
import { resolveBindings } from './nodeBinding.js';
import type { ResolvedBinding } from './nodeBinding.js';
import { OutcomeRecorder } from './outcomeRecorder.js';
import type { OutcomeCaller } from './outcomeRecorder.js';
import { randomEventId } from './randomEventId.js';
import { recordedResumeValue } from './resumeValue.js';
import { runEnded } from './runEnded.js';
import { RunEvents } from './runEvents.js';
import { RunRecord, newStepLog } from './runRecord.js';
import type { StepLog } from './runRecord.js';
import { StepLoop, throwIfAborted } from './stepLoop.js';
import { schedulerTracer, traceWorkflow } from './tracing.js';

const RECONCILE_REASON = 'An attempt was in flight when its process stopped and its binding is not retrySafe; decide whether to run it again.';

/**
 * Opens a run: folds whatever the record already holds (refusing a different graph with
 * STORED_GRAPH_MISMATCH) and returns an executor that continues it. Nothing is written until
 * `run`, `resume` or a step is called.
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
  readonly #record: RunRecord<State>;
  readonly #events: RunEvents;
  readonly #recorder: OutcomeRecorder<State>;
  readonly #runner: AttemptRunner<State>;
  readonly #loop: StepLoop<State>;
  readonly #tracer: Tracer;
  /** A `run` or `resume` is in progress. */
  #busy = false;
  /** How many steps are in progress. */
  #steps = 0;

  constructor(options: GraphExecutorOptions<State>, bindings: ReadonlyMap<string, ResolvedBinding>) {
    this.runId = options.runId;
    this.#graph = options.graph;
    // Every revision the executor reads, writes and reports is a run revision (a fork's go on from its parent's, SPEC 21).
    this.#storage = runView(options.storage);
    this.#bindings = bindings;
    this.#tracer = schedulerTracer(options.tracer);
    this.#record = new RunRecord(options.runId, options.graph, this.#storage);
    this.#events = new RunEvents(options.runId, options.clock ?? (() => Date.now()), options.newId ?? randomEventId);
    this.#recorder = new OutcomeRecorder(this.#record, this.#events, options.graph, bindings);
    this.#runner = new AttemptRunner(this.#record, this.#events, this.#recorder, options.graph, bindings, this.#tracer);
    this.#loop = new StepLoop(options.graph, this.#record, this.#events, this.#recorder, this.#runner, bindings);
  }

  get revision(): number {
    return this.#record.revision;
  }

  catchUp(): Promise<void> {
    return this.#record.catchUp();
  }

  next(): NextStep {
    return nextStep(this.#graph, this.#record.folder);
  }

  /** Each call is one `invoke_workflow` span (SPEC 13). */
  run(signal?: AbortSignal): Promise<GraphRunResult> {
    return this.#traced({ operation: 'run' }, () => this.#session(signal, (caller) => this.#loop.drive(caller)));
  }

  resume(position: string, options: ResumeOptions = {}): Promise<GraphRunResult> {
    return this.#traced({ operation: 'resume', position }, () => this.#session(options.signal, (caller) => this.#resume(position, options, caller)));
  }

  /**
   * Passes of `run` (each its own span), with a wait for the next append between them while the
   * run is paused or waits for attempts elsewhere. The wait starts after the revision the pass
   * folded last, so an append that lands during a pass is never slept through.
   */
  async serve(options: ServeOptions = {}): Promise<GraphRunResult> {
    const poll = options.pollIntervalMs;
    // Refused before the first pass writes anything, not at its first wait.
    if (poll !== undefined && (typeof poll !== 'number' || !Number.isFinite(poll) || poll <= 0)) {
      throw new GraphExecutionError('PROTOCOL', `serve: pollIntervalMs must be a positive number, got ${String(poll)}.`);
    }
    this.#enter();
    try {
      const signal = options.signal ?? new AbortController().signal;
      for (;;) {
        let result: GraphRunResult;
        try {
          result = await this.#traced({ operation: 'serve' }, () => this.#pass(signal, (caller) => this.#loop.drive(caller)));
        } catch (error) {
          if (signal.aborted && isGraphExecutionError(error, 'ABORTED')) return await this.#standing();
          throw error;
        }
        if ((result.kind !== 'pause' && result.kind !== 'waiting') || signal.aborted) return result;
        await waitForAppend(this.#storage, this.runId, { after: this.#record.revision, signal, ...(poll === undefined ? {} : { pollIntervalMs: poll }) });
        if (signal.aborted) return await this.#standing();
      }
    } finally {
      this.#busy = false;
    }
  }

  start(options: StepOptions = {}): Promise<StepReport> {
    return this.#step(options.signal, async (caller) => {
      if (this.#record.revision === 0) await this.#record.start(this.#events.runStarted(this.#graph as CompiledGraph<unknown>), caller.log);
      return this.next();
    });
  }

  advance(options: StepOptions = {}): Promise<StepReport> {
    return this.#step(options.signal, (caller) => this.#loop.advance(caller));
  }

  runAttempt(position: string, options: AttemptStepOptions = {}): Promise<StepReport> {
    return this.#step(options.signal, async (caller) => {
      const answer = options.answer === undefined ? undefined : recordedResumeValue(options.answer.value);
      await this.#record.catchUp();
      const open = this.#record.folder.openAttempt(position);
      if (open?.status === 'paused') {
        if (answer !== undefined) {
          await this.#answer(position, answer, caller.log);
          await this.#runner.run(position, caller);
        }
      } else if (open !== undefined) await this.#recover(open, caller);
      return this.#loop.advance(caller);
    });
  }

  async #resume(position: string, options: ResumeOptions, caller: OutcomeCaller): Promise<GraphRunResult> {
    // The recorded (canonical) form; a value that is not JSON is INVALID_JSON_VALUE, before any write.
    const value = recordedResumeValue(options.value ?? null);
    await this.catchUp();
    const open = this.#record.folder.openAttempt(position);
    if (open?.status === 'paused' || options.value !== undefined) {
      // An answer (SPEC 20): written only while the position is still paused.
      await this.#answer(position, value, caller.log);
      await this.#runner.run(position, caller);
    } else if (open === undefined) {
      const unfinished = this.#record.folder.openAttempts().map((attempt) => attempt.position);
      throw new GraphExecutionError(
        'PROTOCOL',
        `Position ${JSON.stringify(position)} is not an unfinished attempt of run ${this.runId} (${unfinished.length === 0 ? 'it has none' : `unfinished: ${unfinished.join(', ')}`}).`,
        { details: { position, unfinished } },
      );
    } else await this.#recover(open, caller);
    return this.#loop.drive(caller);
  }

  /**
   * Runs an unfinished attempt that is not paused (SPEC 6): a ready one is started; a started
   * one (its process stopped) is re-run when its binding is `retrySafe` (`node-resumed`, then
   * attempt + 1), else recorded as the `reconcile-attempt` pause so a person decides.
   */
  async #recover(open: OpenAttempt, caller: OutcomeCaller): Promise<void> {
    if (open.status !== 'started') {
      await this.#runner.run(open.position, caller);
    } else if (this.#bindings.get(open.nodeId)!.retrySafe) {
      const resumed = await this.#record.appendForAttempt(open, () => this.#events.resumed(open, null), caller.log);
      if (resumed) await this.#runner.run(open.position, caller);
    } else {
      await this.#record.appendForAttempt(open, () => this.#events.paused(open, RECONCILE_REASON, { kind: 'reconcile-attempt' }), caller.log);
    }
  }

  /**
   * Appends the answer to the pause at `position` while it is still paused; of two racing
   * answers one is written and the other throws STALE_ANSWER having written nothing. A position
   * with no pause to answer is PROTOCOL (the record is read for its history only then).
   */
  async #answer(position: string, value: Json, log: StepLog): Promise<void> {
    const folder = this.#record.folder;
    if (folder.cancelled !== null) throw runEnded(this.runId, folder, 'answer');
    const open = folder.openAttempt(position);
    if (open?.status === 'paused') {
      const answered = await this.#record.appendForAttempt(open, () => this.#events.resumed(open, value), log);
      if (answered) return;
    }
    if (folder.cancelled !== null) throw runEnded(this.runId, folder, 'answer');
    const history = await readPauseHistory(this.#storage, this.runId, position);
    throw answerProblem(folder.openAttempt(position), folder.hasDispatched(position), history, this.runId, position, undefined)!;
  }

  /** One `invoke_workflow` span around a `run` or `resume` call, or a pass of `serve`. */
  #traced(call: { operation: 'run' | 'resume' | 'serve'; position?: string }, body: () => Promise<GraphRunResult>): Promise<GraphRunResult> {
    const info = { definitionId: this.#graph.definition.value.id, runId: this.runId, ...call };
    return traceWorkflow(this.#tracer, info, () => this.#record.revision, body);
  }

  /** One `run`, `resume` or `serve` at a time per executor, and none while steps run; an aborted signal stops before any write. */
  async #session(signal: AbortSignal | undefined, body: (caller: OutcomeCaller) => Promise<GraphRunResult>): Promise<GraphRunResult> {
    this.#enter();
    try {
      return await this.#pass(signal ?? new AbortController().signal, body);
    } finally {
      this.#busy = false;
    }
  }

  #enter(): void {
    if (this.#busy || this.#steps > 0) throw new GraphExecutionError('PROTOCOL', 'run, resume or serve is already in progress on this executor.');
    this.#busy = true;
  }

  /** One pass of a session: its attempts watched for a cancel. */
  async #pass(signal: AbortSignal, body: (caller: OutcomeCaller) => Promise<GraphRunResult>): Promise<GraphRunResult> {
    const watch = this.#cancelWatch(signal);
    try {
      throwIfAborted(signal);
      // The loop checks the signal before each batch, so a run that finished is not reported aborted.
      return await body({ log: newStepLog(), signal, startsAttempts: true, watch: watch.watch });
    } finally {
      watch.stop();
      // A batch started in a session that failed is in flight: the next call reports it waiting.
      this.#recorder.takeStartedBatch();
    }
  }

  /** What `run` would report now, from what the record holds, writing nothing. */
  async #standing(): Promise<GraphRunResult> {
    await this.#record.catchUp();
    return runResultOf(this.next());
  }

  /** A step: any number at once, but not during `run` or `resume`; an aborted signal stops before any write. */
  async #step(signal: AbortSignal | undefined, body: (caller: OutcomeCaller) => Promise<NextStep>): Promise<StepReport> {
    if (this.#busy) throw new GraphExecutionError('PROTOCOL', 'A step cannot be taken while run, resume or serve is in progress on this executor.');
    this.#steps++;
    const stepSignal = signal ?? new AbortController().signal;
    const watch = this.#cancelWatch(stepSignal);
    try {
      throwIfAborted(stepSignal);
      const log = newStepLog();
      const next = await body({ log, signal: stepSignal, startsAttempts: false, watch: watch.watch });
      return { written: log.written, superseded: log.superseded, next };
    } finally {
      watch.stop();
      this.#steps--;
    }
  }

  /** A call's watch for a cancel (SPEC 20): change hints and append conflicts fold what is new; a cancel aborts the call's attempts. */
  #cancelWatch(signal: AbortSignal): { readonly watch: CancelWatch; readonly stop: () => void } {
    const record = this.#record;
    const watch = new CancelWatch(this.#storage, this.runId, signal, () => record.foldIfMoved(), () => record.folder.cancelled !== null);
    const unlisten = record.onConflict(() => watch.poke());
    return {
      watch,
      stop: () => {
        unlisten();
        watch.stop();
      },
    };
  }
}
