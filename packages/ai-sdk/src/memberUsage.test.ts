import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { MockLanguageModelV3 } from 'ai/test';
import { aiSdkMember } from './index.js';
import { readAll } from './__fixtures__/testModels.js';

// Issue 22: a budget must count what the provider reports. A provider that reports only output
// tokens (or only input tokens, or a total of 0 beside its parts) still spends the member's
// `tokenBudget`; a turn's recorded total is the reported total, or the sum of the reported
// parts when there is none, and never less than the parts.

/** One side (input or output) of a provider's report: a total and two details, each maybe missing. */
type Side = { readonly total: number | undefined; readonly first: number | undefined; readonly second: number | undefined };
type Report = { readonly input: Side; readonly output: Side };

const NOTHING: Side = { total: undefined, first: undefined, second: undefined };

const TURNS = 4;
const graph = compileGraph(teamGraphType, {
  id: 'usage-pair',
  definitionVersion: 1,
  data: { task: 'Talk.', globalConcurrency: 1, maxTurnsPerMember: TURNS, communication: { rooms: [{ id: 'room', members: ['a', 'b'] }], tailMessages: 2 } },
  nodes: [
    { id: 'a', data: { role: 'a', brief: 'Answer b.', initialTurn: true } },
    { id: 'b', data: { role: 'b', brief: 'Answer a.' } },
  ],
  edges: [],
});

/** A model that answers by mentioning `other`, reporting `reports[n]` as its usage on call n. */
function reportingModel(other: string, reports: readonly Report[]): MockLanguageModelV3 {
  let call = 0;
  return new MockLanguageModelV3({
    provider: 'mock-provider',
    modelId: 'reporting',
    doGenerate: () => {
      const { input, output } = reports[call++] ?? { input: NOTHING, output: NOTHING };
      const text = JSON.stringify({ summary: `turn ${call}`, posts: [{ roomId: 'room', text: `over to ${other}`, mentions: [other] }] });
      return Promise.resolve({
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: input.total, noCache: input.first, cacheRead: input.second, cacheWrite: undefined },
          outputTokens: { total: output.total, text: output.first, reasoning: output.second },
        },
        warnings: [],
      });
    },
  });
}

/** What a side counts: its total, else the sum of its details, else nothing (null). */
const side = ({ total, first, second }: Side) => total ?? (first === undefined && second === undefined ? null : (first ?? 0) + (second ?? 0));
/** What a turn counts: the sum of its sides, null when neither side reported anything. */
const counted = ({ input, output }: Report) => (side(input) === null && side(output) === null ? null : (side(input) ?? 0) + (side(output) ?? 0));

describe('token usage and budgets', () => {
  it('count the reported parts when no total is reported, and a budget stops the member once they reach it', async () => {
    const tokens = fc.option(fc.nat(300), { nil: undefined });
    const sides = fc.record({ total: tokens, first: tokens, second: tokens });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ input: sides, output: sides }), { minLength: TURNS, maxLength: TURNS }), fc.integer({ min: 1, max: 1200 }), async (reports, budget) => {
        const a = reportingModel('b', reports);
        const b = reportingModel('a', []);
        const storage = createMemoryStorage();
        const nodes = { a: aiSdkMember(graph, 'a', { model: a, tokenBudget: budget }), b: aiSdkMember(graph, 'b', { model: b }) };
        await (await createGraphExecutor({ runId: 'usage', graph, storage, nodes })).run();
        // The calls the budget allows: a turn runs while the totals of the turns before it are under the budget.
        let used = 0;
        let allowed = 0;
        while (allowed < TURNS && used < budget) used += counted(reports[allowed++]!) ?? 0;
        expect(a.doGenerateCalls).toHaveLength(allowed);
        const turns = (await readAll(storage, 'usage')).filter((event) => event.type === 'graph:node-completed' && (event.payload as { nodeId: string }).nodeId === 'a');
        let total = 0;
        turns.forEach((event, n) => {
          const data = (event.payload as { result: { data: { usage: { totalTokens: number | null }; memberUsage: { totalTokens: number } } } }).result.data;
          expect(data.usage.totalTokens).toBe(counted(reports[n]!));
          total += counted(reports[n]!) ?? 0;
          expect(data.memberUsage.totalTokens).toBe(total);
        });
      }),
      { numRuns: 60 },
    );
  });
});
