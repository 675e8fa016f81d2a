import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunStatuses, compileGraph, isGraphExecutionError, runStatusOf, runView, teamGraphType } from '@roundtable/graph';
import { createPostgresStorage } from '@roundtable/storage-postgres';
import type { PostgresStorage } from '@roundtable/storage-postgres';
import { newEvent, readAll } from '@roundtable/test-utils';
import type { TestDatabase } from '@roundtable/test-utils';
import { DEFAULT_QUEUE_SCHEMA, createRunClient, createWorkerPool, isWorkersError, runStatus, submitRun } from './index.js';
import type { RunClient, WorkerPool } from './index.js';
import { answerPause, forkRun } from '@roundtable/scheduler';
import { approvalTeamGraph } from '../test/__fixtures__/approvalTeam.mjs';
import { workersTeamGraph, workersTeamNodes } from '../test/__fixtures__/team.mjs';
import { attemptCounts, referenceRun, rejection, savedMessages, testDatabase } from '../test/__fixtures__/helpers.js';
import { rawPostgresClient } from '@roundtable/test-utils/harness';

const TURNS = 3;
let database: TestDatabase;
let storage: PostgresStorage;
let client: RunClient;
const pools: WorkerPool[] = [];

beforeAll(async () => {
  database = await testDatabase('workers_pool');
  storage = createPostgresStorage({ connectionString: database.url });
  client = await createRunClient({ connectionString: database.url });
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});
afterAll(async () => {
  await client.close();
  await storage.close();
  await database.drop();
});

async function pool(options: { waitMs?: number; concurrency?: number; nodes?: ReturnType<typeof workersTeamNodes>; graph?: ReturnType<typeof workersTeamGraph> } = {}): Promise<WorkerPool> {
  const graph = options.graph ?? workersTeamGraph(TURNS);
  const nodes = options.nodes ?? workersTeamNodes({ turns: TURNS, waitMs: options.waitMs ?? 0 });
  const created = await createWorkerPool({ connectionString: database.url, teams: { [graph.definition.digest]: { graph, nodes } }, concurrency: options.concurrency ?? 4, pollIntervalMs: 100 });
  pools.push(created);
  return created;
}

/** The approval team's shipper: it pauses for approval, then records each answer it ran with in `runs`. */
function shipperNodes(runs: unknown[]) {
  return {
    shipper: {
      decideAction: (ctx: { resume: unknown }) => (ctx.resume === null ? { kind: 'wait' as const, reason: 'needs approval', request: { ask: 'ship?' } } : { kind: 'allow' as const }),
      run: (ctx: { resume: unknown }) => {
        runs.push(ctx.resume);
        return { summary: 'shipped' };
      },
    },
  };
}

/** Waits (by hints on the record, and polling as a fallback) until runStatus is not waiting (or `done` says so). */
async function settled(runId: string, done = (kind: string) => kind !== 'waiting'): Promise<Awaited<ReturnType<RunClient['runStatus']>>> {
  for (;;) {
    const status = await client.runStatus({ runId });
    // Every status read here names the run's status in graph's one vocabulary, or says it is stuck.
    expect(status.kind === 'stuck' || RunStatuses.includes(runStatusOf(status))).toBe(true);
    if (done(status.kind)) return status;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 200);
    for await (const _ of storage.changes(runId, controller.signal)) break;
    clearTimeout(timer);
  }
}

