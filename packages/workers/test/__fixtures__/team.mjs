// The team the workers' tests run: three members in one room, two turns at a time, each
// mentioning the next, so a run has batches of two attempts that different workers can take.
// Members are deterministic (their result depends only on their input) and wait `waitMs`
// like a model call would.
import { setTimeout as sleep } from 'node:timers/promises';
import { compileGraph, teamGraphType } from '@roundtable/graph';

export const MEMBERS = ['ana', 'bo', 'cy'];

/** @param {number} turns */
export function workersTeamGraph(turns) {
  return compileGraph(teamGraphType, {
    id: 'workers-team',
    definitionVersion: 1,
    data: {
      task: 'Pass the count around.',
      globalConcurrency: 2,
      maxTurnsPerMember: turns,
      // Every message in every input, reported sorted: attempts of one batch finish in any order,
      // so the saved order of messages differs between runs, but no result depends on it.
      communication: { rooms: [{ id: 'all', members: MEMBERS }], tailMessages: 1000 },
    },
    nodes: MEMBERS.map((id, i) => ({ id, data: { role: `member ${i}`, brief: 'Count on.', initialTurn: i < 2 } })),
    edges: [],
  });
}

/**
 * `onAttempt` is called as an attempt starts; the attempt goes on once what it returns settles
 * (a test's way to hold attempts until it has decided what happens to them).
 * @param {{ turns: number; waitMs: number; retrySafe?: (member: string) => boolean; onAttempt?: (position: string) => void | Promise<void> }} options
 * @returns {Record<string, import('@roundtable/scheduler').NodeBinding>}
 */
export function workersTeamNodes({ turns, waitMs, retrySafe = () => true, onAttempt }) {
  return Object.fromEntries(
    MEMBERS.map((self) => [
      self,
      {
        retrySafe: retrySafe(self),
        /** @param {import('@roundtable/scheduler').NodeContext} ctx */
        run: async (ctx) => {
          await onAttempt?.(ctx.position);
          if (waitMs > 0) await sleep(waitMs);
          const input = /** @type {import('@roundtable/graph').TeamDispatchInput} */ (ctx.input);
          const turn = Number(ctx.position.split('/').at(-1));
          const next = MEMBERS[(MEMBERS.indexOf(self) + 1) % MEMBERS.length] ?? self;
          if (turn >= turns) return { summary: `${self} done after ${input.messages.length} messages` };
          return { summary: `${self} turn ${turn}`, posts: [{ roomId: 'all', text: `${self}#${turn} saw ${input.messages.map((message) => message.id).sort().join(',')}`, mentions: [next] }] };
        },
      },
    ]),
  );
}
