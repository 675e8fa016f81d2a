// The team every run of the example uses: a writer drafts, two reviewers answer in one room,
// the writer finishes with their replies. Each member "thinks" for `thinkMs` like a model call
// would, so the work is mostly waiting, which is where more worker processes help.
import { setTimeout as sleep } from 'node:timers/promises';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDispatchInput, TeamTurnResult } from '@roundtable/graph';
import type { NodeBinding } from '@roundtable/scheduler';

export const reviewGraph = compileGraph(teamGraphType, {
  id: 'release-review',
  definitionVersion: 1,
  data: {
    task: 'Write the release notes and get them reviewed.',
    globalConcurrency: 2,
    maxTurnsPerMember: 2,
    communication: { rooms: [{ id: 'review', members: ['writer', 'editor', 'tester'] }], tailMessages: 10 },
  },
  nodes: [
    { id: 'writer', data: { role: 'writer', brief: 'Draft, then apply both reviews.' } },
    { id: 'editor', data: { role: 'editor', brief: 'Review the wording.', initialTurn: false } },
    { id: 'tester', data: { role: 'tester', brief: 'Check the claims.', initialTurn: false } },
  ],
  edges: [],
});

/** Bindings for the team; deterministic, so any worker (or a rerun) gives the same result. */
export function reviewNodes(thinkMs: number): Record<string, NodeBinding> {
  const think = () => (thinkMs > 0 ? sleep(thinkMs) : Promise.resolve());
  const reviewer = (verdict: string) => async ({ input }: { input: unknown }): Promise<TeamTurnResult> => {
    await think();
    const draft = (input as TeamDispatchInput).messages.find((message) => message.sender === 'writer');
    return { summary: `${verdict} (${draft?.id ?? 'no draft'})`, posts: [{ roomId: 'review', text: verdict, mentions: ['writer'] }] };
  };
  return {
    writer: {
      retrySafe: true,
      run: async ({ input }: { input: unknown }): Promise<TeamTurnResult> => {
        await think();
        const { result, messages } = input as TeamDispatchInput;
        if (result === null) return { summary: 'Draft ready.', posts: [{ roomId: 'review', text: 'Draft: 2.0 adds workers.', mentions: ['editor', 'tester'] }] };
        const replies = messages.filter((message) => message.sender !== 'writer').map((message) => `${message.sender}: ${message.text}`).sort();
        return { summary: `Final notes with ${replies.join('; ')}` };
      },
    },
    editor: { retrySafe: true, run: reviewer('Tighten the second sentence.') },
    tester: { retrySafe: true, run: reviewer('The benchmark figure checks out.') },
  };
}
