import type { NextStep } from './nextStep.js';

/**
 * How a run stands: the one status vocabulary of every package that reports runs (the CLI and
 * its viewer, the workers, `team`). `running`: the run goes on by itself (its next batch is due,
 * or its record is empty); `waiting`: attempts are unfinished and not paused (ready to start, or
 * started without an outcome); `paused`: `decide` paused the run; `complete` and `failed`: it
 * ended; `cancelled`: it was cancelled (SPEC 20) and no started attempt is left without an
 * outcome. A result's `kind` (`GraphRunResult`: `complete`, `fail`, `pause`, `waiting`,
 * `cancelled`) is the
 * command that produced it; `runStatusOf` names the status it leaves the run in.
 */
export const RunStatuses = Object.freeze(['running', 'waiting', 'paused', 'complete', 'failed', 'cancelled'] as const);
export type RunStatus = (typeof RunStatuses)[number];

/**
 * How one attempt of a position stands or ended: `dispatched` (never started), `started` (no
 * outcome yet), `paused`, `resumed` (answered, or a started attempt whose process stopped and was
 * resumed; not restarted yet), `retried` (failed with a retryable code; the next attempt is due),
 * `completed`, `failed` (the record's `graph:node-failed`, or a completion the graph refused).
 * The folder's `OpenAttempt.status` is the open part of it (a retried attempt is open as
 * `resumed`).
 */
export const AttemptStatuses = Object.freeze(['dispatched', 'started', 'paused', 'resumed', 'retried', 'completed', 'failed'] as const);
export type AttemptStatus = (typeof AttemptStatuses)[number];

/** The status a run is in, from its next step or from the `kind` of a result (`GraphRunResult`). */
export function runStatusOf(step: { readonly kind: NextStep['kind'] | 'waiting' }): RunStatus {
  switch (step.kind) {
    case 'start':
    case 'dispatch':
      return 'running';
    case 'attempts':
    case 'waiting':
      return 'waiting';
    case 'pause':
      return 'paused';
    case 'complete':
      return 'complete';
    case 'fail':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}
