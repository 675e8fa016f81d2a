import { createHash } from 'node:crypto';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Json } from '@roundtable/core';

/** What one job asks a worker to do. */
export interface StepJobData {
  readonly runId: string;
  /** The position to run, recover or resume; null to start the run or dispatch its next batch. */
  readonly position: string | null;
  /** Set by clients before `resumeRun` wrote the answer itself: the value to answer the paused position with. */
  readonly resume?: { readonly value: Json };
}

/** A failed step's error, kept on its job until the retry. */
export interface QueuedError {
  /** The job's position (null: the job that starts the run or dispatches its next batch). */
  readonly position: string | null;
  readonly code: string;
  readonly message: string;
  /** How many times the job was taken before (pg-boss's retry count). */
  readonly retries: number;
  /** When the job is tried again (ISO 8601). */
  readonly nextTryAt: string;
}

/** A job as a worker holds it: its lease is the pair (id, retryCount). */
export interface HeldJob {
  readonly queue: string;
  readonly id: string;
  readonly retryCount: number;
  readonly data: StepJobData;
}

export const DEFAULT_QUEUE_SCHEMA = 'roundtable_jobs';
// pg-boss would stop retrying a job after this many expired leases; a position is never abandoned.
const RETRY_LIMIT = 1_000_000;
const QUEUE_LOCK_CLASS = 0x52545751; // 'RTWQ'

/** The NOTIFY channel workers listen on for new jobs (payload: the queue name). */
export function wakeChannel(queueSchema: string): string {
  return `roundtable_wake_${queueSchema}`;
}

/**
 * A job id that is the same for the same (namespace, run, position) and, for the job of an
 * answer, the revision of the pause it answers: sending it twice queues it once, so a position
 * never has two jobs that two workers could hold at once.
 */
