import { afterAll, describe, expect, it } from 'vitest';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createGraphExecutor, teamMembers } from '@roundtable/scheduler';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { tool } from 'ai';
import { z } from 'zod';
import { aiSdkMember } from './index.js';
import { compileThreeRoomTeam, scriptedModel } from './__fixtures__/testModels.js';

const contextManager = new AsyncLocalStorageContextManager().enable();
context.setGlobalContextManager(contextManager);
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
// The host registers a provider; the scheduler and the AI SDK both use the global one.
trace.setGlobalTracerProvider(provider);

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('aiSdkMember under the scheduler\'s spans', () => {
  it("nests the AI SDK's own spans (generateText, the model call, tool calls) under invoke_agent, and none on replay", async () => {
    const graph = compileThreeRoomTeam({ maxTurnsPerMember: 1 });
    const lookup = tool({ description: 'Look up.', inputSchema: z.object({ id: z.string() }), execute: ({ id }) => Promise.resolve(`entry ${id}`) });
    const writer = scriptedModel((_call, index) => (index === 0 ? { toolCalls: [{ toolName: 'lookup', input: { id: 'c-1' } }] } : { json: { summary: 'Looked it up.' } }));
    const quiet = scriptedModel(() => ({ json: { summary: 'quiet' } }));
    const nodes = teamMembers(graph, {
      writer: aiSdkMember(graph, 'writer', { model: writer, tools: { lookup } }),
      reviewer: aiSdkMember(graph, 'reviewer', { model: quiet }),
      deployer: aiSdkMember(graph, 'deployer', { model: quiet }),
    });
    const backing = createMemoryBacking();
    const result = await (await createGraphExecutor({ runId: 'traced', graph, storage: createMemoryStorage({ backing }), nodes })).run();
    expect(result.kind).toBe('complete');

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((span) => span.name === name);
    const [workflow] = byName('invoke_workflow release-team');
    const [agent] = byName('invoke_agent writer');
    expect(parentOf(agent!)).toBe(idOf(workflow!));
    const [generate] = byName('ai.generateText');
    expect(parentOf(generate!)).toBe(idOf(agent!));
    expect(generate!.attributes['ai.telemetry.functionId']).toBe('roundtable.member.writer');
    const modelCalls = byName('ai.generateText.doGenerate');
    expect(modelCalls).toHaveLength(2);
    for (const call of modelCalls) expect(parentOf(call)).toBe(idOf(generate!));
    const [toolCall] = byName('ai.toolCall');
    expect(parentOf(toolCall!)).toBe(idOf(generate!));
    expect(agent!.status.code).toBe(SpanStatusCode.UNSET);

    exporter.reset();
    await (await createGraphExecutor({ runId: 'traced', graph, storage: createMemoryStorage({ backing }), nodes })).run();
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['invoke_workflow release-team']);
  });

  it('marks the attempt span of a refused answer ERROR with error.type RESULT_INVALID, and can turn the SDK spans off', async () => {
    exporter.reset();
    const graph = compileThreeRoomTeam({ maxTurnsPerMember: 1 });
    const bad = scriptedModel(() => ({ text: 'not json' }));
    const quiet = scriptedModel(() => ({ json: { summary: 'quiet' } }));
    const nodes = teamMembers(graph, {
      writer: aiSdkMember(graph, 'writer', { model: bad, retry: { maxAttempts: 1 }, telemetry: { isEnabled: false } }),
      reviewer: aiSdkMember(graph, 'reviewer', { model: quiet }),
      deployer: aiSdkMember(graph, 'deployer', { model: quiet }),
    });
    await (await createGraphExecutor({ runId: 'refused', graph, storage: createMemoryStorage(), nodes })).run();
    const spans = exporter.getFinishedSpans();
    const [agent] = spans.filter((span) => span.name === 'invoke_agent writer');
    expect(agent!.attributes['error.type']).toBe('RESULT_INVALID');
    expect(agent!.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans.some((span) => span.name.startsWith('ai.'))).toBe(false);
  });
});
