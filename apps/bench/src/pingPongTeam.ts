import type { TeamDefinition } from '@roundtable/graph';

/** Two members alternating in one room; `ping` has the first turn. */
export function pingPongTeam(turns: number): TeamDefinition {
  return {
    id: 'bench-ping-pong',
    definitionVersion: 1,
    data: {
      task: 'Alternate turns, each mentioning the other member.',
      globalConcurrency: 1,
      maxTurnsPerMember: Math.max(1, Math.ceil(turns / 2)),
      communication: { rooms: [{ id: 'table', members: ['ping', 'pong'] }], tailMessages: 3 },
    },
    nodes: [
      { id: 'ping', data: { role: 'ping', brief: 'Reply to pong.' } },
      { id: 'pong', data: { role: 'pong', brief: 'Reply to ping.', initialTurn: false } },
    ],
    edges: [],
  };
}
