import { runView } from '@roundtable/graph';
import { DEFAULT_SCHEMA, createPostgresStorage } from '@roundtable/storage-postgres';
import type { PostgresStorage } from '@roundtable/storage-postgres';
import type { GraphRunResult } from '@roundtable/scheduler';
import { startAnswerPickup } from './answerPickup.js';
import { JobQueue, wakeChannel } from './jobQueue.js';
import type { HeldJob } from './jobQueue.js';
import { RunExecutors } from './runExecutors.js';
import { runStep } from './runStep.js';
import { queueName, resolveTeams } from './teams.js';
import type { ResolvedTeam, WorkerTeam } from './teams.js';
import { badOption, defaultWorkerId, integerOption, resolveConnection } from './workerOptions.js';
import type { WorkersConnectionOptions } from './workerOptions.js';
import { WakeListener } from './wakeListener.js';
import { WorkersError } from './workersErrors.js';

export interface WorkerPoolOptions extends WorkersConnectionOptions {
  /** Teams this worker runs, keyed by definition digest or `<definition id>@<definitionVersion>`. */
  readonly teams: Readonly<Record<string, WorkerTeam>>;
  /** Jobs (attempts) this process runs at once (default 4). */
  readonly concurrency?: number;
  /** How long a job stays claimed without a renewal (default 30,000 ms); renewed every third of it while it runs. */
  readonly leaseMs?: number;
  /** A name for this worker in logs and stats (default `<host>-<pid>-<random>`). */
  readonly workerId?: string;
  /** How often to look for jobs when no wake-up arrives, e.g. for expired leases (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** Called when a step of this worker brought a run to a result (complete, fail, pause). */
  readonly onRunSettled?: (runId: string, result: GraphRunResult) => void;
}

/** What a worker did so far. */
export interface WorkerStats {
  readonly workerId: string;
  /** Jobs taken from the queue. */
  readonly jobs: number;
  /** Attempts this worker started (wrote `node-attempt-started` for). */
  readonly attemptsStarted: number;
  /** Outcomes this worker recorded. */
  readonly outcomesRecorded: number;
  /** Attempts whose outcome this worker could not record because another worker had moved the position on (its lease was taken over). */
  readonly refused: number;
  /** Jobs whose lease this worker lost while running them (another worker may have taken them over). */
  readonly leasesLost: number;
  /** Jobs that failed with an error and were given back for another worker to retry. */
  readonly errors: number;
  readonly lastError: string | null;
  /** Jobs running now. */
  readonly active: number;
}

export interface WorkerPool {
  readonly workerId: string;
  stats(): WorkerStats;
  /** Stops claiming jobs, lets the running ones settle (each attempt records its outcome), then disconnects. */
  close(): Promise<void>;
}

/**
 * Starts a worker: it claims jobs of the teams it knows from pg-boss queues in PostgreSQL and
 * takes one step of a run per job (one position's attempt, then the run's next dispatch). Any
 * number of workers, in any number of processes and machines, share the runs of one database.
 */