export function stepJobId(namespace: string, runId: string, position: string | null, answer?: number): string {
  const hex = createHash('sha256').update(`${namespace}\n${runId}\n${position ?? ''}${answer === undefined ? '' : `\n${answer}`}`, 'utf8').digest('hex');
  // Shaped as a version-4 UUID (pg-boss ids are uuid).
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface JobQueueOptions {
  readonly connectionString: string;
  readonly schema: string;
  /** Run pg-boss's maintenance (expiring leases) in this process. */
  readonly supervise: boolean;
  readonly leaseMs: number;
  readonly maxConnections: number;
  readonly applicationName: string;
}

/**
 * pg-boss 10 over one pg pool, plus what pg-boss 10 lacks for leases: renewing an active job
 * and completing or releasing it only while this worker still holds it. A lease is the job's
 * `retry_count` at fetch time: pg-boss increments it when an expired job is fetched again, so
 * a worker whose lease was taken over can neither renew nor complete the new holder's job.
 */
export class JobQueue {
  private readonly created = new Set<string>();

  private constructor(
    readonly boss: PgBoss,
    readonly pool: pg.Pool,
    private readonly options: JobQueueOptions,
  ) {}

  static async open(options: JobQueueOptions): Promise<JobQueue> {
    const pool = new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections, application_name: options.applicationName });
    pool.on('error', () => undefined);
    const leaseSeconds = Math.max(1, Math.ceil(options.leaseMs / 1000));
    const boss = new PgBoss({
      db: { executeSql: (text: string, values: unknown[]) => pool.query(text, values) },
      schema: options.schema,
      supervise: options.supervise,
      schedule: false,
      migrate: true,
      // Leases expire within about a lease of their end: maintenance looks at least every half lease.
      maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(leaseSeconds / 2))),
      monitorStateIntervalSeconds: 3600,
    });
    boss.on('error', () => undefined);
    try {
      await boss.start();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new JobQueue(boss, pool, options);
  }

  private get schema(): string {
    return `"${this.options.schema}"`;
  }

  private get leaseSeconds(): number {
    return Math.max(1, Math.ceil(this.options.leaseMs / 1000));
  }

  async ensureQueue(queue: string): Promise<void> {
    if (this.created.has(queue)) return;
    if ((await this.boss.getQueue(queue)) === null) {
      // pg-boss 10 deadlocks when processes create one queue at the same moment: one at a time.
      const lock = await this.pool.connect();
      try {
        await lock.query('SELECT pg_advisory_lock($1::int4, hashtext($2))', [QUEUE_LOCK_CLASS, this.options.schema]);
        try {
          if ((await this.boss.getQueue(queue)) === null) {
            await this.boss.createQueue(queue, { name: queue, retryLimit: RETRY_LIMIT, retryDelay: 0, expireInSeconds: this.leaseSeconds });
          }
        } finally {
          await lock.query('SELECT pg_advisory_unlock($1::int4, hashtext($2))', [QUEUE_LOCK_CLASS, this.options.schema]);
        }
      } finally {
        lock.release();
      }
    }
    this.created.add(queue);
  }

  /**
   * Queues step jobs (a position's job is queued once however often it is sent; with `answer`,
   * the revision of the pause an answer answered, the job of that answer is queued once) and
   * wakes the workers.
   */
  async send(queue: string, namespace: string, jobs: readonly StepJobData[], options: { answer?: number } = {}): Promise<void> {
    if (jobs.length === 0) return;
    await this.ensureQueue(queue);
    for (const data of jobs) {
      const id = stepJobId(namespace, data.runId, data.position, options.answer);
      await this.boss.send(queue, data as unknown as object, { id, retryLimit: RETRY_LIMIT, retryDelay: 0, expireInSeconds: this.leaseSeconds } as PgBoss.SendOptions);
    }
    await this.pool.query('SELECT pg_notify($1, $2)', [wakeChannel(this.options.schema), queue]);
  }

  /** Claims up to `count` jobs, each with this worker's lease. */
  async fetch(queue: string, count: number): Promise<HeldJob[]> {
    await this.ensureQueue(queue);
    const jobs = await this.boss.fetch<StepJobData>(queue, { batchSize: count, includeMetadata: true });
    const held = jobs.map((job) => ({ queue, id: job.id, retryCount: job.retryCount, data: job.data }));
    await Promise.all(held.map((job) => this.renew(job)));
    return held;
  }

  private async whileHeld(job: HeldJob, set: string, values: unknown[] = []): Promise<boolean> {
    const result = await this.pool.query(`UPDATE ${this.schema}.job SET ${set} WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3`, [job.queue, job.id, job.retryCount, ...values]);
    return result.rowCount === 1;
  }

  /**
   * Extends the lease to this worker's leaseMs from now; false when it was lost (expired and
   * taken over, or finished). The lease is the claimant's: a job sent by a client (resumeRun)
   * or a worker with another leaseMs gets this worker's at its first renewal, right after the claim.
   */
  renew(job: HeldJob): Promise<boolean> {
    return this.whileHeld(job, 'started_on = now(), expire_in = make_interval(secs => $4)', [this.leaseSeconds]);
  }

  /** Marks the job done if this worker still holds it. */
  complete(job: HeldJob): Promise<boolean> {
    return this.whileHeld(job, "state = 'completed', completed_on = now()");
  }

  /**
   * Gives a job whose step failed back for a retry after `delayMs` (pg-boss's `retry` state with
   * `start_after` in the future), keeping `error` in its output: a job that fails every time is
   * retried with a growing pause instead of at once, and a reader sees why (`lastErrors`).
   */
  async retryLater(job: HeldJob, delayMs: number, error: { readonly code: string; readonly message: string }): Promise<void> {
    await this.whileHeld(job, "state = 'retry', start_after = now() + make_interval(secs => $4), output = $5::jsonb", [delayMs / 1000, JSON.stringify({ error })]);
  }

  /** The last error of every job of `runId` in `queue` waiting for its retry, newest first, with how often it was tried and when it is tried next. */
  async lastErrors(queue: string, runId: string): Promise<QueuedError[]> {
    const result = await this.pool.query<{ position: string | null; code: string; message: string; retries: number; next_try_at: Date }>(
      `SELECT data->>'position' AS position, output->'error'->>'code' AS code, output->'error'->>'message' AS message, retry_count AS retries, start_after AS next_try_at
         FROM ${this.schema}.job WHERE name = $1 AND data->>'runId' = $2 AND state = 'retry' AND output ? 'error' ORDER BY start_after DESC`,
      [queue, runId],
    );
    return result.rows.map((row) => ({ position: row.position, code: row.code, message: row.message, retries: row.retries, nextTryAt: row.next_try_at.toISOString() }));
  }

  /** Gives the job back at once (its lease ends now), so another worker retries it. */
  async release(job: HeldJob): Promise<void> {
    if (await this.whileHeld(job, "started_on = now() - expire_in - interval '1 second'")) await this.boss.expire();
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, close: false, wait: true });
    await this.pool.end();
  }
}
