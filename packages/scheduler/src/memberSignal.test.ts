import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { TeamTurnResult } from '@roundtable/graph';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor, isGraphExecutionError } from './index.js';
import type { NodeContext } from './index.js';
import { compileSeed, readAll, seedNodes } from './__fixtures__/testTeams.js';

// ctx.signal is made only when a member reads it (issue 12: no AbortController, listener or
// timeout race per attempt when nothing needs one). These pin down that it still behaves as one
// signal per attempt: aborted with the run, or by the timeout, and never after the attempt.

const RUN = 'signal-1';
const done: TeamTurnResult = { summary: 'Done.' };

describe('ctx.signal', () => {
  it('is aborted with the run\'s reason, even when a synchronous member reads it only after aborting the run itself', async () => {
    const controller = new AbortController();
    let seen: NodeContext | null = null;
    const nodes = {
      ...seedNodes,
      writer: (ctx: NodeContext) => {
        seen = ctx;
        controller.abort(new Error('host stopped'));
        return done;
      },
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes });
    await expect(executor.run(controller.signal)).rejects.toSatisfy((error: unknown) => isGraphExecutionError(error, 'ABORTED'));
    const signal = (seen as NodeContext | null)!.signal;
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('host stopped');
  });

  it('survives a spread copy of the context and follows the run\'s abort into an awaited member', async () => {
    const controller = new AbortController();
    let heard = false;
    const nodes = {
      ...seedNodes,
      writer: (ctx: NodeContext) => {
        const copy = { ...ctx };
        return new Promise<TeamTurnResult>((resolve) => {
          copy.signal.addEventListener('abort', () => {
            heard = true;
            resolve(done);
          });
          setTimeout(() => controller.abort(), 5);
        });
      },
    };
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes });
    await expect(executor.run(controller.signal)).rejects.toSatisfy((error: unknown) => isGraphExecutionError(error, 'ABORTED'));
    expect(heard).toBe(true);
    // The aborted attempt records no outcome.
    expect((await readAll(storage, RUN)).map((event) => event.type)).toEqual(['graph:run-started', 'graph:node-dispatched', 'graph:node-attempt-started']);
  });

  it('is aborted by the timeout with a "Timed out" reason when the member reads it only after the timeout passed', async () => {
    let late: AbortSignal | null = null;
    const nodes = {
      ...seedNodes,
      writer: {
        run: (ctx: NodeContext) =>
          new Promise<TeamTurnResult>((resolve) => {
            setTimeout(() => {
              late = ctx.signal;
              resolve(done);
            }, 60);
          }),
        limits: { timeoutMs: 10 },
      },
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes });
    const result = await executor.run();
    expect(result).toMatchObject({ kind: 'fail', failures: [{ memberId: 'writer', code: 'TIMEOUT' }] });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(late).not.toBeNull();
    expect((late as AbortSignal | null)!.aborted).toBe(true);
    expect(((late as AbortSignal | null)!.reason as Error).message).toBe('Timed out after 10 ms.');
  });

  it('stops following the run once its attempt is over, and leaves no listener on the run\'s signal', async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const listening: number[] = [];
    const reading = (member: (ctx: NodeContext) => TeamTurnResult) => async (ctx: NodeContext) => {
      signals.push(ctx.signal);
      listening.push(getEventListeners(controller.signal, 'abort').length);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return member(ctx);
    };
    const nodes = { writer: reading(seedNodes.writer), reviewer: reading(seedNodes.reviewer) };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes });
    expect((await executor.run(controller.signal)).kind).toBe('complete');
    expect(signals).toHaveLength(3);
    // While an attempt that holds its signal runs, the run's signal has exactly that one listener.
    expect(listening).toEqual([1, 1, 1]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false, false]);
  });

  it('is an own enumerable property of a frozen plain context, each context giving its own attempt\'s signal', async () => {
    const contexts: NodeContext[] = [];
    const keep = (member: (ctx: NodeContext) => TeamTurnResult) => (ctx: NodeContext) => (contexts.push(ctx), member(ctx));
    const nodes = { writer: keep(seedNodes.writer), reviewer: keep(seedNodes.reviewer) };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes });
    expect((await executor.run()).kind).toBe('complete');
    expect(contexts).toHaveLength(3);
    for (const ctx of contexts) {
      expect(Object.isFrozen(ctx)).toBe(true);
      expect(Object.getPrototypeOf(ctx)).toBe(Object.prototype);
      expect(Object.keys(ctx)).toEqual(['input', 'nodeId', 'position', 'resume', 'attempt', 'pause', 'previousFailure', 'signal']);
      expect(Object.getOwnPropertyDescriptor(ctx, 'signal')).toMatchObject({ enumerable: true, configurable: false });
    }
    const signals = contexts.map((ctx) => ctx.signal);
    expect(new Set(signals).size).toBe(3);
    expect(contexts.every((ctx, index) => ({ ...ctx }).signal === signals[index])).toBe(true);
    expect(signals.every((signal) => signal instanceof AbortSignal && !signal.aborted)).toBe(true);
  });

  it('follows a thenable that is not a promise, reading its then once, as await would', async () => {
    let reads = 0;
    const thenable = {
      get then() {
        reads++;
        return (resolve: (value: unknown) => void) => resolve({ then: (inner: (value: unknown) => void) => inner(done) });
      },
    };
    const nodes = { ...seedNodes, writer: () => thenable };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes });
    expect(await executor.run()).toMatchObject({ kind: 'complete', output: { agents: [{ name: 'writer', result: done }, { name: 'reviewer', result: null }] } });
    expect(reads).toBe(1);
  });
});
