// The operator workload of `pnpm bench` (SPEC 20): how long after a person's answer is appended
// (`answerPause` over a storage instance of its own, as `roundtable answer` in another process
// writes it) the answered attempt starts, in the process that holds the run: `executor.serve()`
// over fs, SQLite or PostgreSQL, or a worker pool (which picks up the answer by itself).
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { answerPause, createGraphExecutor } from '@roundtable/scheduler';
import type { NodeBinding } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { createTestDatabase, postgresServer } from '@roundtable/test-utils';
import { createRunClient, createWorkerPool } from '@roundtable/workers';
import { createBenchStore } from './workloads.js';
import type { AdapterName } from './workloads.js';

export type OperatorHolder = 'serve' | 'workers';

export interface OperatorReport {
  rounds: number;
  /** From the answer's append having committed to the answered attempt's `decideAction` (its start recorded). */
  answerToStartMs: { p50: number; p95: number; max: number };
}

const graph = compileGraph(teamGraphType, {
  id: 'operator-team',
  definitionVersion: 1,
  data: { task: 'Ask, then act.', globalConcurrency: 1, maxTurnsPerMember: 1, communication: { rooms: [{ id: 'room', members: ['asker'] }], tailMessages: 2 } },
  nodes: [{ id: 'asker', data: { role: 'asker', brief: 'Ask before acting.' } }],
  edges: [],
});

/** The asker pauses on its first attempt; `onResumed` is called as the answered attempt starts (rounds run one at a time). */
function askerNodes(onPaused: () => void, onResumed: () => void): Record<string, NodeBinding> {
  return {
    asker: {
      decideAction: (ctx) => {
        if (ctx.resume === null) {
          onPaused();
          return { kind: 'wait', reason: 'May I?', request: { kind: 'approval' } };
        }
        onResumed();
        return { kind: 'allow' };
      },
      run: () => ({ summary: 'done' }),
    },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Resolvers by run id: a round waits for its run's pause (the record holds it) and its resumed start. */
class Signals {
  readonly #waiting = new Map<string, () => void>();
  readonly #fired = new Map<string, number>();
  fire(key: string): void {
    this.#fired.set(key, performance.now());
    this.#waiting.get(key)?.();
  }
  async at(key: string): Promise<number> {
    if (!this.#fired.has(key)) await new Promise<void>((resolve) => this.#waiting.set(key, resolve));
    return this.#fired.get(key)!;
  }
}

/** Waits until the run's newest event is its pause (decideAction returns before the pause is appended). */
async function pauseRecorded(storage: RunStorage, runId: string): Promise<number> {
  for (;;) {
    let newest: { type: string; revision: number } | undefined;
    const head = await storage.head(runId);
    if (head > 0) for await (const event of storage.read(runId, { after: head - 1 })) newest = event;
    if (newest?.type === 'graph:node-paused') return newest.revision;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export async function benchOperator(holder: OperatorHolder, adapter: AdapterName | 'postgres', rounds: number): Promise<OperatorReport> {
  const paused = new Signals();
  const resumed = new Signals();
  let current = '';
  const nodes = askerNodes(
    () => paused.fire(current),
    () => resumed.fire(current),
  );
  const latencies: number[] = [];
  const postgres = adapter === 'postgres' || holder === 'workers' ? await postgresServer() : null;
  const database = postgres === null ? null : await createTestDatabase(postgres.url, 'bench_operator');
  const store =
    database === null ? await createBenchStore(adapter as AdapterName) : { open: () => createPostgresStorage({ connectionString: database.url }) as RunStorage, dispose: () => Promise.resolve() };
  const operator = store.open();
  const holderStorage = store.open();
  const pool = holder === 'workers' ? await createWorkerPool({ connectionString: database!.url, workerId: 'operator-bench', concurrency: 2, teams: { [graph.definition.digest]: { graph, nodes } } }) : null;
  const client = holder === 'workers' ? await createRunClient({ connectionString: database!.url }) : null;
  try {
    for (let round = 0; round < rounds; round++) {
      const runId = `operator-${round}`;
      current = runId;
      let served: Promise<unknown> = Promise.resolve();
      if (client !== null) await client.submitRun({ runId, graph });
      else served = (await createGraphExecutor({ runId, graph, storage: holderStorage, nodes })).serve();
      await paused.at(runId);
      const pausedAt = await pauseRecorded(operator, runId);
      await answerPause({ storage: operator, runId, position: 'team/asker/1', value: { approved: true }, pausedAt });
      const appended = performance.now();
      const started = await resumed.at(runId);
      // The holder may hear of the commit before answerPause's own promise settles here.
      latencies.push(Math.max(0, started - appended));
      await served;
    }
  } finally {
    await client?.close();
    await pool?.close();
    await operator.close();
    await holderStorage.close();
    await store.dispose();
    await database?.drop();
    await postgres?.stop();
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return { rounds, answerToStartMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1)! } };
}
