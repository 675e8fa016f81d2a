import { GraphEventTypes, GraphExecutionError, nextStep } from '@roundtable/graph';
import type { CompiledGraph, NextStep } from '@roundtable/graph';
import type { AttemptRunner } from './attemptRunner.js';
import { runResultOf } from './graphRunResult.js';
import type { GraphRunResult } from './graphRunResult.js';
import type { ResolvedBinding } from './nodeBinding.js';
import type { OutcomeCaller, OutcomeRecorder } from './outcomeRecorder.js';
import type { RunEvents } from './runEvents.js';
import type { RunRecord } from './runRecord.js';

/**
 * The loop of one run (SPEC 6): fold, ask `nextStep`, write what it says, until attempts are
 * in flight elsewhere or the run ends (a cancel ends it once no started attempt is left). `drive`
 * is `run` and `resume`: it dispatches each batch with its attempts started and runs them here,
 * and starts ready work (SPEC 20: dispatched and never started, resumed, retried). `advance` is a step: it starts the run or dispatches the
 * next batch, without starting its attempts, and stops there.
 */
export class StepLoop<State> {
  readonly #graph: CompiledGraph<State>;
  readonly #record: RunRecord<State>;
  readonly #events: RunEvents;
  readonly #recorder: OutcomeRecorder<State>;
  readonly #runner: AttemptRunner<State>;
  readonly #retrySafe: (nodeId: string) => boolean;

  constructor(
    graph: CompiledGraph<State>,
    record: RunRecord<State>,
    events: RunEvents,
    recorder: OutcomeRecorder<State>,
    runner: AttemptRunner<State>,
    bindings: ReadonlyMap<string, ResolvedBinding>,
  ) {
    this.#graph = graph;
    this.#record = record;
    this.#events = events;
    this.#recorder = recorder;
    this.#runner = runner;
    this.#retrySafe = (nodeId) => bindings.get(nodeId)!.retrySafe;
  }

  /** `run` and `resume`: the loop with each batch's attempts started and run here; its end, or `waiting`. */
  async drive(caller: OutcomeCaller): Promise<GraphRunResult> {
    // The loop stops only at attempts in flight elsewhere or at the run's end (a cancel's too).
    return runResultOf(await this.#loop(caller));
  }

  /**
   * A step: takes the run as far as its next dispatch without running a member: starts it when
   * it has no events, appends the batch `decide` returns (its attempts left for whoever runs
   * each position), and stops once this call has dispatched a batch or the run waits or ends.
   * Returns what is next then.
   */
  advance(caller: OutcomeCaller): Promise<NextStep> {
    return this.#loop(caller);
  }

  async #loop(caller: OutcomeCaller): Promise<NextStep> {
    for (;;) {
      if (caller.startsAttempts) {
        // The batch the last outcome's append dispatched and started (SPEC 11.1): run it now.
        const started = this.#recorder.takeStartedBatch();
        if (started !== null) {
          await this.#runner.runStartedBatch(started.map((command) => command.position), caller);
          continue;
        }
      } else if (caller.log.written.some((event) => event.type === GraphEventTypes.NODE_DISPATCHED)) {
        return nextStep(this.#graph, this.#record.folder);
      }
      throwIfAborted(caller.signal);
      const step = nextStep(this.#graph, this.#record.folder);
      switch (step.kind) {
        case 'start':
          await this.#record.start(this.#events.runStarted(this.#graph as CompiledGraph<unknown>), caller.log);
          continue;
        case 'dispatch': {
          // The batch is `decide`'s at this revision: written only while the fold is still there.
          const decidedAt = this.#record.revision;
          const events = this.#events.dispatchBatch(step.batch, caller.startsAttempts ? this.#retrySafe : null);
          const dispatched = await this.#record.dispatch(events, step.batch, decidedAt, caller.log);
          if (dispatched && caller.startsAttempts) await this.#runner.runStartedBatch(step.batch.map((command) => command.position), caller);
          continue;
        }
        case 'attempts':
          if (caller.startsAttempts && step.ready.length > 0) {
            // Ready work (SPEC 20): an answered or retried attempt, or a dispatched position, that
            // no attempt has started since. Any run starts it; the attempt-start append fences racers.
            await this.#runner.runReady(step.ready.map((attempt) => attempt.position), caller);
            continue;
          }
          // Another executor may have finished them: report waiting only for what is still open.
          if (await this.#record.foldedSomethingNew()) continue;
          return step;
        default:
          // Another executor may have moved the run on: report only what is still so.
          if (await this.#record.foldedSomethingNew()) continue;
          return step;
      }
    }
  }
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new GraphExecutionError('ABORTED', 'The run was aborted; unfinished attempts stay unfinished and can be resumed.');
}
