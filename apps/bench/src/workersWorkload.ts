// The workers workload of `pnpm bench`: completed runs per second with N worker processes for
// runs whose members wait 50 ms, and how long a dispatched turn waits before a worker starts it.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import { createTestDatabase, postgresServer } from '@roundtable/test-utils';
import { createRunClient } from '@roundtable/workers';
import { workersBenchGraph } from './workersTeam.js';
import { GraphEventTypes } from '@roundtable/graph';

const WORKER = fileURLToPath(new URL('./workersBenchWorker.js', import.meta.url));
const WAIT_MS = 50;
const CONCURRENCY = 2;

export interface WorkersReport {
  workers: number;
  /** Attempts each worker runs at once. */
  concurrency: number;
  runs: number;
  turns: number;
  ms: number;
  runsPerSecond: number;
  turnsPerSecond: number;
  /** Under load (every run submitted at once): from a turn's dispatch to its attempt start, as the record's timestamps say (ms); mostly time spent queued behind busy slots. */
  queuedPickUpMs: { p50: number; p95: number; max: number };
  /** On an idle pool (one run at a time): from a turn's dispatch, by whichever worker finished the batch before, to its attempt start by any worker (ms). */
  pickUpMs: { p50: number; p95: number; max: number };
}

function nextMessage(child: ChildProcess, type: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string }) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`a bench worker exited (code ${code})`)));
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Dispatch-to-start times of every turn of these runs, sorted (ms, from the record's timestamps). */
async function pickUps(url: string, runIds: readonly string[]): Promise<{ times: number[]; turns: number }> {
  const storage = createPostgresStorage({ connectionString: url });
  const times: number[] = [];
  try {
    for (const runId of runIds) {
      const dispatchedAt = new Map<string, number>();
      for await (const event of storage.read(runId)) {
        const position = (event.payload as { position?: string }).position;
        if (position === undefined) continue;
        if (event.type === GraphEventTypes.NODE_DISPATCHED) dispatchedAt.set(position, Date.parse(event.timestamp));
        if (event.type === GraphEventTypes.NODE_ATTEMPT_STARTED) times.push(Date.parse(event.timestamp) - dispatchedAt.get(position)!);
      }
    }
  } finally {
    await storage.close();
  }
  return { times: times.sort((a, b) => a - b), turns: times.length };
}

const summary = (times: readonly number[]) => ({ p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1) ?? 0 });

const IDLE_RUNS = 12;

export async function benchWorkers(workers: number, runs: number): Promise<WorkersReport> {
  const server = await postgresServer();
  const database = await createTestDatabase(server.url, 'bench_workers');
  const children: ChildProcess[] = [];
  try {
    const waiting = new Map<string, () => void>();
    for (let i = 0; i < workers; i++) {
      const child = fork(WORKER, [database.url, `w${i}`, String(WAIT_MS), String(CONCURRENCY)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      child.on('message', (message: { type?: string; runId?: string }) => {
        if (message.type === 'settled') waiting.get(message.runId!)?.();
      });
      children.push(child);
    }
    await Promise.all(children.map((child) => nextMessage(child, 'ready')));
    const settledRun = (runId: string) => new Promise<void>((resolve) => waiting.set(runId, resolve));
    const client = await createRunClient({ connectionString: database.url });
    const loaded = Array.from({ length: runs }, (_, i) => `bench-${i}`);
    const idle = Array.from({ length: IDLE_RUNS }, (_, i) => `idle-${i}`);
    let ms: number;
    try {
      // Throughput: every run submitted at once.
      const started = performance.now();
      const done = Promise.all(loaded.map(settledRun));
      for (const runId of loaded) await client.submitRun({ runId, graph: workersBenchGraph });
      await done;
      ms = performance.now() - started;
      // Pick-up on an idle pool: one run at a time.
      for (const runId of idle) {
        const done = settledRun(runId);
        await client.submitRun({ runId, graph: workersBenchGraph });
        await done;
      }
    } finally {
      await client.close();
    }
    await Promise.all(children.map((child) => {
      const closed = nextMessage(child, 'closed');
      child.send({ type: 'close' });
      return closed;
    }));

    const queued = await pickUps(database.url, loaded);
    const idleTimes = await pickUps(database.url, idle);
    return {
      workers,
      concurrency: CONCURRENCY,
      runs,
      turns: queued.turns,
      ms,
      runsPerSecond: (runs / ms) * 1000,
      turnsPerSecond: (queued.turns / ms) * 1000,
      queuedPickUpMs: summary(queued.times),
      pickUpMs: summary(idleTimes.times),
    };
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database.drop().catch(() => undefined);
    await server.stop();
  }
}
