import { describe, expect, it } from 'vitest';
import { delegateStorage } from '@roundtable/storage/adapter';
import type { Json } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor, teamMembers, teamOutput } from './index.js';
import type { NodeContext, NodeFailure } from './index.js';
import { readAll } from './__fixtures__/testTeams.js';
import type { RunStorage } from '@roundtable/storage';

// SPEC 11.4: a binding's `retry` records graph:node-retried and starts the next attempt.

const RUN = 'retry-1';

const graph = compileGraph(teamGraphType, {
  id: 'retry-team',
  definitionVersion: 1,
  data: { task: 'Answer.', globalConcurrency: 1, maxTurnsPerMember: 1, communication: { rooms: [{ id: 'desk', members: ['model', 'clerk'] }], tailMessages: 5 } },
  nodes: [
    { id: 'model', data: { role: 'model', brief: 'Answer in the desk room.' } },
    { id: 'clerk', data: { role: 'clerk', brief: 'File the answer.', initialTurn: false } },
  ],
  edges: [],
});

interface Seen {
  attempt: number;
  previousFailure: NodeFailure | null;
}

/** A model stand-in: fails the first `failures` attempts in the given ways, then answers. */
function flaky(failWith: ((ctx: NodeContext) => unknown)[], seen: Seen[]) {
  return (ctx: NodeContext) => {
    seen.push({ attempt: ctx.attempt, previousFailure: ctx.previousFailure });
    const fail = failWith[seen.length - 1];
    if (fail) return fail(ctx);
    return { summary: 'answered', posts: [{ roomId: 'desk', text: 'The answer is 4.', mentions: ['clerk'] }] };
  };
}

const types = (events: readonly { type: string }[]) => events.map((event) => event.type.replace('graph:', ''));


/** The record of a run whose first member is tried three times, up to its third attempt. */
const THREE_ATTEMPTS = ['run-started', 'node-dispatched', 'node-attempt-started', 'node-retried', 'node-attempt-started', 'node-retried', 'node-attempt-started'];

describe('retry until success', () => {
  it('records node-retried, gives ctx.previousFailure to the next attempt, and delivers only the successful turn', async () => {
    const storage = createMemoryStorage();
    const seen: Seen[] = [];
    const badPost = () => ({ summary: 'oops', posts: [{ roomId: 'lobby', text: 'wrong room', mentions: [] }] });
    const boom = () => {
      throw new Error('503 from the model API');
    };
    const nodes = teamMembers(graph, {
      model: { run: flaky([badPost, boom], seen) as never, retry: { maxAttempts: 3 } },
      clerk: ({ input }) => ({ summary: `filed ${input.messages.length} message(s)` }),
    });
    const result = await (await createGraphExecutor({ runId: RUN, graph, storage, nodes })).run();
    expect(teamOutput(result)?.agents.map((agent) => agent.result?.summary)).toEqual(['answered', 'filed 1 message(s)']);
    expect(seen).toEqual([
      { attempt: 1, previousFailure: null },
      { attempt: 2, previousFailure: { code: 'RESULT_INVALID', message: 'Member "model" posted to room "lobby", which this team does not declare. (at /posts/0/roomId)' } },
      { attempt: 3, previousFailure: { code: 'EFFECT_FAILED', message: '503 from the model API' } },
    ]);
    const events = await readAll(storage, RUN);
    expect(types(events).slice(0, 9)).toEqual([...THREE_ATTEMPTS, 'node-completed', 'node-dispatched']);
    expect(events.filter((event) => event.type === 'graph:node-retried').map((event) => event.payload)).toEqual([
      { nodeId: 'model', position: 'team/model/1', attempt: 1, code: 'RESULT_INVALID', message: seen[1]!.previousFailure!.message },
      { nodeId: 'model', position: 'team/model/1', attempt: 2, code: 'EFFECT_FAILED', message: '503 from the model API' },
    ]);

    // Replay folds node-retried like any other event and runs nothing.
    const replay = await createGraphExecutor({ runId: RUN, graph, storage, nodes: { model: () => { throw new Error('no'); }, clerk: () => { throw new Error('no'); } } });
    expect(await replay.run()).toEqual(result);
  });

  it('retries TIMEOUT and OUTPUT_LIMIT by default', async () => {
    const seen: Seen[] = [];
    const hang = (ctx: NodeContext) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ summary: 'late' })));
    const huge = () => ({ summary: 'x'.repeat(5_000) });
    const nodes = { model: { run: flaky([hang, huge], seen), retry: { maxAttempts: 3 }, limits: { timeoutMs: 20, outputBytes: 1_000 } }, clerk: () => ({ summary: 'ok' }) };
    const storage = createMemoryStorage();
    expect((await (await createGraphExecutor({ runId: RUN, graph, storage, nodes })).run()).kind).toBe('complete');
    expect(seen.map((entry) => entry.previousFailure?.code ?? null)).toEqual([null, 'TIMEOUT', 'OUTPUT_LIMIT']);
  });
});

