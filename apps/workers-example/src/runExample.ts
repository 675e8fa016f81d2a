import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { GraphRunResult } from '@roundtable/scheduler';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { createTestDatabase, postgresServer } from '@roundtable/test-utils';
import { createRunClient } from '@roundtable/workers';
import type { WorkerStats } from '@roundtable/workers';
import { reviewGraph, reviewNodes } from './reviewTeam.js';

export interface ExampleOptions {
  readonly workers: number;
  readonly runs: number;
  /** How long each member "thinks" per turn (default 50 ms). */
  readonly thinkMs?: number;
  /** Called with a line of progress. */
  readonly log?: (line: string) => void;
}

export interface ExampleReport {
  readonly ok: boolean;
  readonly runs: number;
  readonly ms: number;
  /** Runs each worker brought to their result. */
  readonly settledBy: Readonly<Record<string, number>>;
  readonly stats: readonly WorkerStats[];
  /** Runs whose result differs from the single-process run, each as `runId: status JSON`. */
  readonly mismatches: readonly string[];
  /** Runs that were `stuck` for a while (a job failed and was retried) before they settled. */
  readonly stuck: readonly string[];
}

// The built worker entry: dist/worker.js beside dist/main.js (from src/ in tests, one level up too).
const WORKER = fileURLToPath(new URL('../dist/worker.js', import.meta.url));

function message<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (value: { type?: string }) => {
      if (value.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(value as T);
    };
    const onExit = (code: number | null) => reject(new Error(`a worker exited (code ${code}) before sending ${type}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Starts PostgreSQL (ROUNDTABLE_POSTGRES_URL, or an embedded server), `workers` worker
 * processes and submits `runs` runs of the review team; prints progress as runs settle, checks
 * every result against a single-process run, then closes the workers gracefully.
 */
export async function runExample(options: ExampleOptions): Promise<ExampleReport> {
  const log = options.log ?? (() => undefined);
  const thinkMs = options.thinkMs ?? 50;
  const expected: GraphRunResult = await (await createGraphExecutor({ runId: 'expected', graph: reviewGraph, storage: createMemoryStorage(), nodes: reviewNodes(0) })).run();
  const server = await postgresServer();
  const database = await createTestDatabase(server.url, 'workers_example');
  const children: ChildProcess[] = [];
  try {
    log(`PostgreSQL: ${server.embedded ? 'an embedded server' : 'ROUNDTABLE_POSTGRES_URL'}, database ${database.name}`);
    const settledBy: Record<string, number> = {};
    let settled = 0;
    for (let i = 0; i < options.workers; i++) {
      const child = fork(WORKER, [database.url, `worker-${i + 1}`, String(thinkMs)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      child.on('message', (value: { type?: string; workerId?: string; runId?: string; kind?: string }) => {
        if (value.type !== 'settled') return;
        settled++;
        settledBy[value.workerId!] = (settledBy[value.workerId!] ?? 0) + 1;
        if (settled % Math.max(1, Math.floor(options.runs / 10)) === 0 || settled === options.runs) log(`  ${settled}/${options.runs} runs settled (${value.runId} ${value.kind} by ${value.workerId})`);
      });
      children.push(child);
    }
    await Promise.all(children.map((child) => message(child, 'ready')));
    log(`${options.workers} worker processes ready; submitting ${options.runs} runs of ${reviewGraph.definition.value.id}`);

    const client = await createRunClient({ connectionString: database.url });
    const started = performance.now();
    const mismatches: string[] = [];
    const stuck = new Set<string>();
    try {
      const runIds = Array.from({ length: options.runs }, (_, i) => `review-${String(i + 1).padStart(4, '0')}`);
      for (const runId of runIds) await client.submitRun({ runId, graph: reviewGraph });
      const pending = new Set(runIds);
      while (pending.size > 0) {
        for (const runId of [...pending]) {
          const status = await client.runStatus({ runId });
          if (status.kind === 'waiting') continue;
          if (status.kind === 'stuck') {
            // A job of the run failed (a busy database, say) and waits for its retry: not settled yet.
            if (!stuck.has(runId)) log(`  ${runId} stuck for now (${status.code}: ${status.message}); its job is retried`);
            stuck.add(runId);
            continue;
          }
          if (JSON.stringify(status) !== JSON.stringify(expected)) mismatches.push(`${runId}: ${JSON.stringify(status)}`);
          pending.delete(runId);
        }
        if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await client.close();
    }
    const ms = performance.now() - started;
    const closed = children.map((child) => message<{ stats: WorkerStats }>(child, 'closed'));
    for (const child of children) child.send({ type: 'close' });
    const stats = (await Promise.all(closed)).map((value) => value.stats);
    log(`${options.runs} runs in ${(ms / 1000).toFixed(2)} s (${((options.runs / ms) * 1000).toFixed(1)} runs/s); attempts per worker: ${stats.map((s) => `${s.workerId} ${s.attemptsStarted}`).join(', ')}`);
    return { ok: mismatches.length === 0, runs: options.runs, ms, settledBy, stats, mismatches, stuck: [...stuck] };
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database.drop().catch(() => undefined);
    await server.stop();
  }
}
