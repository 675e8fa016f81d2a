import type { Json } from '@roundtable/core';
import type { GraphCommand } from './graphCommand.js';
import { TeamFailureCodes } from './teamFailureCodes.js';
import type { TeamPlan, TeamPlanMember } from './teamPlan.js';
import type { TeamDispatchInput, TeamGraphResult, TeamMessage } from './teamSchemas.js';
import { teamPosition } from './teamState.js';
import type { TeamMemberState, TeamState } from './teamState.js';

/**
 * The messages a member's next turn sees: for each room it belongs to, the room's last
 * `tailMessages`, plus every triggering message even if older, each once, in saved order.
 * Reads only those tails and triggers, never the whole log.
 */
function inputMessages(plan: TeamPlan, state: TeamState, planMember: TeamPlanMember, member: TeamMemberState): TeamMessage[] {
  const { log } = state;
  const indexes = new Set<number>();
  for (const room of planMember.rooms) {
    const list = log.roomMessages[room]!;
    const count = state.roomMessageCounts[room]!;
    for (let i = Math.max(0, count - plan.tailMessages); i < count; i++) indexes.add(list[i]!);
  }
  for (const id of member.triggers) {
    const index = log.indexOf(id);
    if (index !== undefined && index < state.messageCount) indexes.add(index);
  }
  return [...indexes].sort((a, b) => a - b).map((index) => log.message(index));
}

/** The member's triggers in saved order (a message id the state does not hold is left out). */
function savedTriggers(state: TeamState, member: TeamMemberState): string[] {
  const { log } = state;
  const indexes: number[] = [];
  for (const id of member.triggers) {
    const index = log.indexOf(id);
    if (index !== undefined && index < state.messageCount) indexes.push(index);
  }
  return indexes.sort((a, b) => a - b).map((index) => log.id(index));
}

function dispatchInput(plan: TeamPlan, state: TeamState, index: number): TeamDispatchInput {
  const planMember = plan.members[index]!;
  const member = state.members[index]!;
  return {
    task: plan.task,
    role: planMember.role,
    brief: planMember.brief,
    result: member.result,
    messages: inputMessages(plan, state, planMember, member),
    turn: member.turns + 1,
    triggers: savedTriggers(state, member),
  };
}

function failedMessage(failed: readonly TeamMemberState[]): string {
  return failed.map((member) => `Member "${member.id}" failed (${String(member.failureCode)}).`).join(' ');
}

function finalResult(plan: TeamPlan, state: TeamState): TeamGraphResult {
  return {
    task: plan.task,
    agents: plan.members.map((member, index) => ({ name: member.id, role: member.role, result: state.members[index]!.result })),
  };
}

/** The next commands of a team run, by the ordered rules of SPEC §3.1 (one pass over the members). */
export function decideTeam(plan: TeamPlan, state: TeamState): GraphCommand[] {
  const { members } = state;
  let failed: TeamMemberState[] | null = null;
  let paused: TeamMemberState | null = null;
  let exhausted: TeamMemberState | null = null;
  for (const member of members) {
    if (member.status === 'in-flight') return [];
    if (member.status === 'failed') (failed ??= []).push(member);
    else if (member.status === 'paused') paused ??= member;
    if (member.queued && member.turns >= plan.maxTurnsPerMember) exhausted ??= member;
  }
  if (failed !== null) return [{ kind: 'fail', code: TeamFailureCodes.TEAM_NODE_FAILED, message: failedMessage(failed) }];
  if (paused !== null) return [{ kind: 'pause', reason: paused.pauseReason ?? '' }];
  if (exhausted !== null) {
    return [{ kind: 'fail', code: TeamFailureCodes.TEAM_TURN_LIMIT, message: `Member "${exhausted.id}" reached maxTurnsPerMember.` }];
  }
  const commands: GraphCommand[] = [];
  for (let index = 0; index < members.length && commands.length < plan.globalConcurrency; index++) {
    const member = members[index]!;
    if (!member.queued) continue;
    commands.push({
      kind: 'dispatch',
      nodeId: member.id,
      position: teamPosition(member.id, member.turns + 1),
      input: dispatchInput(plan, state, index) as unknown as Json,
    });
  }
  if (commands.length > 0) return commands;
  return [{ kind: 'complete', output: finalResult(plan, state) as unknown as Json }];
}
