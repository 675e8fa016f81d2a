import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunRecordFolder, compileGraph, teamGraphType } from '@roundtable/graph';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import type { Json } from '@roundtable/core';
import { newEvent } from '@roundtable/test-utils';
import { AttemptFailureCodes, answerPause, cancelRun, createGraphExecutor, isGraphExecutionError } from './index.js';
import type { NodeBinding } from './index.js';
import { askTeam, compileSeed, readAll, scheduledStorage, seedNodes } from './__fixtures__/testTeams.js';

// SPEC 20's cancel: one append of graph:run-cancelled at the expected revision; after it the
// fold takes only outcomes of attempts already started, nothing is dispatched, an executor
// reports `cancelled` once nothing is in flight, and attempts in flight hear of it through
// their signal and are recorded CANCELLED (or completed, when they complete anyway).

const RUN = 'cancel-1';
const types = (events: readonly { type: string }[]) => events.map((event) => event.type.replace('graph:', ''));

const asker: Record<string, NodeBinding> = {
  asker: { decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason: 'May I?', request: { ask: 'go?' } } : { kind: 'allow' }), run: () => ({ summary: 'went' }) },
};

/** Resolves when `check` holds, polling (a hang guard only: vitest's timeout ends a wait that never holds). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('cancelRun', () => {
  it('cancels a paused run in one append; run() then reports cancelled, answers are RUN_ENDED, and a second cancel is RUN_ENDED', async () => {
    const backing = createMemoryBacking();
    const storage = createMemoryStorage({ backing });
    const graph = compileGraph(teamGraphType, askTeam);
    expect((await (await createGraphExecutor({ runId: RUN, graph, storage, nodes: asker })).run()).kind).toBe('pause');
    expect(await cancelRun({ storage, runId: RUN, reason: 'not needed any more' })).toEqual({ revision: 5 });
    const events = await readAll(storage, RUN);
    expect(types(events)).toEqual(['run-started', 'node-dispatched', 'node-attempt-started', 'node-paused', 'run-cancelled']);
    expect(events[4]).toMatchObject({ version: 1, causationId: null, payload: { reason: 'not needed any more' } });

    const executor = await createGraphExecutor({ runId: RUN, graph, storage, nodes: asker });
    expect(await executor.run()).toEqual({ kind: 'cancelled', reason: 'not needed any more', revision: 5 });
    const ended = (error: unknown) => isGraphExecutionError(error, 'RUN_ENDED');
    await expect(answerPause({ storage, runId: RUN, position: 'team/asker/1', value: true })).rejects.toSatisfy(ended);
    await expect(executor.resume('team/asker/1', { value: true })).rejects.toSatisfy(ended);
    await expect(cancelRun({ storage, runId: RUN, reason: 'again' })).rejects.toSatisfy(ended);
    expect(await readAll(storage, RUN)).toHaveLength(5);
  });

  it('is RUN_ENDED for a complete or failed run, PROTOCOL for a bad reason, RUN_NOT_FOUND for no run, and writes nothing', async () => {
    const storage = createMemoryStorage();
    expect((await (await createGraphExecutor({ runId: 'done', graph: compileSeed(), storage, nodes: seedNodes })).run()).kind).toBe('complete');
    const failing = { ...seedNodes, reviewer: () => { throw new Error('no'); } };
    expect((await (await createGraphExecutor({ runId: 'failed', graph: compileSeed(), storage, nodes: failing })).run()).kind).toBe('fail');
    for (const runId of ['done', 'failed']) {
      const before = await readAll(storage, runId);
      await expect(cancelRun({ storage, runId, reason: 'late' })).rejects.toSatisfy((error) => isGraphExecutionError(error, 'RUN_ENDED'));
      expect(await readAll(storage, runId)).toEqual(before);
    }
    for (const reason of ['', 'x'.repeat(1025), 7 as unknown as string]) {
      await expect(cancelRun({ storage, runId: 'done', reason })).rejects.toSatisfy((error) => isGraphExecutionError(error, 'PROTOCOL'));
    }
    expect(await cancelRun({ storage, runId: 'other', reason: 'x'.repeat(1024) }).catch((error: unknown) => error)).toSatisfy((error) => isGraphExecutionError(error, 'RUN_NOT_FOUND'));
  });

  it('aborts an attempt in flight in another executor through change hints: it is recorded CANCELLED, nothing is dispatched after it, and that run() reports cancelled', async () => {
    const backing = createMemoryBacking();
    let started = false;
    let sawAbort = false;
    const nodes = {
      ...seedNodes,
      reviewer: async (ctx: { signal: AbortSignal }) => {
        started = true;
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        sawAbort = true;
        throw ctx.signal.reason;
      },
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    const running = executor.run();
    await until(() => started);
    const other = createMemoryStorage({ backing });
    const { revision } = await cancelRun({ storage: other, runId: RUN, reason: 'stop now' });
    expect(await running).toEqual({ kind: 'cancelled', reason: 'stop now', revision });
    expect(sawAbort).toBe(true);
    const events = await readAll(other, RUN);
    expect(types(events).slice(-2)).toEqual(['run-cancelled', 'node-failed']);
    expect(events.at(-1)!.payload).toMatchObject({ nodeId: 'reviewer', code: AttemptFailureCodes.CANCELLED, message: 'The run was cancelled: stop now' });
  });

  it('aborts an attempt a step (runAttempt, as a worker runs it) has in flight: recorded CANCELLED, the step reports the cancel as next', async () => {
    const backing = createMemoryBacking();
    let started = false;
    const nodes = {
      ...seedNodes,
      writer: async (ctx: { signal: AbortSignal }) => {
        started = true;
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        throw ctx.signal.reason;
      },
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    await executor.advance();
    const step = executor.runAttempt('team/writer/1');
    await until(() => started);
    const { revision } = await cancelRun({ storage: createMemoryStorage({ backing }), runId: RUN, reason: 'from outside' });
    const report = await step;
    expect(report.next).toEqual({ kind: 'cancelled', reason: 'from outside', revision });
    expect(report.written.map((event) => event.type)).toEqual(['graph:node-attempt-started', 'graph:node-failed']);
    expect(report.written.at(-1)!.payload).toMatchObject({ nodeId: 'writer', code: AttemptFailureCodes.CANCELLED });
  });

  it('keeps the result of an attempt that completes anyway, dispatches nothing after it, and retries nothing after a cancel', async () => {
    const backing = createMemoryBacking();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const nodes = {
      ...seedNodes,
      reviewer: {
        run: async () => {
          started = true;
          await gate;
          return seedNodes.reviewer();
        },
      },
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes });
    const running = executor.run();
    await until(() => started);
    await cancelRun({ storage: createMemoryStorage({ backing }), runId: RUN, reason: 'enough' });
    release();
    expect((await running).kind).toBe('cancelled');
    const events = await readAll(createMemoryStorage({ backing }), RUN);
    expect(types(events).slice(-2)).toEqual(['run-cancelled', 'node-completed']);

    // A member with retries that fails after the cancel: failed (CANCELLED), never retried.
    const retryBacking = createMemoryBacking();
    let attempts = 0;
    const retrying = {
      ...seedNodes,
      reviewer: {
        run: async (ctx: { signal: AbortSignal }) => {
          attempts++;
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          throw new Error('interrupted');
        },
        retry: { maxAttempts: 5, codes: ['EFFECT_FAILED', 'CANCELLED'] },
      },
    };
    const second = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing: retryBacking }), nodes: retrying });
    const secondRun = second.run();
    await until(() => attempts === 1);
    await cancelRun({ storage: createMemoryStorage({ backing: retryBacking }), runId: RUN, reason: 'enough' });
    expect((await secondRun).kind).toBe('cancelled');
    expect(attempts).toBe(1);
    expect(types(await readAll(createMemoryStorage({ backing: retryBacking }), RUN)).slice(-1)).toEqual(['node-failed']);
  });

  it('the fold refuses whatever a cancelled run may not take: a dispatch, an attempt start, an answer, a second cancel, and a cancel of an ended run', async () => {
    const storage = createMemoryStorage();
    const graph = compileGraph(teamGraphType, askTeam);
    await (await createGraphExecutor({ runId: RUN, graph, storage, nodes: asker })).run();
    await cancelRun({ storage, runId: RUN, reason: 'r' });
    const record = await readAll(storage, RUN);
    const dispatch = record[1]!;
    const graphEvent = (type: string, payload: Json) => newEvent(`extra-${type}`, payload, { type, correlationId: RUN });
    const cases = [
      graphEvent('graph:node-resumed', { nodeId: 'asker', position: 'team/asker/1', value: null }),
      graphEvent('graph:run-cancelled', { reason: 'again' }),
      graphEvent('graph:node-dispatched', { nodeId: 'asker', position: 'team/asker/2' }),
    ];
    for (const extra of cases) {
      const folder = new RunRecordFolder(graph);
      for (const event of record) folder.apply(event);
      expect(() => folder.apply({ ...extra, revision: record.length + 1 })).toThrow(/cancelled/);
    }
    expect(dispatch.type).toBe('graph:node-dispatched');
    // A cancel written after the run completed is refused by the fold too.
    const done = createMemoryStorage();
    await (await createGraphExecutor({ runId: 'done', graph: compileSeed(), storage: done, nodes: seedNodes })).run();
    const completed = await readAll(done, 'done');
    const folder = new RunRecordFolder(compileSeed());
    for (const event of completed) folder.apply(event);
    expect(() => folder.apply({ ...graphEvent('graph:run-cancelled', { reason: 'late' }), revision: completed.length + 1 })).toThrow(/ended/);
  });

  it('of racing cancels and answers, in any interleaving, exactly one cancel is written, the record folds, and a later run() reports cancelled', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ cancel: fc.boolean(), delays: fc.nat(6) }), { minLength: 2, maxLength: 5 }), fc.scheduler(), async (actors, s) => {
        fc.pre(actors.some((actor) => actor.cancel));
        const backing = createMemoryBacking();
        const graph = compileGraph(teamGraphType, askTeam);
        await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage({ backing }), nodes: asker })).run();
        // Every read and append of every actor waits for the scheduler, which picks the order.
        const scheduled = () => scheduledStorage((label) => s.schedule(Promise.resolve(label)), backing);
        const outcomes = actors.map(async ({ cancel, delays }, index) => {
          for (let step = 0; step < delays; step++) await s.schedule(Promise.resolve(`delay ${index}`));
          const storage = scheduled();
          return cancel ? cancelRun({ storage, runId: RUN, reason: `cancel ${index}` }) : answerPause({ storage, runId: RUN, position: 'team/asker/1', value: index });
        });
        const results = await s.waitFor(Promise.allSettled(outcomes));
        const storage = createMemoryStorage({ backing });
        const events = await readAll(storage, RUN);
        const folder = new RunRecordFolder(graph);
        for (const event of events) folder.apply(event);
        expect(events.filter((event) => event.type === 'graph:run-cancelled')).toHaveLength(1);
        expect(events.filter((event) => event.type === 'graph:node-resumed').length).toBeLessThanOrEqual(1);
        results.forEach((result, index) => {
          if (result.status === 'fulfilled') return;
          const expected = actors[index]!.cancel ? ['RUN_ENDED'] : ['RUN_ENDED', 'STALE_ANSWER'];
          expect(expected.some((code) => isGraphExecutionError(result.reason, code as 'RUN_ENDED')), String(result.reason)).toBe(true);
        });
        const result = await (await createGraphExecutor({ runId: RUN, graph, storage, nodes: asker })).run();
        expect(result.kind).toBe('cancelled');
        expect(await readAll(storage, RUN)).toHaveLength(events.length);
      }),
      { numRuns: 60 },
    );
  });
});

