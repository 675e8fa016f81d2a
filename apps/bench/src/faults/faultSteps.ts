// The progress a fault worker (crashWorker.mjs, faultWorker.mjs) reports, so that its parent
// can place a kill on it (killOnSteps.ts) rather than on a clock: the worker prints
// `step <n>` once the nth write of its process is durable — each append, then the run's end
// and each output it writes after it. Counted per process: a recovering process starts at 1.
import type { RunStorage } from '@roundtable/storage';
import { delegateStorage } from '@roundtable/storage/adapter';

/** The line a fault worker prints once step `step` of its process is durable. */
export const stepLine = (step: number): string => `step ${step}`;

export interface FaultSteps {
  /** The storage, printing a step once each append has returned. */
  readonly storage: RunStorage;
  /** Prints the next step: for a durable point outside the storage (the run's end, its output files). */
  step(): void;
}

/**
 * Counts the steps of this process on `inner`. (stdout is a pipe, which Node writes synchronously
 * on Linux: a step's line is out before the worker goes on to its next write.)
 */
export function reportingSteps(inner: RunStorage): FaultSteps {
  let steps = 0;
  const step = () => {
    process.stdout.write(`${stepLine(++steps)}\n`);
  };
  const storage: RunStorage = delegateStorage(inner, {
    async append(streamId, expectedRevision, events) {
      const head = await inner.append(streamId, expectedRevision, events);
      step();
      return head;
    },
  });
  return { storage, step };
}
