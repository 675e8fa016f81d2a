import type { Json } from '@roundtable/core';
import { nextStep, openStoredRun, teamGraphType } from '@roundtable/graph';
import type { GraphType, StoredRun } from '@roundtable/graph';
import { answerPause, createGraphExecutor, isGraphExecutionError, loadRunDefinition, runResultOf } from '@roundtable/scheduler';
import type { GraphRunResult, NodeBinding } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import { DEFAULT_SCHEMA, createPostgresStorage } from '@roundtable/storage-postgres';
import type { PostgresStorage } from '@roundtable/storage-postgres';
import { JobQueue } from './jobQueue.js';
import type { QueuedError } from './jobQueue.js';
import { queueName } from './teams.js';
import type { AnyCompiledGraph } from './teams.js';
import { badOption, resolveConnection } from './workerOptions.js';
import type { ResolvedConnection, WorkersConnectionOptions } from './workerOptions.js';
import { WorkersError } from './workersErrors.js';

export interface SubmitRunOptions {
  readonly runId: string;
  readonly graph: AnyCompiledGraph;
}

export interface ResumeRunOptions {
  readonly runId: string;
  /** The paused position (`result.position` of a `pause` result). */
  readonly position: string;
  /** Recorded in `graph:node-resumed` and given to the attempt as `ctx.resume` (default null). */
  readonly value?: Json;
  /** The revision of the pause being answered (as `runStatus` showed it): another pause is STALE_ANSWER. */
  readonly pausedAt?: number;
  /** Graph types that may have written the run (default: `teamGraphType`). */
  readonly graphTypes?: readonly GraphType<unknown>[];
}

export interface RunStatusOptions {
  readonly runId: string;
  /** Graph types that may have written the run (default: `teamGraphType`). */
  readonly graphTypes?: readonly GraphType<unknown>[];
}

/**
 * A run that cannot go on by itself: its record cannot be folded, or a job of it failed and
 * waits for its retry (with a growing pause). `code` and `message` are the error (the record's
 * or the newest failed job's); `jobs` every failed job of the run waiting for its retry.
 */
export interface StuckRun {
  readonly kind: 'stuck';
  readonly code: string;
  readonly message: string;
  readonly jobs: readonly QueuedError[];
}

/** What `runStatus` reports: the result a fresh executor reports, or `stuck`. */
export type RunStatus = GraphRunResult | StuckRun;

function stuckRun(code: string, message: string, jobs: readonly QueuedError[]): StuckRun {
  return { kind: 'stuck', code, message, jobs };
}

/** One connection to the runs and the queue, for submitting, resuming and watching many runs. */
export interface RunClient {
  submitRun(options: SubmitRunOptions): Promise<{ runId: string; digest: string }>;
  /** Writes the answer (STALE_ANSWER when another answer won), then queues the answered position for a worker. */
  resumeRun(options: ResumeRunOptions): Promise<{ readonly revision: number }>;
  runStatus(options: RunStatusOptions): Promise<RunStatus>;
  close(): Promise<void>;
}

/** Bindings that are never called: a client's executor only starts runs. */
function unusedBindings(graph: AnyCompiledGraph): Record<string, NodeBinding> {
  return Object.fromEntries(
    graph.definition.value.nodes.map((node) => [
      node.id,
      () => {
        throw new Error('A run client never runs a member.');
      },
    ]),
  );
}

async function storedRun(storage: RunStorage, runId: string) {
  const stored = await loadRunDefinition(storage, runId);
  if (stored !== null) return stored;
  throw new WorkersError('RUN_NOT_FOUND', `There is no run ${JSON.stringify(runId)} in ${storage.identity.location} (namespace ${storage.identity.namespace}).`, { details: { runId } });
}

