import type { Json } from '@roundtable/core';
import type { CompiledGraph, NextStep } from '@roundtable/graph';
import type { NewEvent, RunStorage } from '@roundtable/storage';
import type { Tracer } from '@opentelemetry/api';
import type { GraphRunResult } from './graphRunResult.js';
import type { NodeBinding } from './nodeBinding.js';

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

export interface ServeOptions {
  /** Stops serving: `serve` then resolves with the result `run` would report at that moment. */
  readonly signal?: AbortSignal;
  /** How often the record's head is polled between passes when the storage gives no change hint (default 250 ms). */
  readonly pollIntervalMs?: number;
}

export interface StepOptions {
  readonly signal?: AbortSignal;
}

export interface AttemptStepOptions extends StepOptions {
  /**
   * When the position is paused, the answer to write first (as `answerPause` does: STALE_ANSWER
   * when another answer won, writing nothing), then the position is run. Without it a paused
   * position stays paused; for a position that is not paused it is not used.
   */
  readonly answer?: { readonly value: Json };
}

/** What one step wrote and what is next in the run after it. */
export interface StepReport {
  /** Every event the step appended, in record order. */
  readonly written: readonly NewEvent[];
  /** True when an outcome of the step's attempt was not written because another writer had moved the attempt on first. */
  readonly superseded: boolean;
  /** What is next in the run, from the record as the step left it. */
  readonly next: NextStep;
}

export interface GraphExecutor {
  readonly runId: string;
  /** The last revision folded. */
  readonly revision: number;
  run(signal?: AbortSignal): Promise<GraphRunResult>;
  resume(position: string, options?: ResumeOptions): Promise<GraphRunResult>;
  /**
   * Runs like `run`, but where `run` would return `pause` or `waiting` it waits for the next
   * append to the record (an answer, a cancel, another process's outcome: change hints, else
   * polling) and runs again. Resolves with `complete`, `fail` or `cancelled`; when `signal`
   * aborts, with the result `run` would report then (its attempts' signals abort too, and what
   * they leave unfinished stays so). One `run`, `resume` or `serve` at a time (PROTOCOL).
   */
  serve(options?: ServeOptions): Promise<GraphRunResult>;
  /** What is next in the run as this executor folded it (`nextStep` of `@roundtable/graph`). */
  next(): NextStep;
  /** Folds what others appended since the last fold (only what is new). */
  catchUp(): Promise<void>;
  /**
   * Starts the run when its record is empty: appends `graph:run-started` (when another executor
   * started it first, folds theirs, which must be the same graph). Writes nothing else.
   */
  start(options?: StepOptions): Promise<StepReport>;
  /**
   * One step that runs no member: starts the run when its record is empty, else appends the
   * dispatch batch `decide` returns without starting its attempts (each is another caller's
   * `runAttempt`). Writes nothing while attempts are open or the run has ended.
   */
  advance(options?: StepOptions): Promise<StepReport>;
  /**
   * One step of one position, fenced by its appends at the folded revision: a ready attempt
   * (dispatched, resumed, retried) is started and run; a started one is recovered by SPEC 6's
   * rule (re-run when `retrySafe`, else the `reconcile-attempt` pause); a paused one is answered
   * and run when `answer` is given. Its outcome is recorded (retries as the binding allows),
   * grouped with the batch `decide` dispatches next (attempts not started); then the run is
   * advanced as `advance` does. No other position's attempt is run. Steps may run concurrently
   * with each other on one executor, never with `run` or `resume` (PROTOCOL).
   */
  runAttempt(position: string, options?: AttemptStepOptions): Promise<StepReport>;
}