export async function createWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  const connection = resolveConnection(options, 'createWorkerPool');
  const teams = resolveTeams(options.teams, connection.schema ?? DEFAULT_SCHEMA, connection.namespace);
  const concurrency = integerOption(options.concurrency, 4, 'concurrency', 1, 1000);
  const leaseMs = integerOption(options.leaseMs, 30_000, 'leaseMs', 1000, 3_600_000);
  const pollIntervalMs = integerOption(options.pollIntervalMs, 1000, 'pollIntervalMs', 10, 3_600_000);
  const workerId = options.workerId ?? defaultWorkerId();
  if (typeof workerId !== 'string' || workerId.length === 0) throw badOption('workerId must be a non-empty string.');
  if (options.onRunSettled !== undefined && typeof options.onRunSettled !== 'function') throw badOption('onRunSettled must be a function.');

  const storage: PostgresStorage = createPostgresStorage({
    connectionString: connection.connectionString,
    ...(connection.schema === undefined ? {} : { schema: connection.schema }),
    namespace: connection.namespace,
    maxConnections: Math.min(concurrency + 2, 20),
  });
  await storage.ready();
  const queue = await JobQueue.open({
    connectionString: connection.connectionString,
    schema: connection.queueSchema,
    supervise: true,
    leaseMs,
    maxConnections: Math.min(concurrency + 2, 20),
    applicationName: `roundtable-worker ${workerId}`.slice(0, 63),
  });
  for (const name of teams.keys()) await queue.ensureQueue(name);

  // Through the run view: a fork's head and revisions are run revisions, as its executor's are.
  const executors = new RunExecutors(runView(storage));
  const counts = { jobs: 0, attemptsStarted: 0, outcomesRecorded: 0, refused: 0, leasesLost: 0, errors: 0 };
  let lastError: string | null = null;
  const running = new Set<Promise<void>>();
  let closing = false;
  let pumping = false;
  let pumpAgain = false;
  const queues = [...teams.keys()];
  let nextQueue = 0;

  async function handle(job: HeldJob, team: ResolvedTeam): Promise<void> {
    let lost = false;
    // Renewed every third of the lease. A lost lease does not stop the attempt: the fence does.
    // If another worker took the position over, this one's outcome is refused (REVISION_CONFLICT)
    // and nothing is written; if nobody did, its outcome stands and the retried job finds it.
    const renewal = setInterval(() => {
      queue.renew(job).then(
        (held) => {
          if (!held) lost = true;
        },
        () => undefined,
      );
    }, Math.max(250, Math.floor(leaseMs / 3)));
    try {
      const executor = await executors.open(job.data.runId, team);
      const step = await runStep({ executor, position: job.data.position, ...(job.data.resume === undefined ? {} : { resume: job.data.resume }) });
      if (step.started) counts.attemptsStarted++;
      if (step.recorded) counts.outcomesRecorded++;
      if (step.refused) counts.refused++;
      // Jobs are idempotent per position: sending what may already be queued is harmless.
      await queue.send(team.queue, connection.namespace, step.next.map((position) => ({ runId: job.data.runId, position })));
      if (lost || !(await queue.complete(job))) counts.leasesLost++;
      // The run ended or paused (a status neither running nor waiting): say so once, from the step that wrote it.
      const result = step.result;
      if (result !== null && step.status !== 'running' && step.status !== 'waiting' && step.written > 0) options.onRunSettled?.(job.data.runId, result);
    } catch (error) {
      executors.drop(job.data.runId);
      const failure = stepFailure(error);
      lastError = `${failure.code}: ${failure.message}`;
      // A step that fails every time (a damaged record, a store that is down) is retried after
      // a pause that doubles with each try, not at once: no worker spins on it.
      await queue.retryLater(job, retryDelayMs(job.retryCount), failure).catch(() => undefined);
      // Counted once the job is back in the queue: whoever sees the count sees the job waiting.
      counts.errors++;
    } finally {
      clearInterval(renewal);
    }
  }

  function start(job: HeldJob): void {
    const team = teams.get(job.queue)!;
    counts.jobs++;
    const task: Promise<void> = handle(job, team).finally(() => {
      running.delete(task);
      pump();
    });
    running.add(task);
  }

  /** Claims jobs while there are free slots, round-robin over the team queues. */
  function pump(): void {
    if (closing) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    void (async () => {
      try {
        do {
          pumpAgain = false;
          let empty = 0;
          while (!closing && running.size < concurrency && empty < queues.length) {
            const name = queues[nextQueue++ % queues.length]!;
            const jobs = await queue.fetch(name, concurrency - running.size);
            if (jobs.length === 0) empty++;
            else empty = 0;
            for (const job of jobs) {
              // Claimed while close() began: give it straight back to the other workers.
              if (closing) await queue.release(job).catch(() => undefined);
              else start(job);
            }
          }
        } while (pumpAgain && !closing);
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      } finally {
        pumping = false;
      }
    })();
  }

  // Answers written by others (roundtable answer, the viewer, answerPause) get their job here.
  const storageSchema = connection.schema ?? DEFAULT_SCHEMA;
  const pickup = startAnswerPickup({
    storage,
    queueOf: (digest) => {
      const name = queueName(digest, storageSchema, connection.namespace);
      return teams.has(name) ? name : null;
    },
    send: (name, runId, position, pausedAt) => queue.send(name, connection.namespace, [{ runId, position }], { answer: pausedAt }),
    queued: () => pump(),
    onError: (error) => {
      lastError = error instanceof Error ? error.message : String(error);
    },
  });
  const wake = new WakeListener(connection.connectionString, wakeChannel(connection.queueSchema), (name) => {
    if (name === null || teams.has(name)) pump();
  });
  const poller = setInterval(pump, pollIntervalMs);
  pump();

  let closed: Promise<void> | null = null;
  return {
    workerId,
    stats: () => ({ workerId, ...counts, lastError, active: running.size }),
    close: () => {
      closed ??= (async () => {
        closing = true;
        clearInterval(poller);
        await pickup.stop();
        await wake.stop();
        while (pumping) await new Promise((resolve) => setTimeout(resolve, 5));
        await Promise.all([...running]);
        await queue.close();
        await storage.close();
      })();
      return closed;
    },
  };
}

export { WorkersError };

/** The pause before a failed job's next try: 250 ms, doubling with each try, at most a minute. */
function retryDelayMs(retries: number): number {
  return Math.min(60_000, 250 * 2 ** Math.min(retries, 8));
}

/** A step's error as a job keeps it: its stable code (or its name) and its message. */
function stepFailure(error: unknown): { readonly code: string; readonly message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === 'string' ? code : error.name, message: error.message };
  }
  return { code: 'UNEXPECTED', message: String(error) };
}
