import type { Json } from '@roundtable/core';
import type { NextStep, RunFailure } from '@roundtable/graph';

/** One failed member of a failed run: what its `graph:node-failed` recorded (graph's `RunFailure`). */
export type GraphRunFailure = RunFailure;

/** What `run` and `resume` return; it is always derived from the record. */
export type GraphRunResult =
  | { readonly kind: 'complete'; readonly output: Json }
  /** `failures` lists every recorded failure in node declaration order (empty for a turn limit). */
  | { readonly kind: 'fail'; readonly code: string; readonly message: string; readonly failures: readonly GraphRunFailure[] }
  /** `position` and `request` come from the first paused attempt in node declaration order; `request` is its recorded (canonical) value. */
  | { readonly kind: 'pause'; readonly reason: string; readonly position: string | null; readonly request: Json }
  /**
   * Attempts are unfinished: left by a process that stopped, or still running in another
   * process or executor. `resume` each position once you know its first process is gone.
   */
  | { readonly kind: 'waiting'; readonly positions: readonly string[] }
  /**
   * The run was cancelled (`cancelRun`, SPEC 20) and no attempt is in flight any more: `reason`
   * as recorded, `revision` that of the `graph:run-cancelled` event.
   */
  | { readonly kind: 'cancelled'; readonly reason: string; readonly revision: number };

/**
 * The result a run reports at `step` (graph's `nextStep` of its fold) without taking it: its
 * end or pause as is; `waiting` for the open attempts, or for the batch about to be dispatched
 * (none when the run is about to start).
 */
export function runResultOf(step: NextStep): GraphRunResult {
  switch (step.kind) {
    case 'attempts':
      return { kind: 'waiting', positions: step.positions };
    case 'dispatch':
      return { kind: 'waiting', positions: step.batch.map((command) => command.position) };
    case 'start':
      return { kind: 'waiting', positions: [] };
    default:
      return step;
  }
}
