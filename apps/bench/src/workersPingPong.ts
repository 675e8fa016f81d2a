// The workers ping-pong workload of `pnpm bench`: one two-member run of N turns on one worker
// (embedded PostgreSQL, pg-boss), each turn a job of its own. A worker keeps the run folded
// between its jobs and folds only what is new, so µs per turn stays flat as the run grows.
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { GraphRunResult } from '@roundtable/scheduler';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { createTestDatabase, postgresServer } from '@roundtable/test-utils';
import { createRunClient, createWorkerPool } from '@roundtable/workers';
import { pingPongTeam } from './pingPongTeam.js';
import { pingPongMembers } from './workloads.js';

export interface WorkersPingPongReport {
  turns: number;
  usPerTurn: number;
  turnsPerSecond: number;
  events: number;
  ms: number;
}

/** Submits one ping-pong run of `turns` turns to an in-process worker and waits for it to complete. */
export async function benchWorkersPingPong(turns: number): Promise<WorkersPingPongReport> {
  const server = await postgresServer();
  const database = await createTestDatabase(server.url, 'bench_workers_ping_pong');
  try {
    const graph = compileGraph(teamGraphType, pingPongTeam(turns));
    let settle: (result: GraphRunResult) => void = () => undefined;
    const settled = new Promise<GraphRunResult>((resolve) => (settle = resolve));
    const pool = await createWorkerPool({
      connectionString: database.url,
      workerId: 'bench',
      concurrency: 1,
      teams: { [graph.definition.digest]: { graph, nodes: pingPongMembers(turns) } },
      onRunSettled: (_runId, result) => settle(result),
    });
    const client = await createRunClient({ connectionString: database.url });
    let ms: number;
    let result: GraphRunResult;
    try {
      const started = performance.now();
      await client.submitRun({ runId: 'bench', graph });
      result = await settled;
      ms = performance.now() - started;
    } finally {
      await client.close();
      await pool.close();
    }
    if (result.kind !== 'complete') throw new Error(`The workload ended with ${JSON.stringify(result).slice(0, 300)}`);
    const storage = createPostgresStorage({ connectionString: database.url });
    const events = await storage.head('bench');
    await storage.close();
    // A turn is its dispatch, its attempt start and its completion.
    const measuredTurns = Math.round((events - 1) / 3);
    return { turns: measuredTurns, usPerTurn: (ms * 1000) / measuredTurns, turnsPerSecond: (measuredTurns / ms) * 1000, events, ms };
  } finally {
    await database.drop().catch(() => undefined);
    await server.stop();
  }
}