describe('retry until exhaustion', () => {
  it('records the last allowed failure as node-failed, and the fail result lists it', async () => {
    const storage = createMemoryStorage();
    const seen: Seen[] = [];
    const boom = (n: number) => () => {
      throw new Error(`failure ${n}`);
    };
    const nodes = { model: { run: flaky([boom(1), boom(2), boom(3), boom(4)], seen), retry: { maxAttempts: 3, codes: ['EFFECT_FAILED'] } }, clerk: () => ({ summary: 'ok' }) };
    const result = await (await createGraphExecutor({ runId: RUN, graph, storage, nodes })).run();
    expect(result).toEqual({
      kind: 'fail',
      code: 'TEAM_NODE_FAILED',
      message: 'Member "model" failed (EFFECT_FAILED).',
      failures: [{ memberId: 'model', position: 'team/model/1', code: 'EFFECT_FAILED', message: 'failure 3' }],
    });
    expect(seen.map((entry) => entry.attempt)).toEqual([1, 2, 3]);
    expect(types(await readAll(storage, RUN))).toEqual([...THREE_ATTEMPTS, 'node-failed']);
  });

  it('does not retry a code outside `codes`, nor anything with maxAttempts 1 (the default)', async () => {
    for (const binding of [
      { run: () => ({ summary: 1 }), retry: { maxAttempts: 5, codes: ['EFFECT_FAILED'] } },
      { run: () => ({ summary: 1 }) },
      { run: () => ({ summary: 's' }), retry: { maxAttempts: 5 }, decideAction: () => ({ kind: 'deny' as const, reason: 'no budget' }) },
    ]) {
      const storage = createMemoryStorage();
      const result = await (await createGraphExecutor({ runId: RUN, graph, storage, nodes: { model: binding, clerk: () => ({ summary: 'ok' }) } })).run();
      expect(result.kind).toBe('fail');
      expect(types(await readAll(storage, RUN))).not.toContain('node-retried');
    }
  });
});

describe('backoff and a stop between a retry and the next attempt', () => {
  it('waits backoffMs before the next attempt; stopped there, a fresh executor\'s run() starts it as ready work, with previousFailure', async () => {
    const backing = createMemoryBacking();
    const controller = new AbortController();
    const calls: Seen[] = [];
    const failOnce = (ctx: NodeContext) => {
      calls.push({ attempt: ctx.attempt, previousFailure: ctx.previousFailure });
      if (calls.length === 1) throw new Error('rate limited');
      return { summary: 'answered' };
    };
    const nodes = { model: { run: failOnce, retry: { maxAttempts: 2, backoffMs: 3_600_000 } }, clerk: () => ({ summary: 'ok' }) };
    // The run is stopped during the backoff, as soon as node-retried is durable.
    const inner = createMemoryStorage({ backing });
    const stopping: RunStorage = delegateStorage(inner, {
      async append(streamId, expected, events) {
        const head = await inner.append(streamId, expected, events);
        if (events.some((event) => event.type === 'graph:node-retried')) controller.abort();
        return head;
      },
    });
    const first = await createGraphExecutor({ runId: RUN, graph, storage: stopping, nodes });
    await expect(first.run(controller.signal)).rejects.toMatchObject({ code: 'ABORTED' });
    // An hour of backoff did not pass, so no second attempt started.
    const storage = createMemoryStorage({ backing });
    expect(types(await readAll(storage, RUN))).toEqual(['run-started', 'node-dispatched', 'node-attempt-started', 'node-retried']);
    expect(calls).toHaveLength(1);

    // Retried and not yet restarted is ready work (SPEC 20): run() starts attempt 2, no resume needed.
    const fresh = await createGraphExecutor({ runId: RUN, graph, storage, nodes });
    expect((await fresh.run()).kind).toBe('complete');
    expect(calls[1]).toEqual({ attempt: 2, previousFailure: { code: 'EFFECT_FAILED', message: 'rate limited' } });
    const record = await readAll(storage, RUN);
    expect(types(record).slice(3, 6)).toEqual(['node-retried', 'node-attempt-started', 'node-completed']);
    expect(record.filter((event) => event.type === 'graph:node-resumed')).toHaveLength(0);
  });

  it('a retried attempt keeps the resume value and the pause it answered', async () => {
    const seen: { resume: Json; pause: unknown; previousFailure: unknown }[] = [];
    const nodes = {
      model: {
        retry: { maxAttempts: 2 },
        decideAction: (ctx: NodeContext) => (ctx.pause === null ? { kind: 'wait' as const, reason: 'Which number?', request: { ask: 'number' } } : { kind: 'allow' as const }),
        run: (ctx: NodeContext) => {
          seen.push({ resume: ctx.resume, pause: ctx.pause, previousFailure: ctx.previousFailure });
          if (seen.length === 1) throw new Error('flaky');
          return { summary: `got ${JSON.stringify(ctx.resume)}` };
        },
      },
      clerk: () => ({ summary: 'ok' }),
    };
    const executor = await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage(), nodes });
    expect(await executor.run()).toMatchObject({ kind: 'pause', request: { ask: 'number' } });
    const done = await executor.resume('team/model/1', { value: 4 });
    expect(teamOutput(done)?.agents[0]?.result?.summary).toBe('got 4');
    expect(seen).toEqual([
      { resume: 4, pause: { reason: 'Which number?', request: { ask: 'number' } }, previousFailure: null },
      { resume: 4, pause: { reason: 'Which number?', request: { ask: 'number' } }, previousFailure: { code: 'EFFECT_FAILED', message: 'flaky' } },
    ]);
  });
});
