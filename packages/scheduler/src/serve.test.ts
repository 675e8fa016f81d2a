import { describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { compileGraph, isGraphExecutionError, teamGraphType } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { answerPause, cancelRun, createGraphExecutor } from './index.js';
import type { GraphRunResult, NodeBinding } from './index.js';
import { askTeam, compileSeed, readAll, seedNodes } from './__fixtures__/testTeams.js';

// SPEC 20's serve: `run`, but where run would return pause or waiting it follows the record and
// goes on once an answer, a cancel or another process's outcome is appended; an abort gives what
// run would report then. Each actor below has its own storage instance over one backing, as
// another process would.

const HOUR = 3_600_000;
const graph = compileGraph(teamGraphType, askTeam);

function asker(seen: unknown[]): Record<string, NodeBinding> {
  return {
    asker: {
      decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason: 'May I?', request: { ask: 'go?' } } : { kind: 'allow' }),
      run: (ctx) => {
        seen.push(ctx.resume);
        return { summary: 'went' };
      },
    },
  };
}

/** Resolves once `storage`'s record of `runId` has `type` (a hang guard only: vitest's timeout ends a wait that never holds). */
async function untilRecorded(storage: RunStorage, runId: string, type: string): Promise<void> {
  while (!(await readAll(storage, runId)).some((event) => event.type === type)) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Whether `promise` is still pending after the event loop has had `ms` to settle it. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  return !settled;
}

