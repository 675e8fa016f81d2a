import { describe, expect, it } from 'vitest';
import { delegateStorage } from '@roundtable/storage/adapter';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { GraphType, GraphTypeFunctions } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';
import type { TeamDispatchInput, TeamGraphResult } from '@roundtable/graph';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor, isGraphExecutionError, loadRunDefinition } from './index.js';
import type { GraphRunResult, NodeBinding } from './index.js';
import { REVIEW_REPLY, compileSeed, deterministic, dispatchOrder, readAll, seedNodes, seedTeam, toNewEvent } from './__fixtures__/testTeams.js';

const RUN = 'run-1';

function outputOf(result: GraphRunResult): TeamGraphResult {
  if (result.kind !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(result)}`);
  return result.output as TeamGraphResult;
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a rejection');
}

describe('the seed conversation', () => {
  it('completes writer → reviewer → writer and replays without appending', async () => {
    const backing = createMemoryBacking();
    const storage = createMemoryStorage({ backing });
    const graph = compileSeed();
    const executor = await createGraphExecutor({ runId: RUN, graph, storage, nodes: seedNodes });
    const result = await executor.run();
    expect(result.kind).toBe('complete');
    const output = outputOf(result);
    expect(output.agents.map((agent) => agent.name)).toEqual(['writer', 'reviewer']);
    expect(output.agents[0]!.result!.summary).toContain(REVIEW_REPLY);
    const events = await readAll(storage, RUN);
    expect(dispatchOrder(events)).toEqual(['writer', 'reviewer', 'writer']);
    expect(events[0]!.type).toBe('graph:run-started');

    const reopened = createMemoryStorage({ backing });
    let called = 0;
    const counting = { writer: () => (called++, { summary: 'x' }), reviewer: () => (called++, { summary: 'x' }) };
    const fresh = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: reopened, nodes: counting });
    expect(await fresh.run()).toEqual(result);
    expect(await fresh.run()).toEqual(result);
    expect(called).toBe(0);
    expect(await reopened.head(RUN)).toBe(events.length);
    expect(await loadRunDefinition(reopened, RUN)).toEqual({ kind: 'team', typeVersion: 1, digest: graph.definition.digest, value: seedTeam() });
    expect(await loadRunDefinition(reopened, 'no-such-run')).toBeNull();
  });

  it('replays a completed run by reading its record once', async () => {
    const backing = createMemoryBacking();
    await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: seedNodes })).run();
    const inner = createMemoryStorage({ backing });
    let eventsRead = 0;
    const counting: RunStorage = delegateStorage(inner, {
      async *read(streamId, options) {
        for await (const event of inner.read(streamId, options)) {
          eventsRead++;
          yield event;
        }
      },
    });
    const replay = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: counting, nodes: seedNodes });
    expect((await replay.run()).kind).toBe('complete');
    expect(eventsRead).toBe(await inner.head(RUN));
  });

  it('writes the same record for the same clock and ids', async () => {
    const records = [];
    for (let i = 0; i < 2; i++) {
      const storage = createMemoryStorage();
      const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes, ...deterministic() });
      await executor.run();
      records.push(await readAll(storage, RUN));
    }
    expect(records[0]).toEqual(records[1]);
  });

  it('writes one attempt-started and one outcome per dispatch, attempts caused by their dispatch', async () => {
    const storage = createMemoryStorage();
    await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes })).run();
    const events = await readAll(storage, RUN);
    expect(events.map((event) => event.type)).toEqual([
      'graph:run-started',
      ...Array(3).fill(['graph:node-dispatched', 'graph:node-attempt-started', 'graph:node-completed']).flat(),
    ]);
    expect(events.every((event) => event.version === 1 && event.correlationId === RUN)).toBe(true);
    expect(events[2]!.causationId).toBe(events[1]!.eventId);
    expect(events[2]!.payload).toEqual({ nodeId: 'writer', position: 'team/writer/1', attempt: 1, retrySafe: false });
  });
});

describe('event ids from newId', () => {
  // The executor builds its events with the storage's `checkedNewEvent`: an id that is not an
  // identifier must leave the event unchecked, so the usual checks refuse it.
  const idsWithBadAt = (bad: number) => {
    const { clock } = deterministic();
    let n = 0;
    return { clock, newId: () => (++n === bad ? ' not an identifier' : `e-${n}`) };
  };

  it('refuses a bad id in the first append: INVALID_STORED_VALUE, nothing written', async () => {
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes, ...idsWithBadAt(1) });
    expect((await rejection(executor.run())).code).toBe('INVALID_STORED_VALUE');
    expect(await storage.head(RUN)).toBe(0);
  });

  it('records an outcome whose id is bad as the failure it cannot be recorded as, naming the field', async () => {
    const storage = createMemoryStorage();
    // 1 run-started, 2 dispatched, 3 attempt-started, 4 the writer's outcome.
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes, ...idsWithBadAt(4) });
    await executor.run();
    const events = await readAll(storage, RUN);
    expect(events.every((event) => event.eventId !== ' not an identifier')).toBe(true);
    const outcome = events[3]!;
    expect(outcome.type === 'graph:node-failed' || outcome.type === 'graph:node-retried').toBe(true);
    const payload = outcome.payload as { code: string; message: string };
    expect(payload.code).toBe('RESULT_INVALID');
    expect(payload.message).toContain("The attempt's outcome cannot be recorded");
    expect(payload.message).toContain('eventId must be an identifier');
  });
});

describe('team semantics through the executor', () => {
  it('queues a fresh turn for a mention that arrives while its member runs', async () => {
    const definition = seedTeam({ maxTurnsPerMember: 3 });
    definition.data.globalConcurrency = 2;
    definition.nodes[1]!.data.initialTurn = true;
    const seen: Record<string, number> = { writer: 0, reviewer: 0 };
    const nodes = {
      writer: () => {
        seen.writer!++;
        return seen.writer === 1 ? { summary: 'w1', posts: [{ roomId: 'review', text: 'ping', mentions: ['reviewer'] }] } : { summary: `w${seen.writer}` };
      },
      reviewer: ({ input }: { input: unknown }) => {
        seen.reviewer!++;
        return { summary: `r${seen.reviewer}:${(input as TeamDispatchInput).messages.length}` };
      },
    };
    const storage = createMemoryStorage();
    const result = await (await createGraphExecutor({ runId: RUN, graph: compileGraph(teamGraphType, definition), storage, nodes })).run();
    expect(result.kind).toBe('complete');
    // The reviewer was running when the writer mentioned it: a second reviewer turn follows and sees the ping.
    expect(dispatchOrder(await readAll(storage, RUN))).toEqual(['writer', 'reviewer', 'reviewer']);
    expect(outputOf(result).agents[1]!.result!.summary).toBe('r2:1');
  });

  it('settles the whole batch before the next, even when a concurrency slot frees', async () => {
    const definition = seedTeam({ maxTurnsPerMember: 2 });
    definition.data.globalConcurrency = 2;
    definition.nodes[1]!.data.initialTurn = true;
    const log: string[] = [];
    let releaseSlow!: () => void;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const nodes = {
      writer: async ({ position }: { position: string }) => {
        log.push(`start ${position}`);
        if (position === 'team/writer/1') await slow;
        log.push(`end ${position}`);
        return { summary: 'w' };
      },
      reviewer: ({ position }: { position: string }) => {
        log.push(`start ${position}`);
        log.push(`end ${position}`);
        setTimeout(releaseSlow, 20);
        return position === 'team/reviewer/1' ? { summary: 'r', posts: [{ roomId: 'review', text: 'again', mentions: ['reviewer'] }] } : { summary: 'r2' };
      },
    };
    const result = await (await createGraphExecutor({ runId: RUN, graph: compileGraph(teamGraphType, definition), storage: createMemoryStorage(), nodes })).run();
    expect(result.kind).toBe('complete');
    expect(log.indexOf('start team/reviewer/2')).toBeGreaterThan(log.indexOf('end team/writer/1'));
  });

  it('lets a failing member settle the batch, then fails with TEAM_NODE_FAILED', async () => {
    const definition = seedTeam();
    definition.data.globalConcurrency = 2;
    definition.nodes[1]!.data.initialTurn = true;
    let writerFinished = false;
    const nodes = {
      writer: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        writerFinished = true;
        return { summary: 'done' };
      },
      reviewer: () => {
        throw new Error('model unavailable');
      },
    };
    const storage = createMemoryStorage();
    const result = await (await createGraphExecutor({ runId: RUN, graph: compileGraph(teamGraphType, definition), storage, nodes })).run();
    expect(writerFinished).toBe(true);
    expect(result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    expect((result as { message: string }).message).toContain('reviewer');
    const failed = (await readAll(storage, RUN)).find((event) => event.type === 'graph:node-failed')!;
    expect(failed.payload).toEqual({ nodeId: 'reviewer', position: 'team/reviewer/1', code: 'EFFECT_FAILED', message: 'model unavailable' });
  });

  it('fails with TEAM_TURN_LIMIT when a reply requests a third writer turn', async () => {
    const nodes = {
      writer: () => ({ summary: 'w', posts: [{ roomId: 'review', text: 'again?', mentions: ['reviewer'] }] }),
      reviewer: () => ({ summary: 'r', posts: [{ roomId: 'review', text: 'yes', mentions: ['writer'] }] }),
    };
    const result = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes })).run();
    expect(result).toEqual({ kind: 'fail', code: 'TEAM_TURN_LIMIT', message: 'Member "writer" reached maxTurnsPerMember.', failures: [] });
  });
});

function soloWriter() {
  const { communication: _none, ...data } = seedTeam().data;
  return { ...seedTeam(), data, nodes: [seedTeam().nodes[0]!] };
}

describe('attempt failures', () => {
  const graph = compileSeed();
  async function writerFailure(binding: NodeBinding, storageOptions = {}): Promise<{ code: string; message: string; posts: number }> {
    const storage = createMemoryStorage(storageOptions);
    const result = await (await createGraphExecutor({ runId: RUN, graph, storage, nodes: { writer: binding, reviewer: seedNodes.reviewer } })).run();
    expect(result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    const events = await readAll(storage, RUN);
    const failed = events.find((event) => event.type === 'graph:node-failed')!.payload as { code: string; message: string };
    expect(events.some((event) => event.type === 'graph:node-completed')).toBe(false);
    return { ...failed, posts: dispatchOrder(events).length };
  }
  const chatty = () => ({ summary: 'x'.repeat(500), posts: [{ roomId: 'review', text: 'hi', mentions: ['reviewer'] }] });

  it('DENIED from decideAction', async () => {
    const failure = await writerFailure({ run: chatty, decideAction: () => ({ kind: 'deny', reason: 'not allowed today' }) });
    expect(failure).toMatchObject({ code: 'DENIED', message: 'not allowed today', posts: 1 });
  });

  it('INPUT_LIMIT before the node runs', async () => {
    let ran = false;
    const failure = await writerFailure({ run: () => ((ran = true), chatty()), limits: { inputBytes: 10 } });
    expect(failure.code).toBe('INPUT_LIMIT');
    expect(ran).toBe(false);
  });

  it('TIMEOUT aborts the signal', async () => {
    let aborted = false;
    const failure = await writerFailure({
      run: ({ signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            setTimeout(() => resolve(chatty()), 5);
          });
        }),
      limits: { timeoutMs: 20 },
    });
    expect(failure.code).toBe('TIMEOUT');
    expect(aborted).toBe(true);
  });

  it('EFFECT_FAILED keeps the message, not the stack', async () => {
    const failure = await writerFailure(() => {
      throw new Error('disk on fire');
    });
    expect(failure).toMatchObject({ code: 'EFFECT_FAILED', message: 'disk on fire' });
  });

  it('OUTPUT_LIMIT', async () => {
    expect((await writerFailure({ run: chatty, limits: { outputBytes: 100 } })).code).toBe('OUTPUT_LIMIT');
  });

  it('RESULT_INVALID for a non-JSON result, a contract refusal and a graph refusal', async () => {
    expect((await writerFailure(() => ({ summary: 'x', data: { when: new Date() } }))).code).toBe('RESULT_INVALID');
    expect((await writerFailure(() => ({ summary: 'x', data: Number.NaN }))).code).toBe('RESULT_INVALID');
    const contract = { validate: () => { throw new Error('summary too short'); } };
    expect(await writerFailure({ run: chatty, contract })).toMatchObject({ code: 'RESULT_INVALID', message: expect.stringContaining('summary too short') });
    const outsider = () => ({ summary: 'x', posts: [{ roomId: 'review', text: 'hi', mentions: ['stranger'] }] });
    expect((await writerFailure(outsider)).code).toBe('RESULT_INVALID');
  });

  it('RESULT_TOO_LARGE when storage refuses the outcome', async () => {
    const failure = await writerFailure(() => ({ summary: 'x'.repeat(2000) }), { limits: { maxEventPayloadBytes: 1000 } });
    expect(failure.code).toBe('RESULT_TOO_LARGE');
  });

  it('KNOWN_SECRET when storage refuses the outcome for a secret, without repeating it', async () => {
    const failure = await writerFailure(() => ({ summary: 'the key is hunter2-secret' }), { knownSecrets: ['hunter2-secret'] });
    expect(failure.code).toBe('KNOWN_SECRET');
    expect(failure.message).not.toContain('hunter2-secret');
  });

  it('records a contract-parsed result', async () => {
    const storage = createMemoryStorage();
    const contract = { validate: (value: unknown) => ({ ...(value as object), summary: 'normalised' }) };
    const result = await (
      await createGraphExecutor({ runId: RUN, graph: compileGraph(teamGraphType, soloWriter()), storage, nodes: { writer: { run: () => ({ summary: 'raw' }), contract } } })
    ).run();
    expect(outputOf(result).agents[0]!.result!.summary).toBe('normalised');
  });
});

describe('pause and resume', () => {
  it('pauses after the batch settles, repeats the pause without writing, and resumes with a value', async () => {
    const storage = createMemoryStorage();
    const resumes: unknown[] = [];
    const writer: NodeBinding = {
      run: (ctx) => {
        resumes.push(ctx.resume);
        return seedNodes.writer(ctx);
      },
      decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason: 'Approve publishing?', request: { ask: 'approve' } } : { kind: 'allow' }),
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: { writer, reviewer: seedNodes.reviewer } });
    const paused = await executor.run();
    expect(paused).toEqual({ kind: 'pause', reason: 'Approve publishing?', position: 'team/writer/1', request: { ask: 'approve' } });
    const head = await storage.head(RUN);
    expect(await executor.run()).toEqual(paused);
    expect(await storage.head(RUN)).toBe(head);

    const result = await executor.resume('team/writer/1', { value: { approved: true } });
    expect(result.kind).toBe('pause'); // the writer's second turn asks again
    expect(resumes).toEqual([{ approved: true }]);
    const events = await readAll(storage, RUN);
    const resumed = events.find((event) => event.type === 'graph:node-resumed')!;
    expect(resumed.payload).toEqual({ nodeId: 'writer', position: 'team/writer/1', value: { approved: true } });
    const attempts = events.filter((event) => event.type === 'graph:node-attempt-started' && (event.payload as { position: string }).position === 'team/writer/1');
    expect(attempts.map((event) => (event.payload as { attempt: number }).attempt)).toEqual([1, 2]);
    const final = await executor.resume('team/writer/2', { value: 'ok' });
    expect(final.kind).toBe('complete');
  });

  it('refuses to resume a position that is not an unfinished attempt (PROTOCOL) and writes nothing', async () => {
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes });
    await executor.run();
    const head = await storage.head(RUN);
    for (const position of ['team/writer/1', 'team/writer/9', 'nope']) {
      expect((await rejection(executor.resume(position))).code).toBe('PROTOCOL');
    }
    expect(await storage.head(RUN)).toBe(head);
  });

  it('refuses a re-entrant run (PROTOCOL)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const nodes = { writer: async () => (await gate, { summary: 'w' }), reviewer: seedNodes.reviewer };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes });
    const first = executor.run();
    expect((await rejection(executor.run())).code).toBe('PROTOCOL');
    release();
    expect((await first).kind).toBe('complete');
  });
});

describe('record checks', () => {
  async function completedRecord() {
    const storage = createMemoryStorage();
    await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes })).run();
    return readAll(storage, RUN);
  }

  async function replayTampered(tamper: (events: ReturnType<typeof toNewEvent>[]) => ReturnType<typeof toNewEvent>[]) {
    const events = tamper((await completedRecord()).map(toNewEvent));
    const storage = createMemoryStorage();
    await storage.append(RUN, 0, events);
    let called = false;
    const nodes = { writer: () => ((called = true), { summary: 'x' }), reviewer: () => ((called = true), { summary: 'x' }) };
    const error = await rejection((async () => (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes })).run())());
    expect(called).toBe(false);
    expect(await storage.head(RUN)).toBe(events.length);
    return error;
  }

  const edit = (index: number, change: (payload: Record<string, unknown>) => Record<string, unknown>, version?: number) => (events: ReturnType<typeof toNewEvent>[]) =>
    events.map((event, i) => (i === index ? { ...event, version: version ?? event.version, payload: change({ ...(event.payload as object) }) as never } : event));

  it.each([
    ['a version-2 completion', edit(3, (p) => p, 2)],
    ['an extra payload field', edit(3, (p) => ({ ...p, extra: 1 }))],
    ['a missing payload field', edit(2, ({ retrySafe: _r, ...p }) => p)],
    ['an undeclared node', edit(1, (p) => ({ ...p, nodeId: 'ghost' }))],
    ['a dispatch decide did not return', edit(4, (p) => ({ ...p, nodeId: 'writer', position: 'team/writer/2' }))],
    ['an outcome without an attempt', (events: ReturnType<typeof toNewEvent>[]) => events.filter((_, i) => i !== 2)],
    ['a run-started that is not first', (events: ReturnType<typeof toNewEvent>[]) => [events[1]!, events[0]!, ...events.slice(2)]],
    ['an unknown graph event type', edit(3, (p) => p)],
  ])('refuses %s with INVALID_EVENT before running anything', async (name, tamper) => {
    const apply = name === 'an unknown graph event type' ? (events: ReturnType<typeof toNewEvent>[]) => events.map((e, i) => (i === 3 ? { ...e, type: 'graph:node-exploded' } : e)) : tamper;
    const error = await replayTampered(apply);
    expect(error.code).toBe('INVALID_EVENT');
    expect(isGraphExecutionError(error, 'INVALID_EVENT')).toBe(true);
  });

  it('skips host events outside graph:', async () => {
    const events = (await completedRecord()).map(toNewEvent);
    const storage = createMemoryStorage();
    await storage.append(RUN, 0, events.slice(0, 3));
    await storage.append(RUN, 3, [{ ...events[0]!, eventId: 'host-1', type: 'host:note', payload: { text: 'hi' } }]);
    const result = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes })).run();
    expect(result).toEqual({ kind: 'waiting', positions: ['team/writer/1'] });
  });

  it('refuses a different graph with STORED_GRAPH_MISMATCH before anything runs', async () => {
    const storage = createMemoryStorage();
    await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes })).run();
    const error = await rejection(createGraphExecutor({ runId: RUN, graph: compileSeed({ tailMessages: 4 }), storage, nodes: seedNodes }));
    expect(error.code).toBe('STORED_GRAPH_MISMATCH');
  });

  it('refuses a missing binding with MISSING_NODE_BINDING', async () => {
    const error = await rejection(createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes: { writer: seedNodes.writer } }));
    expect(error.code).toBe('MISSING_NODE_BINDING');
  });
});

describe('concurrency, abort and recovery', () => {
  it('two executors on one run dispatch each position once', async () => {
    const backing = createMemoryBacking();
    const calls: string[] = [];
    const nodes = {
      writer: (ctx: { position: string; input: unknown }) => (calls.push(ctx.position), seedNodes.writer(ctx)),
      reviewer: (ctx: { position: string }) => (calls.push(ctx.position), seedNodes.reviewer()),
    };
    const a = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    const b = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    const results = await Promise.all([a.run(), b.run()]);
    expect(results.some((result) => result.kind === 'complete')).toBe(true);
    const events = await readAll(createMemoryStorage({ backing }), RUN);
    const positions = events.filter((event) => event.type === 'graph:node-dispatched').map((event) => (event.payload as { position: string }).position);
    expect(positions).toEqual(['team/writer/1', 'team/reviewer/1', 'team/writer/2']);
    expect(new Set(calls).size).toBe(calls.length);
    const final = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes })).run();
    expect(final.kind).toBe('complete');
  });

  it('abort: rejects with ABORTED, records no outcome, and a fresh executor recovers', async () => {
    const backing = createMemoryBacking();
    const controller = new AbortController();
    const stuck = { writer: () => new Promise(() => controller.abort()), reviewer: seedNodes.reviewer };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: stuck });
    expect((await rejection(executor.run(controller.signal))).code).toBe('ABORTED');
    const storage = createMemoryStorage({ backing });
    const types = (await readAll(storage, RUN)).map((event) => event.type);
    expect(types).toEqual(['graph:run-started', 'graph:node-dispatched', 'graph:node-attempt-started']);

    // Started but unfinished and not retrySafe: a person decides.
    const fresh = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes });
    expect(await fresh.run()).toEqual({ kind: 'waiting', positions: ['team/writer/1'] });
    const reconcile = await fresh.resume('team/writer/1');
    expect(reconcile).toMatchObject({ kind: 'pause', position: 'team/writer/1', request: { kind: 'reconcile-attempt' } });
    const done = await fresh.resume('team/writer/1', { value: 'run it again' });
    expect(done.kind).toBe('complete');
    const events = await readAll(storage, RUN);
    expect(dispatchOrder(events)).toEqual(['writer', 'reviewer', 'writer']);
    const attempts = events.filter((e) => e.type === 'graph:node-attempt-started').map((e) => (e.payload as { attempt: number }).attempt);
    expect(attempts).toEqual([1, 2, 1, 1]);
  });

  it('an already-aborted signal writes nothing', async () => {
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes });
    expect((await rejection(executor.run(AbortSignal.abort()))).code).toBe('ABORTED');
    expect(await storage.head(RUN)).toBe(0);
  });

  it('re-runs a retrySafe attempt with attempt + 1 on resume, and run() starts a dispatched attempt that never started (ready work, SPEC 20)', async () => {
    const events = (
      await (async () => {
        const storage = createMemoryStorage();
        await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes })).run();
        return readAll(storage, RUN);
      })()
    ).map(toNewEvent);
    // Cut the record just after the first attempt started, and just after the first dispatch.
    for (const [cut, expectedAttempts] of [[3, [1, 2]], [2, [1]]] as const) {
      const storage = createMemoryStorage();
      await storage.append(RUN, 0, events.slice(0, cut));
      const nodes = { writer: { run: seedNodes.writer, retrySafe: true }, reviewer: seedNodes.reviewer };
      const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes });
      if (cut === 3) {
        // Started without an outcome: waiting, until someone knows its process is gone.
        expect(await executor.run()).toEqual({ kind: 'waiting', positions: ['team/writer/1'] });
        expect((await executor.resume('team/writer/1')).kind).toBe('complete');
      } else {
        expect((await executor.run()).kind).toBe('complete');
      }
      const record = await readAll(storage, RUN);
      const writerAttempts = record
        .filter((e) => e.type === 'graph:node-attempt-started' && (e.payload as { position: string }).position === 'team/writer/1')
        .map((e) => (e.payload as { attempt: number }).attempt);
      expect(writerAttempts).toEqual(expectedAttempts);
      expect(record.filter((e) => e.type === 'graph:node-resumed')).toHaveLength(cut === 3 ? 1 : 0);
    }
  });
});

describe('graph types other than team', () => {
  // A one-node graph whose decide is given by the test; state counts completions.
  function customGraph(decide: (completions: number) => ReturnType<GraphTypeFunctions<number>['decide']>) {
    const type: GraphType<number> = {
      kind: 'custom',
      version: 1,
      compile: () => ({
        initialState: () => 0,
        reduce: (state, event) => (event.type === 'graph:node-completed' ? state + 1 : state),
        decide,
        describe: () => ({ kind: 'custom' }),
      }),
    };
    return compileGraph(type, { id: 'custom', definitionVersion: 1, data: {}, nodes: [{ id: 'only', data: {} }], edges: [] });
  }

  it('throws EMPTY_DECISION when decide returns nothing and nothing is in flight', async () => {
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: RUN, graph: customGraph(() => []), storage, nodes: { only: () => 1 } });
    expect((await rejection(executor.run())).code).toBe('EMPTY_DECISION');
    expect(await storage.head(RUN)).toBe(1); // only graph:run-started
  });

  it('throws DUPLICATE_POSITION before writing a position a second time', async () => {
    const storage = createMemoryStorage();
    const graph = customGraph(() => [{ kind: 'dispatch', nodeId: 'only', position: 'p', input: null }]);
    const executor = await createGraphExecutor({ runId: RUN, graph, storage, nodes: { only: () => 1 } });
    expect((await rejection(executor.run())).code).toBe('DUPLICATE_POSITION');
    const types = (await readAll(storage, RUN)).map((event) => event.type);
    expect(types).toEqual(['graph:run-started', 'graph:node-dispatched', 'graph:node-attempt-started', 'graph:node-completed']);
  });

  it('completes with the output decide gives', async () => {
    const graph = customGraph((completions) => (completions < 2 ? [{ kind: 'dispatch', nodeId: 'only', position: `p${completions}`, input: completions }] : [{ kind: 'complete', output: 'done' }]));
    const inputs: unknown[] = [];
    const executor = await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage(), nodes: { only: ({ input }) => (inputs.push(input), 1) } });
    expect(await executor.run()).toEqual({ kind: 'complete', output: 'done' });
    expect(inputs).toEqual([0, 1]);
  });
});
