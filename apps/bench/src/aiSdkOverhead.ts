import { aiSdkMember } from '@roundtable/ai-sdk';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { CompiledGraph, TeamState, TeamTurnResult } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import type { NodeBinding } from '@roundtable/scheduler';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { MockLanguageModelV3 } from 'ai/test';
import { pingPongTeam } from './pingPongTeam.js';

export interface AiSdkOverheadReport {
  turns: number;
  /** Ping-pong on memory storage with plain function members returning the same answers. */
  functionUsPerTurn: number;
  /** The same run with `aiSdkMember` over a mock model that answers at once. */
  aiSdkUsPerTurn: number;
  /** What the ai-sdk member adds per turn: prompt, schema, generateText, parsing, usage. */
  overheadUsPerTurn: number;
  /** One bare `doGenerate` call of the mock model, for scale. */
  mockCallUs: number;
}

const POST = 'x'.repeat(90);

/** The answer of turn `turn` of `self`: the same for function and model members. */
function answer(self: string, other: string, turn: number, turns: number): TeamTurnResult {
  if (self === 'pong' && turn * 2 >= turns) return { summary: 'done' };
  return { summary: `turn ${turn}`, posts: [{ roomId: 'table', text: `${self} ${turn} ${POST}`, mentions: [other] }] };
}

function mockModel(self: string, other: string, turns: number): MockLanguageModelV3 {
  let turn = 0;
  return new MockLanguageModelV3({
    provider: 'bench',
    modelId: `${self}-mock`,
    doGenerate: () => {
      turn++;
      return Promise.resolve({
        content: [{ type: 'text', text: JSON.stringify(answer(self, other, turn, turns)) }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: { inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 20, text: 20, reasoning: undefined } },
        warnings: [],
      });
    },
  });
}

async function timeRun(turns: number, nodes: (graph: CompiledGraph<TeamState>) => Record<string, NodeBinding>): Promise<number> {
  const graph = compileGraph(teamGraphType, pingPongTeam(turns));
  const storage = createMemoryStorage();
  const started = performance.now();
  const result = await (await createGraphExecutor({ runId: 'bench', graph, storage, nodes: nodes(graph) })).run();
  const ms = performance.now() - started;
  if (result.kind !== 'complete') throw new Error(`The workload ended with ${JSON.stringify(result).slice(0, 300)}`);
  const done = ((await storage.head('bench')) - 1) / 3;
  return (ms * 1000) / done;
}

/** The ai-sdk member's cost per turn over a mock model call, on the ping-pong workload in memory. */
export async function benchAiSdkOverhead(turns: number): Promise<AiSdkOverheadReport> {
  const functionMember = (self: string, other: string, total: number) => (ctx: { position: string }) => answer(self, other, Number(ctx.position.split('/').at(-1)), total);
  const functionMembers = (total: number) => () => ({ ping: functionMember('ping', 'pong', total), pong: functionMember('pong', 'ping', total) });
  const modelMembers = (total: number) => (graph: CompiledGraph<TeamState>) => ({
    ping: aiSdkMember(graph, 'ping', { model: mockModel('ping', 'pong', total) }),
    pong: aiSdkMember(graph, 'pong', { model: mockModel('pong', 'ping', total) }),
  });
  // Warm both paths up once so the JIT does not bill the first measured run.
  const warmUp = Math.min(turns, 200);
  await timeRun(warmUp, functionMembers(warmUp));
  await timeRun(warmUp, modelMembers(warmUp));
  const functionUsPerTurn = await timeRun(turns, functionMembers(turns));
  const aiSdkUsPerTurn = await timeRun(turns, modelMembers(turns));
  const bare = mockModel('ping', 'pong', Number.MAX_SAFE_INTEGER);
  const call = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] } as Parameters<MockLanguageModelV3['doGenerate']>[0];
  const calls = 2_000;
  const started = performance.now();
  for (let i = 0; i < calls; i++) await bare.doGenerate(call);
  const mockCallUs = ((performance.now() - started) * 1000) / calls;
  return { turns, functionUsPerTurn, aiSdkUsPerTurn, overheadUsPerTurn: aiSdkUsPerTurn - functionUsPerTurn, mockCallUs };
}
