import { describe, expect, it } from 'vitest';
import type { Json } from '@roundtable/core';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { answerPause, createGraphExecutor } from './index.js';
import type { NodeBinding } from './index.js';
import { askTeam, readAll } from './__fixtures__/testTeams.js';

// SPEC 20's ready work: an answer recorded by anyone (answerPause needs no member code) is
// started by any executor's run(), without resume; racing executors run it once, fenced by the
// attempt-start append.

const RUN = 'ready-1';
const graph = () => compileGraph(teamGraphType, askTeam);

function asker(runs: Json[]): Record<string, NodeBinding> {
  return {
    asker: {
      decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason: 'May I?', request: { ask: 'go?' } } : { kind: 'allow' }),
      run: async (ctx) => {
        runs.push(ctx.resume);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return { summary: `went with ${JSON.stringify(ctx.resume)}` };
      },
    },
  };
}

describe('ready work', () => {
  it('an answer written by answerPause is run by run() of executors that hold the members; of several racing, the attempt runs once', async () => {
    for (const racers of [1, 2, 4]) {
      const backing = createMemoryBacking();
      const runs: Json[] = [];
      const first = await createGraphExecutor({ runId: RUN, graph: graph(), storage: createMemoryStorage({ backing }), nodes: asker(runs) });
      expect((await first.run()).kind).toBe('pause');
      await answerPause({ storage: createMemoryStorage({ backing }), runId: RUN, position: 'team/asker/1', value: { approved: true } });
      const executors = await Promise.all(Array.from({ length: racers }, () => createGraphExecutor({ runId: RUN, graph: graph(), storage: createMemoryStorage({ backing }), nodes: asker(runs) })));
      const results = await Promise.all(executors.map((executor) => executor.run()));
      // The winner completes the run; a loser folds the winner's start and reports it in flight, or sees the end.
      expect(results.some((result) => result.kind === 'complete')).toBe(true);
      for (const result of results) expect(['complete', 'waiting']).toContain(result.kind);
      expect(runs).toEqual([{ approved: true }]);
      const starts = (await readAll(createMemoryStorage({ backing }), RUN)).filter((event) => event.type === 'graph:node-attempt-started');
      expect(starts.map((event) => (event.payload as { attempt: number }).attempt)).toEqual([1, 2]);
    }
  });
});
