import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { createGraphExecutor } from './index.js';
import { compileSeed, deterministic, readAll, seedNodes } from './__fixtures__/testTeams.js';

const RUN = 'traced-run';
const contextManager = new AsyncLocalStorageContextManager().enable();
context.setGlobalContextManager(contextManager);
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('roundtable-test');

afterAll(async () => {
  await provider.shutdown();
  context.disable();
  trace.disable();
});

beforeEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();
const named = (prefix: string) => spans().filter((span) => span.name.startsWith(prefix));
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe('tracing: the span tree of a run', () => {
  it('emits one invoke_workflow span per run with an invoke_agent child per attempt of the seed conversation', async () => {
    const storage = createMemoryStorage();
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage, nodes: seedNodes, tracer });
    const result = await executor.run();
    expect(result.kind).toBe('complete');

    const [workflow, ...others] = named('invoke_workflow');
    expect(others).toEqual([]);
    expect(workflow!.name).toBe('invoke_workflow release-team');
    expect(parentOf(workflow!)).toBeUndefined();
    expect(workflow!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.conversation.id': RUN,
      'roundtable.outcome': 'complete',
      'roundtable.revision': await storage.head(RUN),
    });
    expect(workflow!.status.code).toBe(SpanStatusCode.UNSET);

    const agents = named('invoke_agent');
    expect(agents.map((span) => [span.name, span.attributes['roundtable.position'], span.attributes['roundtable.attempt']])).toEqual([
      ['invoke_agent writer', 'team/writer/1', 1],
      ['invoke_agent reviewer', 'team/reviewer/1', 1],
      ['invoke_agent writer', 'team/writer/2', 1],
    ]);
    for (const span of agents) {
      expect(parentOf(span)).toBe(idOf(workflow!));
      expect(span.spanContext().traceId).toBe(workflow!.spanContext().traceId);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': span.name.slice('invoke_agent '.length),
        'gen_ai.conversation.id': RUN,
      });
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.attributes['error.type']).toBeUndefined();
    }
  });

  it('runs member code inside its attempt span, so the spans a member starts nest under it', async () => {
    const nodes = {
      ...seedNodes,
      reviewer: () => trace.getTracer('member').startActiveSpan('review the draft', (span) => {
        span.end();
        return seedNodes.reviewer();
      }),
      writer: async (ctx: { input: unknown }) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        // After an await the attempt's span is still the active one.
        trace.getActiveSpan()?.setAttribute('test.after-await', true);
        return seedNodes.writer(ctx);
      },
    };
    trace.setGlobalTracerProvider(provider);
    try {
      await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes })).run();
    } finally {
      trace.disable();
    }
    const reviewer = named('invoke_agent reviewer')[0]!;
    const work = named('review the draft')[0]!;
    expect(parentOf(work)).toBe(idOf(reviewer));
    expect(named('invoke_agent writer').every((span) => span.attributes['test.after-await'] === true)).toBe(true);
    // Without a tracer option the global provider's tracer is used.
    expect(named('invoke_workflow')).toHaveLength(1);
  });
});

describe('tracing: failures', () => {
  it('marks a failed attempt ERROR with error.type = its failure code, one span per attempt of a retry', async () => {
    const nodes = {
      ...seedNodes,
      writer: { run: () => Promise.reject(new Error('the model is down')), retry: { maxAttempts: 2 } },
    };
    const result = await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes, tracer })).run();
    expect(result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    const attempts = named('invoke_agent writer');
    expect(attempts.map((span) => span.attributes['roundtable.attempt'])).toEqual([1, 2]);
    for (const span of attempts) {
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the model is down' });
      expect(span.attributes['error.type']).toBe('EFFECT_FAILED');
    }
    const workflow = named('invoke_workflow')[0]!;
    expect(workflow.attributes['roundtable.outcome']).toBe('fail');
    expect(workflow.attributes['error.type']).toBe('TEAM_NODE_FAILED');
    expect(workflow.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('records DENIED, RESULT_INVALID and TIMEOUT as the attempt span\'s error.type', async () => {
    const cases = [
      { code: 'DENIED', writer: { run: seedNodes.writer, decideAction: () => ({ kind: 'deny' as const, reason: 'no budget' }) } },
      { code: 'RESULT_INVALID', writer: () => ({ summary: 'x', posts: [{ roomId: 'elsewhere', text: 'hi', mentions: [] }] }) },
      { code: 'TIMEOUT', writer: { run: () => new Promise(() => undefined), limits: { timeoutMs: 5 } } },
    ];
    for (const { code, writer } of cases) {
      exporter.reset();
      await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes: { ...seedNodes, writer }, tracer })).run();
      const [attempt] = named('invoke_agent writer');
      expect(attempt!.attributes['error.type']).toBe(code);
      expect(attempt!.status.code).toBe(SpanStatusCode.ERROR);
    }
  });
});

