// Shared fixtures of this package's tests. Not exported from the package entry.
import { compileGraph, teamGraphType, teamPosition } from '../index.js';
import type { CompiledGraph, DispatchCommand, GraphEvent, TeamDefinition, TeamPost, TeamState } from '../index.js';
import type { Json } from '@roundtable/core';
import { seedTeam as sharedSeedTeam, teamDefinition } from '@roundtable/test-utils';
import type { TeamDefinitionOptions } from '@roundtable/test-utils';

/** The seed's release team (from @roundtable/test-utils) with two turns at a time. */
export function seedTeam(): TeamDefinition {
  return sharedSeedTeam({ globalConcurrency: 2 });
}

/** A team of the given members, all in one room `all` (unless `rooms` is given): `teamDefinition` of @roundtable/test-utils. */
export function team(options: TeamDefinitionOptions): TeamDefinition {
  return teamDefinition(options);
}

export function compileTeam(definition: TeamDefinition): CompiledGraph<TeamState> {
  return compileGraph(teamGraphType, definition);
}

export function post(roomId: string, text: string, mentions: string[] = []): TeamPost {
  return { roomId, text, mentions };
}

export function event(type: string, payload: Json): GraphEvent {
  return { type: `graph:${type}`, version: 1, payload };
}

export const events = {
  dispatched: (nodeId: string, turn: number) => event('node-dispatched', { nodeId, position: teamPosition(nodeId, turn) }),
  completed: (nodeId: string, turn: number, result: unknown) =>
    event('node-completed', { nodeId, position: teamPosition(nodeId, turn), result: result as Json }),
  failed: (nodeId: string, turn: number, code = 'EFFECT_FAILED') =>
    event('node-failed', { nodeId, position: teamPosition(nodeId, turn), code, message: 'boom' }),
  paused: (nodeId: string, turn: number, reason = 'approval') =>
    event('node-paused', { nodeId, position: teamPosition(nodeId, turn), reason, request: null }),
  resumed: (nodeId: string, turn: number) => event('node-resumed', { nodeId, position: teamPosition(nodeId, turn), value: null }),
};

export function fold(graph: CompiledGraph<TeamState>, list: readonly GraphEvent[], from = graph.initialState()): TeamState {
  return list.reduce((state, next) => graph.reduce(state, next), from);
}

/** Folds the dispatch events of what `decide` returns; returns the new state and the dispatched positions. */
export function dispatchBatch(graph: CompiledGraph<TeamState>, state: TeamState): { state: TeamState; dispatched: DispatchCommand[] } {
  const commands = graph.decide(state);
  const dispatched = commands.flatMap((command) => (command.kind === 'dispatch' ? [command] : []));
  const next = dispatched.reduce(
    (current, command) => graph.reduce(current, event('node-dispatched', { nodeId: command.nodeId, position: command.position })),
    state,
  );
  return { state: next, dispatched };
}
