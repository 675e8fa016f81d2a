import type { KillableExit } from './childProcessFixtures.js';

export interface KillAndRecoverOptions {
  /** Go on until at least this many kills. */
  readonly kills: number;
  /** Runs in progress at once (default 1); a failing lane stops the others. */
  readonly lanes?: number;
  /**
   * Starts (or recovers) run number `run` once: one child process (`runKillable`), which the
   * caller kills at a random moment. Called again for the same run until an exit is not a kill.
   */
  attempt(run: number): Promise<KillableExit>;
  /** Called after each kill. */
  onKill?(run: number): void;
  /** Checks a run that finished: `stdout` is its last (unkilled) process's output. */
  finished(run: number, stdout: string): Promise<void> | void;
}

export interface KillAndRecoverCounts {
  readonly kills: number;
  /** Runs started (each recovered to its end). */
  readonly runs: number;
  /** Runs that were killed at least once. */
  readonly killedRuns: number;
}

/**
 * The kill-and-recover harness: runs a worker on a fresh record, kills it at random, starts it
 * again on the same record until one process finishes, checks the finished run, and starts the
 * next run, until the kills reach `kills`. With several lanes, runs go on side by side (each
 * lane's work is in its child processes); the first failure stops every lane and is thrown.
 */
export async function killAndRecover(options: KillAndRecoverOptions): Promise<KillAndRecoverCounts> {
  let kills = 0;
  let runs = 0;
  let killedRuns = 0;
  let failed = false;
  const lane = async () => {
    while (kills < options.kills && !failed) {
      const run = runs++;
      let killedThisRun = false;
      for (;;) {
        const exit = await options.attempt(run);
        if (!exit.killed) {
          await options.finished(run, exit.stdout);
          break;
        }
        kills++;
        killedThisRun = true;
        options.onKill?.(run);
      }
      if (killedThisRun) killedRuns++;
    }
  };
  const settled = await Promise.allSettled(
    Array.from({ length: options.lanes ?? 1 }, () =>
      lane().catch((error: unknown) => {
        failed = true;
        throw error;
      }),
    ),
  );
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  return { kills, runs, killedRuns };
}