describe('executor.serve', () => {
  it('waits at a pause and goes on when another instance answers it: woken by the change hint, not a poll', async () => {
    const backing = createMemoryBacking();
    const seen: unknown[] = [];
    const executor = await createGraphExecutor({ runId: 'served', graph, storage: createMemoryStorage({ backing }), nodes: asker(seen) });
    // A poll interval of an hour: only the hint can wake it before the test's timeout.
    const served = executor.serve({ pollIntervalMs: HOUR });
    const operator = createMemoryStorage({ backing });
    await untilRecorded(operator, 'served', 'graph:node-paused');
    expect(await pendingAfter(served, 50)).toBe(true);
    const paused = (await readAll(operator, 'served')).find((event) => event.type === 'graph:node-paused')!;
    await answerPause({ storage: operator, runId: 'served', position: 'team/asker/1', value: { approved: true }, pausedAt: paused.revision });
    const result = await served;
    expect(result.kind).toBe('complete');
    expect(seen).toEqual([{ approved: true }]);
    // The served run equals what run() and resume() give and write for the same answer.
    const reference = createMemoryStorage();
    const direct = await createGraphExecutor({ runId: 'served', graph, storage: reference, nodes: asker([]) });
    expect((await direct.run()).kind).toBe('pause');
    expect(await direct.resume('team/asker/1', { value: { approved: true } })).toEqual(result);
    expect((await readAll(operator, 'served')).map((event) => event.type)).toEqual((await readAll(reference, 'served')).map((event) => event.type));
  });

  it('two processes serving one paused run: the answer is run once, both resolve with the same result, each pass is its own span', async () => {
    const backing = createMemoryBacking();
    const seen: unknown[] = [];
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('serve-test');
    const servers = await Promise.all([0, 1].map(() => createGraphExecutor({ runId: 'twice', graph, storage: createMemoryStorage({ backing }), nodes: asker(seen), tracer })));
    const served = servers.map((executor) => executor.serve({ pollIntervalMs: HOUR }));
    const operator = createMemoryStorage({ backing });
    await untilRecorded(operator, 'twice', 'graph:node-paused');
    await answerPause({ storage: operator, runId: 'twice', position: 'team/asker/1', value: 'once' });
    const [first, second] = await Promise.all(served);
    expect(first!.kind).toBe('complete');
    expect(second).toEqual(first);
    expect(seen).toEqual(['once']);
    const starts = (await readAll(operator, 'twice')).filter((event) => event.type === 'graph:node-attempt-started');
    expect(starts).toHaveLength(2); // the paused attempt and its answered re-run, each started once
    const spans = exporter.getFinishedSpans().filter((span) => span.name.startsWith('invoke_workflow'));
    // At least a pass that paused and one that completed per server, each a span of its own.
    expect(spans.length).toBeGreaterThanOrEqual(4);
    expect(spans.every((span) => span.attributes['roundtable.operation'] === 'serve')).toBe(true);
    expect(spans.filter((span) => span.attributes['roundtable.outcome'] === 'complete')).toHaveLength(2);
  });

  it('resolves cancelled when the paused run is cancelled, writing nothing itself', async () => {
    const backing = createMemoryBacking();
    const executor = await createGraphExecutor({ runId: 'to-cancel', graph, storage: createMemoryStorage({ backing }), nodes: asker([]) });
    const served = executor.serve({ pollIntervalMs: HOUR });
    const operator = createMemoryStorage({ backing });
    await untilRecorded(operator, 'to-cancel', 'graph:node-paused');
    const { revision } = await cancelRun({ storage: operator, runId: 'to-cancel', reason: 'not needed' });
    expect(await served).toEqual({ kind: 'cancelled', reason: 'not needed', revision });
    expect(await operator.head('to-cancel')).toBe(revision);
  });

  it("waits for an attempt another executor runs, then carries the run on from that attempt's outcome", async () => {
    const backing = createMemoryBacking();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slowWriter: Record<string, NodeBinding> = {
      ...seedNodes,
      writer: async (ctx) => {
        await held;
        return seedNodes.writer(ctx);
      },
    };
    const other = await createGraphExecutor({ runId: 'shared', graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: slowWriter });
    await other.advance();
    const elsewhere = other.runAttempt('team/writer/1');
    const operator = createMemoryStorage({ backing });
    await untilRecorded(operator, 'shared', 'graph:node-attempt-started');
    const executor = await createGraphExecutor({ runId: 'shared', graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: seedNodes });
    // run() would return waiting here; serve stays.
    const served = executor.serve({ pollIntervalMs: HOUR });
    expect(await pendingAfter(served, 50)).toBe(true);
    release();
    await elsewhere;
    const result = await served;
    expect(result.kind).toBe('complete');
    const reference = await (await createGraphExecutor({ runId: 'shared', graph: compileSeed(), storage: createMemoryStorage(), nodes: seedNodes })).run();
    expect(result).toEqual(reference);
  });

  it('polls the head when the storage gives no change hints', async () => {
    const backing = createMemoryBacking();
    const silent: RunStorage = { ...createMemoryStorage({ backing }) };
    delete (silent as { changes?: unknown }).changes;
    const executor = await createGraphExecutor({ runId: 'polled', graph, storage: silent, nodes: asker([]) });
    const served = executor.serve({ pollIntervalMs: 20 });
    const operator = createMemoryStorage({ backing });
    await untilRecorded(operator, 'polled', 'graph:node-paused');
    await answerPause({ storage: operator, runId: 'polled', position: 'team/asker/1', value: 'yes' });
    expect((await served).kind).toBe('complete');
  });

  it('resolves on abort with what run() would report: the pause while paused, waiting for an attempt it was running', async () => {
    const backing = createMemoryBacking();
    const storage = createMemoryStorage({ backing });
    const executor = await createGraphExecutor({ runId: 'stopped', graph, storage, nodes: asker([]) });
    const controller = new AbortController();
    const served = executor.serve({ signal: controller.signal, pollIntervalMs: HOUR });
    await untilRecorded(storage, 'stopped', 'graph:node-paused');
    controller.abort();
    const result = await served;
    expect(result).toEqual(await (await createGraphExecutor({ runId: 'stopped', graph, storage, nodes: asker([]) })).run());
    expect(result.kind).toBe('pause');

    // An attempt that is running when the abort comes gets the abort in its signal and stays unfinished.
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const stubborn: Record<string, NodeBinding> = {
      ...seedNodes,
      writer: (ctx) =>
        new Promise((_resolve, reject) => {
          started();
          ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        }),
    };
    const second = new AbortController();
    const busy = await createGraphExecutor({ runId: 'busy', graph: compileSeed(), storage, nodes: stubborn });
    const pass = busy.serve({ signal: second.signal });
    await running;
    second.abort();
    const stopped: GraphRunResult = await pass;
    expect(stopped).toEqual({ kind: 'waiting', positions: ['team/writer/1'] });
    expect((await readAll(storage, 'busy')).map((event) => event.type).at(-1)).toBe('graph:node-attempt-started');
    // And a signal aborted before the start writes nothing: the standing result of an empty record.
    expect(await (await createGraphExecutor({ runId: 'never', graph, storage, nodes: asker([]) })).serve({ signal: AbortSignal.abort() })).toEqual({ kind: 'waiting', positions: [] });
    expect(await storage.head('never')).toBe(0);
  });

  it('refuses a bad pollIntervalMs with PROTOCOL before it writes anything', async () => {
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: 'bad-poll', graph, storage, nodes: asker([]) });
    for (const pollIntervalMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '50' as unknown as number]) {
      await expect(executor.serve({ pollIntervalMs })).rejects.toSatisfy((error) => isGraphExecutionError(error, 'PROTOCOL'));
    }
    expect(await storage.head('bad-poll')).toBe(0);
  });

  it('is one session at a time: run, resume or a step while it serves is PROTOCOL', async () => {
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: 'alone', graph, storage, nodes: asker([]) });
    const controller = new AbortController();
    const served = executor.serve({ signal: controller.signal, pollIntervalMs: HOUR });
    await untilRecorded(storage, 'alone', 'graph:node-paused');
    const protocol = (error: unknown) => isGraphExecutionError(error, 'PROTOCOL');
    await expect(executor.run()).rejects.toSatisfy(protocol);
    await expect(executor.serve()).rejects.toSatisfy(protocol);
    await expect(executor.resume('team/asker/1', { value: true })).rejects.toSatisfy(protocol);
    await expect(executor.advance()).rejects.toSatisfy(protocol);
    controller.abort();
    expect((await served).kind).toBe('pause');
    // Once it has returned, the executor takes calls again.
    expect((await executor.resume('team/asker/1', { value: true })).kind).toBe('complete');
  });
});