describe('options', () => {
  const graph = workersTeamGraph(TURNS);
  const nodes = workersTeamNodes({ turns: TURNS, waitMs: 0 });
  it.each([
    ['no options', undefined],
    ['no connection string', { teams: { [graph.definition.digest]: { graph, nodes } } }],
    ['no teams', { connectionString: 'postgres://x/y' }],
    ['an empty teams map', { connectionString: 'postgres://x/y', teams: {} }],
    ['a team under a key that is not its digest or id@version', { connectionString: 'postgres://x/y', teams: { other: { graph, nodes } } }],
    ['a team without a compiled graph', { connectionString: 'postgres://x/y', teams: { x: { graph: {}, nodes } } }],
    ['zero concurrency', { connectionString: 'postgres://x/y', teams: { 'workers-team@1': { graph, nodes } }, concurrency: 0 }],
    ['a lease under a second', { connectionString: 'postgres://x/y', teams: { 'workers-team@1': { graph, nodes } }, leaseMs: 500 }],
    ['an upper-case queue schema', { connectionString: 'postgres://x/y', teams: { 'workers-team@1': { graph, nodes } }, queueSchema: 'Jobs' }],
  ])('createWorkerPool refuses %s with INVALID_WORKERS_OPTIONS, before connecting', async (_, options) => {
    const error = await rejection(createWorkerPool(options as never));
    expect(isWorkersError(error, 'INVALID_WORKERS_OPTIONS')).toBe(true);
  });

  it('a closed run client refuses every call with WORKERS_CLOSED', async () => {
    const closedClient = await createRunClient({ connectionString: database.url });
    await closedClient.close();
    await closedClient.close();
    for (const call of [() => closedClient.runStatus({ runId: 'x' }), () => closedClient.submitRun({ runId: 'x', graph: workersTeamGraph(TURNS) }), () => closedClient.resumeRun({ runId: 'x', position: 'p' })]) {
      expect(isWorkersError(await rejection(call()), 'WORKERS_CLOSED')).toBe(true);
    }
  });

  it('runStatus without the run\'s graph type is UNKNOWN_GRAPH_TYPE', async () => {
    await client.submitRun({ runId: 'typed', graph: workersTeamGraph(TURNS) });
    const error = await rejection(client.runStatus({ runId: 'typed', graphTypes: [] }));
    expect(isWorkersError(error, 'UNKNOWN_GRAPH_TYPE')).toBe(true);
  });

  it('runStatus of a run that does not exist is RUN_NOT_FOUND', async () => {
    const error = await rejection(runStatus({ connectionString: database.url, runId: 'nowhere' }));
    expect(isWorkersError(error, 'RUN_NOT_FOUND')).toBe(true);
  });
});

