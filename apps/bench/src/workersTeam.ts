// The team of the workers bench: a writer, then two reviewers at once, then the writer again;
// every member waits `waitMs` (a stand-in for a model call), so the work is mostly waiting.
import { setTimeout as sleep } from 'node:timers/promises';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDispatchInput, TeamTurnResult } from '@roundtable/graph';
import type { NodeBinding } from '@roundtable/scheduler';

export const workersBenchGraph = compileGraph(teamGraphType, {
  id: 'bench-workers',
  definitionVersion: 1,
  data: {
    task: 'Draft, review twice, finish.',
    globalConcurrency: 2,
    maxTurnsPerMember: 2,
    communication: { rooms: [{ id: 'review', members: ['writer', 'editor', 'tester'] }], tailMessages: 10 },
  },
  nodes: [
    { id: 'writer', data: { role: 'writer', brief: 'Draft, then apply the reviews.' } },
    { id: 'editor', data: { role: 'editor', brief: 'Review.', initialTurn: false } },
    { id: 'tester', data: { role: 'tester', brief: 'Review.', initialTurn: false } },
  ],
  edges: [],
});

export function workersBenchNodes(waitMs: number): Record<string, NodeBinding> {
  const reviewer = async (): Promise<TeamTurnResult> => {
    await sleep(waitMs);
    return { summary: 'reviewed', posts: [{ roomId: 'review', text: 'Looks right.', mentions: ['writer'] }] };
  };
  return {
    writer: async ({ input }: { input: unknown }): Promise<TeamTurnResult> => {
      await sleep(waitMs);
      if ((input as TeamDispatchInput).result === null) return { summary: 'draft', posts: [{ roomId: 'review', text: 'Draft.', mentions: ['editor', 'tester'] }] };
      return { summary: 'final' };
    },
    editor: reviewer,
    tester: reviewer,
  };
}
