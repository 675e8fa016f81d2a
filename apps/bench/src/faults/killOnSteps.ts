// The fault suite's kills, placed on progress rather than on a clock. A kill a set time after a
// worker starts depends on how fast the machine is: on a loaded one it lands before the first
// write, again and again, and a run need not end; on a quiet one the run can end first. Here a
// worker reports its durable writes (faultSteps.ts) and is SIGKILLed on a random one of its
// first `maxStep`: every kill lands on a record this process has written to, and no run stalls
// on kills that land before its process does anything.
import { killAndRecover } from '@roundtable/test-utils';
import type { KillAndRecoverCounts, KillableExit, KillableOptions } from '@roundtable/test-utils';
import { stepLine } from './faultSteps.js';

/**
 * Processes started, per kill asked for, before the kills must have reached their count. A
 * run's first process is killed unless it does all the run's steps before its parent acts on
 * step `maxStep`, so about one process in every (kills per run + 1) is not killed; 4 leaves room
 * for a machine on which most processes outrun their kill. Only workers that stop reporting
 * steps, or that finish before any kill lands, reach it.
 */
export const PROCESSES_PER_KILL = 4;

/**
 * Processes one run may take. Each killed process has written to its run, and the suite's runs
 * end after about 20 processes (15 kills or so); a run still going after 200 no longer ends.
 */
export const PROCESSES_PER_RUN = 200;

export interface KillOnStepsOptions {
  /** Go on until at least this many kills. */
  readonly kills: number;
  /** Runs in progress at once (default 1). */
  readonly lanes?: number;
  /** Kill each process on a step drawn from 1..maxStep: below a fresh run's step count, so its first process is killed. */
  readonly maxStep: number;
  /** Starts (or recovers) run `run` once: `runKillable(worker, args, { ...kill })`. */
  attempt(run: number, kill: KillableOptions): Promise<KillableExit>;
  /** Called after each kill. */
  onKill?(run: number): void;
  /** Checks a run that finished: `stdout` is its last (unkilled) process's output. */
  finished(run: number, stdout: string): Promise<void> | void;
}

/**
 * `killAndRecover` with each process killed on a random step it reports. Fails, saying how far
 * it got, if the kills have not reached `kills` within PROCESSES_PER_KILL × `kills` processes,
 * or if a run has not ended within PROCESSES_PER_RUN.
 */
export async function killOnSteps(options: KillOnStepsOptions): Promise<KillAndRecoverCounts> {
  const bound = PROCESSES_PER_KILL * options.kills;
  const processesOfRun = new Map<number, number>();
  let processes = 0;
  let kills = 0;
  return killAndRecover({
    kills: options.kills,
    lanes: options.lanes ?? 1,
    attempt: (run) => {
      if (kills < options.kills && processes >= bound) {
        throw new Error(
          `[faults] kills not covered: ${kills} of the ${options.kills} kills landed (each on a step 1..${options.maxStep} the worker reported) ` +
            `within the bound of ${bound} processes: the workers finished before their kill step`,
        );
      }
      const ofRun = (processesOfRun.get(run) ?? 0) + 1;
      if (ofRun > PROCESSES_PER_RUN) throw new Error(`[faults] run ${run} did not end: each of its ${PROCESSES_PER_RUN} processes was killed on a step it reported`);
      processesOfRun.set(run, ofRun);
      processes++;
      return options.attempt(run, { killOnLine: stepLine(1 + Math.floor(Math.random() * options.maxStep)) });
    },
    onKill: (run) => {
      kills++;
      options.onKill?.(run);
    },
    finished: (run, stdout) => {
      processesOfRun.delete(run);
      return options.finished(run, stdout);
    },
  });
}