describe('one pool', () => {
  it('runs a submitted run to the output a single-process run reaches, each position started once', async () => {
    const reference = await referenceRun(TURNS);
    await pool();
    const graph = workersTeamGraph(TURNS);
    expect(await client.submitRun({ runId: 'one', graph })).toEqual({ runId: 'one', digest: graph.definition.digest });
    const status = await settled('one');
    expect(status).toEqual(reference.result);
    expect(await savedMessages(storage, 'one', TURNS)).toEqual(reference.messages);
    for (const [position, counts] of await attemptCounts(storage, 'one')) expect(counts, position).toMatchObject({ starts: 1, outcomes: 1 });
    // runStatus is what a fresh executor reports, and reading it writes nothing.
    const head = await storage.head('one');
    expect(await runStatus({ connectionString: database.url, runId: 'one' })).toEqual(reference.result);
    expect(await storage.head('one')).toBe(head);
  });

  it('submitRun is idempotent per runId, and refuses another graph under the same runId', async () => {
    await pool();
    const graph = workersTeamGraph(TURNS);
    await Promise.all([client.submitRun({ runId: 'twice', graph }), client.submitRun({ runId: 'twice', graph })]);
    await client.submitRun({ runId: 'twice', graph });
    expect((await settled('twice')).kind).toBe('complete');
    const starts = [...(await attemptCounts(storage, 'twice')).values()].map((counts) => counts.starts);
    expect(starts.every((count) => count === 1)).toBe(true);
    // The one-shot form does the same over a connection of its own.
    expect(await submitRun({ connectionString: database.url, runId: 'twice', graph })).toEqual({ runId: 'twice', digest: graph.definition.digest });
    const other = workersTeamGraph(TURNS + 1);
    const error = await rejection(client.submitRun({ runId: 'twice', graph: other }));
    expect((error as { code?: string }).code).toBe('STORED_GRAPH_MISMATCH');
  });

  it('retries a job that fails every time (a damaged record) after a pause that doubles, and runStatus reports the run stuck with the error', async () => {
    const graph = workersTeamGraph(TURNS);
    await client.submitRun({ runId: 'damaged', graph });
    // An outcome of an attempt that never started: no step can fold the record.
    await storage.append('damaged', 1, [newEvent('bad-1', { nodeId: 'ana', position: 'team/ana/9', result: { summary: 'x' } }, { type: 'graph:node-completed', correlationId: 'damaged' })]);
    const status = await client.runStatus({ runId: 'damaged' });
    expect(status).toMatchObject({ kind: 'stuck', code: 'INVALID_EVENT', jobs: [] });
    const workers = await pool();
    while (workers.stats().errors < 3) await new Promise((resolve) => setTimeout(resolve, 50));
    // Stopped, so the job stays in its retry however slow the checks below are on a loaded machine.
    await workers.close();
    const stuck = await client.runStatus({ runId: 'damaged' });
    expect(stuck).toMatchObject({ kind: 'stuck', code: 'INVALID_EVENT', jobs: [{ position: null, code: 'INVALID_EVENT' }] });
    expect((stuck as { message: string }).message).toContain('team/ana/9');
    // Each failure put the job back with start_after at least 250 ms × 2^retries after its start.
    const raw = await rawPostgresClient(database.url);
    try {
      const { rows } = await raw.query<{ retries: number; pause_ms: number; state: string }>(
        `SELECT retry_count AS retries, EXTRACT(EPOCH FROM (start_after - started_on)) * 1000 AS pause_ms, state FROM ${DEFAULT_QUEUE_SCHEMA}.job WHERE data->>'runId' = 'damaged' AND state = 'retry'`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.retries).toBeGreaterThanOrEqual(2);
      expect(Number(rows[0]!.pause_ms)).toBeGreaterThanOrEqual(250 * 2 ** rows[0]!.retries);
    } finally {
      await raw.end();
    }
  });

  it('submitRun over a stream whose revision 1 is not a run start throws INVALID_EVENT and writes nothing', async () => {
    await storage.append('host-first', 0, [newEvent('host-1', { note: 'mine' }, { type: 'host:note' })]);
    const error = await rejection(client.submitRun({ runId: 'host-first', graph: workersTeamGraph(TURNS) }));
    expect(isGraphExecutionError(error, 'INVALID_EVENT')).toBe(true);
    expect(await storage.head('host-first')).toBe(1);
  });

  it('an answer written without resumeRun (answerPause, as roundtable answer writes it) is picked up by a running pool and run once', async () => {
    const graph = approvalTeamGraph();
    const runs: unknown[] = [];
    const nodes = shipperNodes(runs);
    // Two pools hear the answer: the job exists once, the attempt runs once.
    for (let i = 0; i < 2; i++) pools.push(await createWorkerPool({ connectionString: database.url, teams: { [graph.definition.digest]: { graph, nodes } }, pollIntervalMs: 100 }));
    await client.submitRun({ runId: 'outside-answer', graph });
    expect((await settled('outside-answer')).kind).toBe('pause');
    const paused = (await readAll(storage, 'outside-answer')).findLast((event) => event.type === 'graph:node-paused')!;
    await answerPause({ storage, runId: 'outside-answer', position: 'team/shipper/1', value: 'from outside', pausedAt: paused.revision });
    expect(await settled('outside-answer', (kind) => kind === 'complete')).toMatchObject({ kind: 'complete' });
    expect(runs).toEqual(['from outside']);
  });

  it('a fork of a paused run (SPEC 21) is answered otherwise than its parent: the pool picks up the fork\'s answer, in run revisions, and runs it once; the parent stays paused', async () => {
    const graph = approvalTeamGraph();
    const runs: unknown[] = [];
    pools.push(await createWorkerPool({ connectionString: database.url, teams: { [graph.definition.digest]: { graph, nodes: shipperNodes(runs) } }, pollIntervalMs: 100 }));
    await client.submitRun({ runId: 'fork-parent', graph });
    expect((await settled('fork-parent')).kind).toBe('pause');
    const parent = await readAll(storage, 'fork-parent');
    const pausedAt = parent.findLast((event) => event.type === 'graph:node-paused')!.revision;
    await forkRun({ storage, from: 'fork-parent', at: parent.length, to: 'fork-child' });
    // The fork's stream holds one event; as a run, the pause is in its parent's prefix.
    expect(await storage.head('fork-child')).toBe(1);
    expect((await client.runStatus({ runId: 'fork-child' })).kind).toBe('pause');
    await answerPause({ storage, runId: 'fork-child', position: 'team/shipper/1', value: 'in the fork', pausedAt });
    expect(await settled('fork-child', (kind) => kind === 'complete')).toMatchObject({ kind: 'complete' });
    expect(runs).toEqual(['in the fork']);
    const child: { revision: number }[] = [];
    for await (const event of runView(storage).read('fork-child')) child.push(event);
    expect(child.map((event) => event.revision)).toEqual(child.map((_, index) => index + 1));
    expect(await readAll(storage, 'fork-parent')).toEqual(parent);
    expect((await client.runStatus({ runId: 'fork-parent' })).kind).toBe('pause');
  });

  it('submitRun of a fork forked at an attempt in flight queues its first step: the abandoned attempt runs again in the fork as attempt 2, and the fork completes', async () => {
    await pool();
    await client.submitRun({ runId: 'fork-source', graph: workersTeamGraph(TURNS) });
    expect((await settled('fork-source')).kind).toBe('complete');
    const source = await readAll(storage, 'fork-source');
    const started = source.filter((event) => event.type === 'graph:node-attempt-started')[1]!;
    const position = (started.payload as { position: string }).position;
    await forkRun({ storage, from: 'fork-source', at: started.revision, to: 'fork-inflight' });
    await client.submitRun({ runId: 'fork-inflight', graph: workersTeamGraph(TURNS) });
    expect(await settled('fork-inflight', (kind) => kind === 'complete')).toMatchObject({ kind: 'complete' });
    const fork: { type: string; revision: number; payload: unknown }[] = [];
    for await (const event of runView(storage).read('fork-inflight')) fork.push(event);
    const again = fork.filter((event) => event.revision > started.revision && event.type === 'graph:node-attempt-started' && (event.payload as { position: string }).position === position);
    expect(again.map((event) => (event.payload as { attempt: number }).attempt)).toEqual([2]);
    expect(await readAll(storage, 'fork-source')).toEqual(source);
  });

  it('an answer committed together with more events than a look at the newest ones covers is still run: the pool reads all that is new since it last looked', async () => {
    const graph = approvalTeamGraph();
    const runs: unknown[] = [];
    const nodes = shipperNodes(runs);
    pools.push(await createWorkerPool({ connectionString: database.url, teams: { [graph.definition.digest]: { graph, nodes } }, pollIntervalMs: 100 }));
    await client.submitRun({ runId: 'buried-answer', graph });
    expect((await settled('buried-answer')).kind).toBe('pause');
    // The answer and 20 host events in one commit: one hint, after which the answer is 21 deep.
    const head = await storage.head('buried-answer');
    const answer = newEvent('buried-resume', { nodeId: 'shipper', position: 'team/shipper/1', value: 'under the notes' }, { type: 'graph:node-resumed', correlationId: 'buried-answer' });
    const notes = Array.from({ length: 20 }, (_, i) => newEvent(`buried-note-${i}`, { note: i }, { type: 'host:note', correlationId: 'buried-answer' }));
    await storage.append('buried-answer', head, [answer, ...notes]);
    expect(await settled('buried-answer', (kind) => kind === 'complete')).toMatchObject({ kind: 'complete' });
    expect(runs).toEqual(['under the notes']);
  });

  it('a pool that starts after an answer was written picks it up when it starts listening, also when another append came after the answer', async () => {
    const graph = approvalTeamGraph();
    const runs: unknown[] = [];
    const nodes = shipperNodes(runs);
    const first = await createWorkerPool({ connectionString: database.url, teams: { [graph.definition.digest]: { graph, nodes } }, pollIntervalMs: 100 });
    await client.submitRun({ runId: 'answered-offline', graph });
    expect((await settled('answered-offline')).kind).toBe('pause');
    await first.close();
    await answerPause({ storage, runId: 'answered-offline', position: 'team/shipper/1', value: 'while no pool ran' });
    // Another process appends after the answer: it is no longer the run's newest event.
    await storage.append('answered-offline', await storage.head('answered-offline'), [newEvent('host-note', { note: 'after the answer' }, { type: 'host:note', correlationId: 'answered-offline' })]);
    expect(await client.runStatus({ runId: 'answered-offline' })).toEqual({ kind: 'waiting', positions: ['team/shipper/1'] });
    pools.push(await createWorkerPool({ connectionString: database.url, teams: { [graph.definition.digest]: { graph, nodes } }, pollIntervalMs: 100 }));
    expect(await settled('answered-offline', (kind) => kind === 'complete')).toMatchObject({ kind: 'complete' });
    expect(runs).toEqual(['while no pool ran']);
  });

  it('an answer whose client died before queueing its job is run once; a later resumeRun of that pause is STALE_ANSWER and queues nothing more', async () => {
    const graph = approvalTeamGraph();
    const runs: unknown[] = [];
    const nodes = shipperNodes(runs);
    pools.push(await createWorkerPool({ connectionString: database.url, teams: { [graph.definition.digest]: { graph, nodes } }, pollIntervalMs: 100 }));
    await client.submitRun({ runId: 'orphan-answer', graph });
    const paused = await settled('orphan-answer');
    expect(paused.kind).toBe('pause');
    // The client's append of the answer, and no job: as if it died right after (the pool picks it up).
    await answerPause({ storage, runId: 'orphan-answer', position: 'team/shipper/1', value: 'first' });
    const stale = await rejection(client.resumeRun({ runId: 'orphan-answer', position: 'team/shipper/1', value: 'second' }));
    expect(isGraphExecutionError(stale, 'STALE_ANSWER')).toBe(true);
    expect(await settled('orphan-answer')).toMatchObject({ kind: 'complete' });
    expect(runs).toEqual(['first']);
  });

  it('a paused run stays paused until resumeRun, which a worker then runs with the value', async () => {
    const definition = {
      id: 'approval-team',
      definitionVersion: 1,
      data: { task: 'Ship after approval.', globalConcurrency: 1, maxTurnsPerMember: 1 },
      nodes: [{ id: 'shipper', data: { role: 'shipper', brief: 'Wait for approval.' } }],
      edges: [],
    };
    const graph = compileGraph(teamGraphType, definition);
    const nodes = {
      shipper: {
        decideAction: (ctx: { resume: unknown }) => (ctx.resume === null ? { kind: 'wait' as const, reason: 'needs approval', request: { ask: 'ship?' } } : { kind: 'allow' as const }),
        run: (ctx: { resume: unknown }) => ({ summary: `shipped with ${JSON.stringify(ctx.resume)}` }),
      },
    };
    pools.push(await createWorkerPool({ connectionString: database.url, teams: { 'approval-team@1': { graph, nodes: nodes } }, pollIntervalMs: 100 }));
    await client.submitRun({ runId: 'approval', graph });
    const paused = await settled('approval');
    expect(paused).toMatchObject({ kind: 'pause', reason: 'needs approval', position: 'team/shipper/1', request: { ask: 'ship?' } });
    expect(paused.kind !== 'stuck' && runStatusOf(paused)).toBe('paused');
    // Nothing moves on its own.
    expect(await client.runStatus({ runId: 'approval' })).toEqual(paused);
    const notPaused = await rejection(client.resumeRun({ runId: 'approval', position: 'team/shipper/2', value: 'yes' }));
    expect(isWorkersError(notPaused, 'NOT_PAUSED')).toBe(true);
    await client.resumeRun({ runId: 'approval', position: 'team/shipper/1', value: { approved: true } });
    const done = await settled('approval', (kind) => kind === 'complete');
    expect(done).toMatchObject({ kind: 'complete', output: { agents: [{ name: 'shipper', result: { summary: 'shipped with {"approved":true}' } }] } });
    // The pause was answered: a second answer is stale and writes nothing.
    const head = await storage.head('approval');
    const again = await rejection(client.resumeRun({ runId: 'approval', position: 'team/shipper/1' }));
    expect(isGraphExecutionError(again, 'STALE_ANSWER')).toBe(true);
    expect(await storage.head('approval')).toBe(head);
  });

  it('close() stops claiming and lets running attempts record their outcomes: nothing is left half-recorded', async () => {
    const reference = await referenceRun(TURNS);
    let started = 0;
    let notify = () => {};
    // Attempts are held until close() has begun, so it meets running attempts on any machine.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const nodes = workersTeamNodes({
      turns: TURNS,
      waitMs: 150,
      onAttempt: () => {
        started++;
        notify();
        return released;
      },
    });
    const first = await pool({ nodes, concurrency: 4 });
    const graph = workersTeamGraph(TURNS);
    const runIds = ['close-a', 'close-b', 'close-c'];
    // Listening before anything is submitted: attempts may start before submitRun returns.
    const twoStarted = new Promise<void>((resolve) => (notify = () => started >= 2 && resolve()));
    await Promise.all(runIds.map((runId) => client.submitRun({ runId, graph })));
    await twoStarted;
    const closing = first.close();
    release();
    await closing;
    expect(first.stats().active).toBe(0);
    for (const runId of runIds) {
      for (const [position, counts] of await attemptCounts(storage, runId)) {
        expect(counts.starts, `${runId} ${position}`).toBe(counts.outcomes);
      }
    }
    // Another pool finishes every run as if nothing had happened.
    await pool();
    for (const runId of runIds) {
      expect(await settled(runId)).toEqual(reference.result);
      expect(await savedMessages(storage, runId, TURNS)).toEqual(reference.messages);
    }
  });
});
