// The team the fault suite runs: four members, two rooms, two turns at a time, every member
// mentioning the next one, so kills land among concurrent attempts and room posts.
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamDefinition, TeamDispatchInput, TeamTurnResult } from '@roundtable/graph';

export const FAULT_RUN_ID = 'fault-run';
export const MEMBERS = ['ana', 'bo', 'cy', 'di'] as const;

export function faultTeamDefinition(turns: number): TeamDefinition {
  return {
    id: 'fault-team',
    definitionVersion: 1,
    data: {
      task: 'Pass the count around.',
      globalConcurrency: 2,
      maxTurnsPerMember: turns,
      communication: {
        rooms: [
          { id: 'all', members: [...MEMBERS] },
          { id: 'pair', members: ['ana', 'bo'] },
        ],
        tailMessages: 3,
      },
    },
    nodes: MEMBERS.map((id, i) => ({ id, data: { role: `member ${i}`, brief: 'Count on.', initialTurn: i < 2 } })),
    edges: [],
  };
}

export const faultGraph = (turns: number) => compileGraph(teamGraphType, faultTeamDefinition(turns));

/** Deterministic: the result depends only on the turn's input, so a re-run attempt says the same. */
export function faultMember(self: string, turns: number) {
  return ({ input, position }: { input: unknown; position: string }): TeamTurnResult => {
    const { messages } = input as TeamDispatchInput;
    const turn = Number(position.split('/').at(-1));
    const next = MEMBERS[(MEMBERS.indexOf(self as (typeof MEMBERS)[number]) + 1) % MEMBERS.length]!;
    if (turn >= turns) return { summary: `${self} done after ${messages.length} messages` };
    const posts = [{ roomId: 'all', text: `${self}#${turn} saw ${messages.length}\nline two`, mentions: [next] }];
    if (self === 'ana' || self === 'bo') posts.push({ roomId: 'pair', text: `${self} to pair #${turn}`, mentions: [] });
    return { summary: `${self} turn ${turn}`, posts };
  };
}
