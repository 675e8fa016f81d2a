import type { Json } from '@roundtable/core';
import type { GraphType } from './graphType.js';
import { withDispatchInputCheck } from './dispatchInputCheck.js';
import { decideTeam, teamDispatchInputIsJson } from './teamDecide.js';
import { planTeam } from './teamPlan.js';
import type { TeamPlan } from './teamPlan.js';
import { reduceTeam } from './teamReduce.js';
import { initialTeamState } from './teamState.js';
import type { TeamState } from './teamState.js';
import { validateTeamTurnResult } from './teamTurnResult.js';

export const TEAM_GRAPH_KIND = 'team';
export const TEAM_GRAPH_VERSION = 1;

function describeTeam(plan: TeamPlan): Json {
  const initialTurns = plan.members.filter((member) => member.initialTurn).length;
  return {
    kind: TEAM_GRAPH_KIND,
    version: TEAM_GRAPH_VERSION,
    task: plan.task,
    members: plan.members.map((member) => ({ id: member.id, role: member.role, initialTurn: member.initialTurn })),
    communication: plan.communicates
      ? { rooms: plan.rooms.map((room) => ({ id: room.id, members: [...room.members] })), tailMessages: plan.tailMessages }
      : null,
    stop: { maxTurnsPerMember: plan.maxTurnsPerMember },
    concurrency: { global: plan.globalConcurrency },
    dispatch: { min: initialTurns, max: plan.members.length * plan.maxTurnsPerMember },
  };
}

/**
 * The team graph type (SPEC §3.1): members take turns; a turn's posts are saved as room
 * messages and their mentions queue the mentioned members' next turns.
 */
export const teamGraphType: GraphType<TeamState> = Object.freeze<GraphType<TeamState>>({
  kind: TEAM_GRAPH_KIND,
  version: TEAM_GRAPH_VERSION,
  compile: (definition) => {
    const plan = planTeam(definition);
    // decideTeam builds every dispatch input with dispatchInput, whose parts this judges.
    return withDispatchInputCheck(
      {
        initialState: () => initialTeamState(plan),
        reduce: (state, event) => reduceTeam(plan, state, event),
        decide: (state) => decideTeam(plan, state),
        describe: () => describeTeam(plan),
        validateNodeResult: (nodeId, result) => validateTeamTurnResult(plan, nodeId, result),
      },
      teamDispatchInputIsJson,
    );
  },
});