/** Opens a client for submitting runs to the workers, resuming paused ones and reading their status. */
export async function createRunClient(options: WorkersConnectionOptions): Promise<RunClient> {
  const connection: ResolvedConnection = resolveConnection(options, 'createRunClient');
  const storage: PostgresStorage = createPostgresStorage({
    connectionString: connection.connectionString,
    ...(connection.schema === undefined ? {} : { schema: connection.schema }),
    namespace: connection.namespace,
    maxConnections: 4,
  });
  let jobs: JobQueue;
  try {
    await storage.ready();
    jobs = await JobQueue.open({ connectionString: connection.connectionString, schema: connection.queueSchema, supervise: false, leaseMs: 30_000, maxConnections: 4, applicationName: 'roundtable-run-client' });
  } catch (error) {
    await storage.close();
    throw error;
  }

  const storageSchema = connection.schema ?? DEFAULT_SCHEMA;
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new WorkersError('WORKERS_CLOSED', 'This run client is closed.');
  };

  return {
    async submitRun({ runId, graph }) {
      assertOpen();
      if (typeof graph !== 'object' || graph === null || typeof graph.definition?.digest !== 'string') throw badOption('submitRun: graph must be a compiled graph.');
      // Writes graph:run-started (or finds the same run there: STORED_GRAPH_MISMATCH for another graph), nothing more.
      const executor = await createGraphExecutor({ runId, graph, storage, nodes: unusedBindings(graph) });
      await executor.start();
      // The first job is the same job for the same run: submitting twice queues it once.
      await jobs.send(queueName(graph.definition.digest, storageSchema, connection.namespace), connection.namespace, [{ runId, position: null }]);
      return { runId, digest: graph.definition.digest };
    },

    async resumeRun({ runId, position, value = null, pausedAt, graphTypes = [teamGraphType as unknown as GraphType<unknown>] }) {
      assertOpen();
      if (typeof position !== 'string') throw badOption('resumeRun: position must be a string.');
      const stored = await storedRun(storage, runId);
      // The answer is one append at the expected revision that is written only while the
      // position is paused (SPEC 20): of two racing calls one writes it, the other throws
      // STALE_ANSWER having written nothing. The job then runs the answered position.
      // The job of an answer has an id of its own per answered pause: the winner and every stale
      // caller queue the same job, so the answered position gets exactly one, never a second
      // that a worker could take while the first one's attempt runs.
      const queue = (pausedAt: number) =>
        jobs.send(queueName(stored.digest, storageSchema, connection.namespace), connection.namespace, [{ runId, position }], { answer: pausedAt });
      let written: { readonly revision: number; readonly pausedAt: number };
      try {
        written = await answerPause({ storage, runId, position, value, types: graphTypes, ...(pausedAt === undefined ? {} : { pausedAt }) });
      } catch (error) {
        if (isGraphExecutionError(error, 'PROTOCOL')) throw new WorkersError('NOT_PAUSED', error.message, { details: { runId, position }, cause: error });
        if (isGraphExecutionError(error, 'UNKNOWN_GRAPH_TYPE')) throw new WorkersError('UNKNOWN_GRAPH_TYPE', error.message, { details: { runId, kind: stored.kind, typeVersion: stored.typeVersion }, cause: error });
        // The answer that won may belong to a client that died before queueing its job: queue
        // it (the same job the winner queued, so at most one exists).
        const stale = isGraphExecutionError(error, 'STALE_ANSWER') ? (error.details as { pausedAt?: unknown; answered?: unknown } | undefined) : undefined;
        if (stale?.answered === true && typeof stale.pausedAt === 'number') await queue(stale.pausedAt);
        throw error;
      }
      await queue(written.pausedAt);
      return { revision: written.revision };
    },

    async runStatus({ runId, graphTypes = [teamGraphType as unknown as GraphType<unknown>] }) {
      assertOpen();
      const stored = await storedRun(storage, runId);
      const errors = () => jobs.lastErrors(queueName(stored.digest, storageSchema, connection.namespace), runId);
      let run: StoredRun;
      try {
        run = await openStoredRun(storage, runId, { types: graphTypes });
      } catch (error) {
        if (isGraphExecutionError(error, 'UNKNOWN_GRAPH_TYPE')) {
          throw new WorkersError('UNKNOWN_GRAPH_TYPE', `Run ${runId} was written by graph type ${stored.kind} v${stored.typeVersion}, which runStatus was not given.`, {
            details: { runId, kind: stored.kind, typeVersion: stored.typeVersion },
          });
        }
        // A record that cannot be folded: no step of the run can go on until it is repaired.
        if (isGraphExecutionError(error, 'INVALID_EVENT')) return stuckRun(error.code, error.message, await errors());
        throw error;
      }
      // What a fresh executor reports, writing nothing: where it would dispatch the next batch, the run is waiting for it.
      const result = runResultOf(nextStep(run.graph, run.folder));
      if (result.kind !== 'waiting') return result;
      // Waiting, and a job of the run failed and waits for its retry: stuck until it succeeds.
      const failed = await errors();
      return failed.length === 0 ? result : stuckRun(failed[0]!.code, failed[0]!.message, failed);
    },

    async close() {
      if (closed) return;
      closed = true;
      await jobs.close();
      await storage.close();
    },
  };
}

async function withClient<T>(options: WorkersConnectionOptions, work: (client: RunClient) => Promise<T>): Promise<T> {
  const client = await createRunClient(options);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** Stores the run's start and queues it for the workers; durable when it resolves, idempotent per runId. */
export function submitRun(options: WorkersConnectionOptions & SubmitRunOptions): Promise<{ runId: string; digest: string }> {
  return withClient(options, (client) => client.submitRun(options));
}

/** Answers a paused position with `value` (one append, fenced as `answerPause`) and queues it for a worker that knows the team. */
export function resumeRun(options: WorkersConnectionOptions & ResumeRunOptions): Promise<{ readonly revision: number }> {
  return withClient(options, (client) => client.resumeRun(options));
}

/** The run's result as a fresh executor reports it (`waiting` while attempts are open or the next batch is not yet dispatched). */
export function runStatus(options: WorkersConnectionOptions & RunStatusOptions): Promise<RunStatus> {
  return withClient(options, (client) => client.runStatus(options));
}
