import { setTimeout as sleep } from 'node:timers/promises';
import { GraphEventTypes } from '@roundtable/graph';
import type { CompiledGraph } from '@roundtable/graph';
import type { NewEvent } from '@roundtable/storage';
import type { Tracer } from '@opentelemetry/api';
import { AttemptFailureCodes, runAttempt } from './attemptOutcome.js';
import type { ResolvedBinding } from './nodeBinding.js';
import type { OutcomeCaller, OutcomeRecorder } from './outcomeRecorder.js';
import type { RunEvents } from './runEvents.js';
import type { RunRecord } from './runRecord.js';
import { attemptSpanOutcome, startAttemptSpan } from './tracing.js';

/**
 * Runs the attempts of one run's positions: starts an attempt (fenced by the attempt-start
 * append at the folded revision: of two executors one writes it), runs the member inside its
 * attempt's span and has its outcome recorded; while the binding's `retry` allows, a failure
 * is recorded as `node-retried` and the next attempt follows.
 */
export class AttemptRunner<State> {
  readonly #record: RunRecord<State>;
  readonly #events: RunEvents;
  readonly #recorder: OutcomeRecorder<State>;
  readonly #graph: CompiledGraph<State>;
  readonly #bindings: ReadonlyMap<string, ResolvedBinding>;
  readonly #tracer: Tracer;

  constructor(
    record: RunRecord<State>,
    events: RunEvents,
    recorder: OutcomeRecorder<State>,
    graph: CompiledGraph<State>,
    bindings: ReadonlyMap<string, ResolvedBinding>,
    tracer: Tracer,
  ) {
    this.#record = record;
    this.#events = events;
    this.#recorder = recorder;
    this.#graph = graph;
    this.#bindings = bindings;
    this.#tracer = tracer;
  }

  /** Runs the attempts of a batch whose starts were appended with it, concurrently. */
  async runStartedBatch(positions: readonly string[], caller: OutcomeCaller): Promise<void> {
    if (positions.length === 1) await this.run(positions[0]!, caller, true);
    else await Promise.all(positions.map((position) => this.run(position, caller, true)));
  }

  /** Starts and runs ready attempts (SPEC 20); every one gets its try before an error of one is thrown. */
  async runReady(positions: readonly string[], caller: OutcomeCaller): Promise<void> {
    if (positions.length === 1) return this.run(positions[0]!, caller);
    const settled = await Promise.allSettled(positions.map((position) => this.run(position, caller)));
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /**
   * Runs the next attempt of an open position and records its outcome, then the retries its
   * binding allows. `alreadyStarted`: the attempt's start was appended with its dispatch, so the
   * first attempt is run as it stands. Returns without running anything when the position is
   * not ready (or not started, with `alreadyStarted`) or another writer started it first.
   */
  async run(position: string, caller: OutcomeCaller, alreadyStarted = false): Promise<void> {
    const signal = caller.signal;
    for (let first = true; ; first = false) {
      const open = this.#record.folder.openAttempt(position);
      if (open === undefined) return;
      const binding = this.#bindings.get(open.nodeId)!;
      let attempt: number;
      if (first && alreadyStarted) {
        if (open.status !== 'started') return;
        attempt = open.attempt;
      } else {
        if (open.status !== 'dispatched' && open.status !== 'resumed') return;
        attempt = open.attempt + 1;
        const started = await this.#record.appendForAttempt(open, () => this.#events.attemptStarted(open, attempt, binding.retrySafe), caller.log);
        if (!started) return;
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
      const span = startAttemptSpan(this.#tracer, { memberId: open.nodeId, runId: this.#record.runId, position, attempt });
      let written: NewEvent | null = null;
      const watch = caller.watch;
      try {
        const attemptSignal = watch === undefined ? signal : watch.attemptSignal();
        const ran = await span.within(() => runAttempt(this.#graph as CompiledGraph<unknown>, binding, context, attemptSignal));
        if (signal.aborted) return;
        // An attempt stopped by a cancel, or failing after it, is recorded CANCELLED; one that completed anyway is kept.
        const outcome = watch?.cancelled === true && ran.kind !== 'completed' && ran.kind !== 'paused' ? this.#cancelledOutcome() : ran;
        if (outcome.kind === 'aborted') return;
        written = await this.#recorder.record(open, attempt, binding, outcome, caller);
      } finally {
        span.end(attemptSpanOutcome(written));
      }
      if (written?.type !== GraphEventTypes.NODE_RETRIED || this.#record.folder.cancelled !== null) return;
      if (binding.retry.backoffMs > 0) {
        try {
          await sleep(binding.retry.backoffMs, undefined, { signal });
        } catch {
          return; // aborted: the position stays retried and not restarted, which `resume` continues
        }
      }
    }
  }

  /** The failure of an attempt a cancel stopped (SPEC 20). */
  #cancelledOutcome(): { kind: 'failed'; code: string; message: string } {
    const reason = this.#record.folder.cancelled?.reason ?? '';
    return { kind: 'failed', code: AttemptFailureCodes.CANCELLED, message: `The run was cancelled: ${reason}` };
  }
}