describe('tracing: replay, resume and the record', () => {
  it('emits the workflow span and no attempt span when a completed run is replayed', async () => {
    const backing = createMemoryBacking();
    await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: seedNodes, tracer })).run();
    exporter.reset();
    const replay = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: seedNodes, tracer });
    await replay.run();
    expect(spans().map((span) => span.name)).toEqual(['invoke_workflow release-team']);
    expect(spans()[0]!.attributes['roundtable.outcome']).toBe('complete');
  });

  it('gives a resume its own workflow span, with the resumed attempt under it', async () => {
    let asked = false;
    const nodes = {
      ...seedNodes,
      reviewer: {
        run: seedNodes.reviewer,
        decideAction: () => {
          if (asked) return { kind: 'allow' as const };
          asked = true;
          return { kind: 'wait' as const, reason: 'A person approves the review.', request: { kind: 'approval' } };
        },
      },
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes, tracer });
    const paused = await executor.run();
    expect(paused.kind).toBe('pause');
    const first = named('invoke_workflow')[0]!;
    expect(first.attributes['roundtable.outcome']).toBe('pause');
    expect(named('invoke_agent reviewer')[0]!.attributes['roundtable.attempt.outcome']).toBe('paused');
    exporter.reset();
    expect((await executor.resume('team/reviewer/1', { value: 'approved' })).kind).toBe('complete');
    const workflow = named('invoke_workflow')[0]!;
    expect(workflow.attributes).toMatchObject({ 'roundtable.outcome': 'complete', 'roundtable.operation': 'resume', 'roundtable.position': 'team/reviewer/1' });
    const resumed = named('invoke_agent reviewer')[0]!;
    expect(resumed.attributes['roundtable.attempt']).toBe(2);
    expect(parentOf(resumed)).toBe(idOf(workflow));
  });

  it('ends the attempt span of an aborted run without an error, marks the call ABORTED, and a later run waiting', async () => {
    const backing = createMemoryBacking();
    const controller = new AbortController();
    const nodes = {
      ...seedNodes,
      writer: () => {
        controller.abort();
        return new Promise<never>(() => undefined);
      },
    };
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes, tracer });
    await expect(executor.run(controller.signal)).rejects.toMatchObject({ code: 'ABORTED' });
    const [attempt] = named('invoke_agent writer');
    expect(attempt!.attributes['roundtable.attempt.outcome']).toBe('aborted');
    expect(attempt!.status.code).toBe(SpanStatusCode.UNSET);
    const [aborted] = named('invoke_workflow');
    expect(aborted!.attributes['error.type']).toBe('ABORTED');
    expect(aborted!.status.code).toBe(SpanStatusCode.ERROR);

    exporter.reset();
    const fresh = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage({ backing }), nodes: seedNodes, tracer });
    expect((await fresh.run()).kind).toBe('waiting');
    expect(spans().map((span) => [span.name, span.attributes['roundtable.outcome']])).toEqual([['invoke_workflow release-team', 'waiting']]);
  });

  it('marks a call that throws (PROTOCOL) as an error span and writes nothing about tracing to the record', async () => {
    const executor = await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: createMemoryStorage(), nodes: seedNodes, tracer });
    await expect(executor.resume('team/nobody/1')).rejects.toMatchObject({ code: 'PROTOCOL' });
    expect(named('invoke_workflow')[0]!.attributes['error.type']).toBe('PROTOCOL');

    const traced = createMemoryStorage();
    const plain = createMemoryStorage();
    await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: traced, nodes: seedNodes, tracer, ...deterministic() })).run();
    await (await createGraphExecutor({ runId: RUN, graph: compileSeed(), storage: plain, nodes: seedNodes, ...deterministic() })).run();
    expect(await readAll(traced, RUN)).toEqual(await readAll(plain, RUN));
  });
});

/** `a` − `b` in nanoseconds, for two span times ([seconds, nanoseconds]). */
const nanosBetween = (a: readonly [number, number], b: readonly [number, number]) => (a[0] - b[0]) * 1e9 + (a[1] - b[1]);

describe('tracing: span times', () => {
  it('nest: every attempt span lies within its workflow span, and a span the member starts within its attempt span, over many runs', async () => {
    const RUNS = 150;
    // The writer starts a span of its own, as the AI SDK does, with the SDK's own times.
    const nodes = {
      ...seedNodes,
      writer: (ctx: Parameters<typeof seedNodes.writer>[0]) => tracer.startActiveSpan('member work', (span) => {
        const result = seedNodes.writer(ctx);
        span.end();
        return result;
      }),
    };
    for (let n = 0; n < RUNS; n++) {
      const executor = await createGraphExecutor({ runId: `${RUN}-${n}`, graph: compileSeed(), storage: createMemoryStorage(), nodes, tracer });
      expect((await executor.run()).kind).toBe('complete');
    }
    const attempts = new Map(named('invoke_agent').map((span) => [idOf(span), span]));
    const own = named('member work');
    expect(own).toHaveLength(2 * RUNS);
    for (const span of own) {
      const attempt = attempts.get(parentOf(span)!)!;
      expect(nanosBetween(span.startTime, attempt.startTime)).toBeGreaterThanOrEqual(0);
      expect(nanosBetween(attempt.endTime, span.endTime)).toBeGreaterThanOrEqual(0);
    }
    const workflows = new Map(named('invoke_workflow').map((span) => [idOf(span), span]));
    expect(workflows.size).toBe(RUNS);
    const agents = named('invoke_agent');
    expect(agents).toHaveLength(3 * RUNS);
    for (const agent of agents) {
      const workflow = workflows.get(parentOf(agent)!)!;
      expect(nanosBetween(agent.startTime, workflow.startTime), agent.name).toBeGreaterThanOrEqual(0);
      expect(nanosBetween(workflow.endTime, agent.endTime), agent.name).toBeGreaterThanOrEqual(0);
    }
  });
});
