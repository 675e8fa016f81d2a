import { createGraphExecutor } from '@roundtable/scheduler';
import type { GraphExecutor } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import type { WorkerTeam } from './teams.js';

/** How many runs a worker keeps folded (the least recently stepped one is dropped first). */
export const FOLDED_RUNS = 64;

/**
 * The executors of the runs a worker steps, kept folded between its jobs so each step folds
 * only what is new (SPEC 6's cost rule, for workers): at most `capacity` runs, the least
 * recently used dropped first. An executor is taken again only when its run's head is not below
 * the revision it holds and what was appended since (by other workers) folds; otherwise it is
 * dropped and the run is folded from scratch. Jobs of one run may share its executor at once:
 * steps run concurrently on one executor, each fenced by its own appends.
 */
export class RunExecutors {
  readonly #storage: RunStorage;
  readonly #capacity: number;
  readonly #entries = new Map<string, { readonly team: WorkerTeam; readonly executor: GraphExecutor }>();

  constructor(storage: RunStorage, capacity = FOLDED_RUNS) {
    this.#storage = storage;
    this.#capacity = capacity;
  }

  /** The run's executor, caught up with its record: the one it holds when that still fits, else a new one folded from scratch. */
  async open(runId: string, team: WorkerTeam): Promise<GraphExecutor> {
    const cached = this.#entries.get(runId);
    this.#entries.delete(runId);
    if (cached !== undefined && cached.team === team && (await this.#caughtUp(runId, cached.executor))) {
      this.#keep(runId, cached);
      return cached.executor;
    }
    const executor = await createGraphExecutor({ runId, graph: team.graph, storage: this.#storage, nodes: team.nodes });
    this.#keep(runId, { team, executor });
    return executor;
  }

  /** Forgets the run's executor (after a step failed, its fold may be half way through a read). */
  drop(runId: string): void {
    this.#entries.delete(runId);
  }

  /** Whether `executor` still fits the record: the head is not below its revision, and what is new (if anything) folds. */
  async #caughtUp(runId: string, executor: GraphExecutor): Promise<boolean> {
    try {
      const head = await this.#storage.head(runId);
      if (head < executor.revision) return false;
      if (head > executor.revision) await executor.catchUp();
      return true;
    } catch {
      return false; // folded from scratch instead, which reports a real problem of the record
    }
  }

  #keep(runId: string, entry: { readonly team: WorkerTeam; readonly executor: GraphExecutor }): void {
    this.#entries.set(runId, entry);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
