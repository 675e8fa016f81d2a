import { copyFrozenJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import type { GraphEvent } from './graphEvent.js';
import { isRecord } from './json.js';
import type { TeamPlan } from './teamPlan.js';
import type { TeamMessage, TeamTurnResult } from './teamSchemas.js';
import { appendableLog, teamPosition } from './teamState.js';
import type { TeamMemberState, TeamState } from './teamState.js';
import { validateTeamTurnResult } from './teamTurnResult.js';
import { TeamFailureCodes } from './teamFailureCodes.js';

function withMember(state: TeamState, index: number, member: TeamMemberState): TeamState {
  const members = state.members.slice();
  members[index] = Object.freeze(member);
  return Object.freeze({ ...state, members: Object.freeze(members) });
}

function dispatched(plan: TeamPlan, state: TeamState, index: number, position: string): TeamState {
  const member = state.members[index]!;
  if (member.status !== 'idle' || !member.queued || member.turns >= plan.maxTurnsPerMember) return state;
  if (position !== teamPosition(member.id, member.turns + 1)) return state;
  return withMember(state, index, {
    ...member,
    status: 'in-flight',
    turns: member.turns + 1,
    inFlight: position,
    queued: false,
    triggers: Object.freeze([]),
  });
}

function paused(state: TeamState, index: number, reason: unknown): TeamState {
  if (typeof reason !== 'string') return state;
  return withMember(state, index, { ...state.members[index]!, status: 'paused', pauseReason: reason });
}

function resumed(state: TeamState, index: number): TeamState {
  const member = state.members[index]!;
  if (member.status !== 'paused') return state;
  return withMember(state, index, { ...member, status: 'in-flight', pauseReason: null });
}

function failed(state: TeamState, index: number, code: unknown): TeamState {
  if (typeof code !== 'string') return state;
  return withMember(state, index, { ...state.members[index]!, status: 'failed', inFlight: null, pauseReason: null, failureCode: code });
}

/**
 * A valid result: the member becomes idle with it, each post becomes a saved message and each
 * distinct member it mentions is queued with the message id added to its triggers.
 */
function completed(plan: TeamPlan, state: TeamState, index: number, position: string, result: unknown): TeamState {
  const member = state.members[index]!;
  if (member.status !== 'in-flight') return state;
  if (validateTeamTurnResult(plan, member.id, result) !== null) {
    return withMember(state, index, { ...member, status: 'failed', inFlight: null, failureCode: TeamFailureCodes.RESULT_INVALID });
  }
  const saved = copyFrozenJson(result as Json) as TeamTurnResult;
  const members = state.members.slice();
  members[index] = Object.freeze({ ...member, status: 'idle', inFlight: null, result: saved });
  const posts = saved.posts ?? [];
  if (posts.length === 0) return Object.freeze({ ...state, members: Object.freeze(members) });

  const log = appendableLog(state);
  const roomMessageCounts = state.roomMessageCounts.slice();
  let messageCount = state.messageCount;
  posts.forEach((post, postIndex) => {
    const message: TeamMessage = Object.freeze({
      id: `${position}/${postIndex}`,
      roomId: post.roomId,
      text: post.text,
      mentions: post.mentions,
      sender: member.id,
      position,
    });
    const room = plan.roomIndex.get(post.roomId)!;
    log.messages.push(message);
    log.indexById.set(message.id, messageCount);
    log.roomMessages[room]!.push(messageCount);
    roomMessageCounts[room]!++;
    messageCount++;
    post.mentions.forEach((mentioned, mentionIndex) => {
      if (post.mentions.indexOf(mentioned) !== mentionIndex) return;
      const target = plan.memberIndex.get(mentioned)!;
      const current = members[target]!;
      members[target] = Object.freeze({ ...current, queued: true, triggers: Object.freeze([...current.triggers, message.id]) });
    });
  });
  return Object.freeze({
    members: Object.freeze(members),
    messageCount,
    roomMessageCounts: Object.freeze(roomMessageCounts),
    log,
  });
}

/**
 * Folds one event into a team state. Events that do not match a rule of SPEC §3.1 (other
 * types or versions, undeclared members, stale positions) return `state` itself. Costs
 * O(members + size of the event), never O(messages).
 */
export function reduceTeam(plan: TeamPlan, state: TeamState, event: GraphEvent): TeamState {
  if (event.version !== 1 || !event.type.startsWith('graph:node-')) return state;
  const payload: unknown = event.payload;
  if (!isRecord(payload)) return state;
  const { nodeId, position } = payload;
  if (typeof nodeId !== 'string' || typeof position !== 'string') return state;
  const index = plan.memberIndex.get(nodeId);
  if (index === undefined) return state;
  if (event.type === 'graph:node-dispatched') return dispatched(plan, state, index, position);
  if (position !== state.members[index]!.inFlight) return state;
  switch (event.type) {
    case 'graph:node-paused':
      return paused(state, index, payload['reason']);
    case 'graph:node-resumed':
      return resumed(state, index);
    case 'graph:node-failed':
      return failed(state, index, payload['code']);
    case 'graph:node-completed':
      // A completion without a result is an invalid result, not a missing event.
      return completed(plan, state, index, position, payload['result']);
    default:
      return state;
  }
}
