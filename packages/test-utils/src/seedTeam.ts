import { teamDefinition } from './teamDefinition.js';
import type { SeedRoom } from './teamDefinition.js';

export interface SeedTeamOptions {
  /** Default 1. */
  readonly globalConcurrency?: number;
  /** Default 2: writer, reviewer, writer. */
  readonly maxTurnsPerMember?: number;
  /** Default 3. */
  readonly tailMessages?: number;
  /** Default one room `review` with both members. */
  readonly rooms?: SeedRoom[];
}

/**
 * The seed's team definition as plain data (it compiles with `compileGraph(teamGraphType, …)`):
 * the member ids are literal types, so `teamMembers` bindings are checked against them.
 */
export type SeedTeam = {
  id: 'release-team';
  definitionVersion: 1;
  data: {
    task: string;
    globalConcurrency: number;
    maxTurnsPerMember: number;
    communication: { rooms: SeedRoom[]; tailMessages: number };
  };
  nodes: [{ id: 'writer'; data: { role: 'writer'; brief: string } }, { id: 'reviewer'; data: { role: 'reviewer'; brief: string; initialTurn: false } }];
  edges: [];
};

/**
 * The seed document's release team (shared/seed/team-conversation.txt): a writer with the first
 * turn and a reviewer who waits to be mentioned, in one room `review`. A fresh object each call.
 */
export function seedTeam(options: SeedTeamOptions = {}): SeedTeam {
  return teamDefinition({
    id: 'release-team',
    task: 'Write the release notes.',
    members: [
      { id: 'writer', role: 'writer', brief: 'Draft the notes and ask for a review.' },
      { id: 'reviewer', role: 'reviewer', brief: 'Review the draft.', initialTurn: false },
    ],
    rooms: options.rooms ?? [{ id: 'review', members: ['writer', 'reviewer'] }],
    globalConcurrency: options.globalConcurrency ?? 1,
    maxTurnsPerMember: options.maxTurnsPerMember ?? 2,
    tailMessages: options.tailMessages ?? 3,
  }) as SeedTeam;
}

/**
 * A two-member team without rooms, `lead` and `aide`, one turn each: the smallest team with
 * literal member ids, for tests of what is checked at compile time (`'Lead'` is a type error).
 */
export type PairTeam = {
  id: 'pair';
  definitionVersion: 1;
  data: { task: string; globalConcurrency: number; maxTurnsPerMember: number };
  nodes: [{ id: 'lead'; data: { role: 'lead'; brief: string } }, { id: 'aide'; data: { role: 'aide'; brief: string } }];
  edges: [];
};

export function pairTeam(): PairTeam {
  const members = [
    { id: 'lead', role: 'lead', brief: 'b' },
    { id: 'aide', role: 'aide', brief: 'b' },
  ];
  return teamDefinition({ id: 'pair', task: 't', members, rooms: null, globalConcurrency: 1, maxTurnsPerMember: 1 }) as PairTeam;
}
