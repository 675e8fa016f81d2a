// Fixtures of this package's tests (not exported): a three-member team and scripted mock models.
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition } from '@roundtable/graph';
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { GraphRunResult, NodeBinding } from '@roundtable/scheduler';
import type { RunStorage } from '@roundtable/storage';
import { aiSdkMember } from '../index.js';

export { readAll } from '@roundtable/test-utils';
import { MockLanguageModelV3 } from 'ai/test';

/** writer and reviewer share "review"; writer and deployer share "ops"; reviewer and deployer share "back-room". */
export function threeRoomTeam(overrides: { maxTurnsPerMember?: number; tailMessages?: number } = {}): TeamDefinition {
  return {
    id: 'release-team',
    definitionVersion: 1,
    data: {
      task: 'Ship the release notes for version 2.0.',
      globalConcurrency: 1,
      maxTurnsPerMember: overrides.maxTurnsPerMember ?? 2,
      communication: {
        rooms: [
          { id: 'review', members: ['writer', 'reviewer'] },
          { id: 'ops', members: ['writer', 'deployer'] },
          { id: 'back-room', members: ['reviewer', 'deployer'] },
        ],
        tailMessages: overrides.tailMessages ?? 5,
      },
    },
    nodes: [
      { id: 'writer', data: { role: 'technical writer', brief: 'Draft the notes, ask for a review, then apply it.' } },
      { id: 'reviewer', data: { role: 'reviewer', brief: 'Review the draft and reply to the writer.', initialTurn: false } },
      { id: 'deployer', data: { role: 'deployer', brief: 'Deploy when asked.', initialTurn: false } },
    ],
    edges: [],
  };
}

export const compileThreeRoomTeam = (overrides?: Parameters<typeof threeRoomTeam>[0]) => compileGraph(teamGraphType, threeRoomTeam(overrides));

/** One model answer: an object (sent as JSON text), raw text, or tool calls. */
export type ScriptedAnswer =
  | { readonly json: unknown; readonly usage?: readonly [number, number] }
  | { readonly text: string; readonly usage?: readonly [number, number] }
  | { readonly toolCalls: readonly { readonly toolName: string; readonly input: unknown }[]; readonly usage?: readonly [number, number] };

export function usageOf([input, output]: readonly [number, number] = [10, 5]): LanguageModelV3GenerateResult['usage'] {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

let toolCallCounter = 0;

export function generateResult(answer: ScriptedAnswer): LanguageModelV3GenerateResult {
  const usage = usageOf(answer.usage);
  if ('toolCalls' in answer) {
    const content: LanguageModelV3Content[] = answer.toolCalls.map((call) => ({
      type: 'tool-call',
      toolCallId: `call-${++toolCallCounter}`,
      toolName: call.toolName,
      input: JSON.stringify(call.input),
    }));
    return { content, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
  }
  const text = 'json' in answer ? JSON.stringify(answer.json) : answer.text;
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
}

/**
 * A mock model that answers from `script(call, index)`: the call's options (prompt, schema,
 * abort signal) stay in `model.doGenerateCalls` for the test to inspect.
 */
export function scriptedModel(script: (call: LanguageModelV3CallOptions, index: number) => ScriptedAnswer | Promise<ScriptedAnswer>, modelId = 'scripted'): MockLanguageModelV3 {
  let index = 0;
  return new MockLanguageModelV3({
    provider: 'mock-provider',
    modelId,
    doGenerate: async (call) => generateResult(await script(call, index++)),
  });
}

/** The text of every system and user message of one model call. */
export function promptText(call: LanguageModelV3CallOptions): { system: string; user: string } {
  const system = call.prompt.filter((message) => message.role === 'system').map((message) => message.content).join('\n');
  const user = call.prompt
    .filter((message) => message.role === 'user')
    .flatMap((message) => message.content)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');
  return { system, user };
}

/** Runs the three-room team once on `storage`: `writer` as the writer, quiet models as reviewer and deployer. */
export async function runWithWriter(runId: string, graph: ReturnType<typeof compileThreeRoomTeam>, storage: RunStorage, writer: NodeBinding): Promise<GraphRunResult> {
  const quiet = scriptedModel(() => ({ json: { summary: 'quiet' } }));
  const nodes = { writer, reviewer: aiSdkMember(graph, 'reviewer', { model: quiet }), deployer: aiSdkMember(graph, 'deployer', { model: quiet }) };
  return (await createGraphExecutor({ runId, graph, storage, nodes })).run();
}
