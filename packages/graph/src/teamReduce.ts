import { copyFrozenJson, isJsonValueError } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import type { GraphEvent } from './graphEvent.js';
import { isRecord } from './json.js';
import type { TeamPlan } from './teamPlan.js';
import type { TeamTurnResult } from './teamSchemas.js';
import { appendableLog } from './teamState.js';
import type { TeamMemberState, TeamMemberStatus, TeamMessageLog, TeamState } from './teamState.js';
import { validateTeamTurnResult } from './teamTurnResult.js';
import { TeamFailureCodes } from './teamFailureCodes.js';

/**
 * A member's next state, every field spelled out: on this path (several times per turn) an
 * explicit literal is several times cheaper than a spread of the frozen previous state.
 */
function memberState(
  from: TeamMemberState,
  status: TeamMemberStatus,
  inFlight: string | null,
  pauseReason: string | null,
  failureCode: string | null,
  result: TeamTurnResult | null,
  turns = from.turns,
  queued = from.queued,
  triggers = from.triggers,
): TeamMemberState {
  return Object.freeze({ id: from.id, status, turns, inFlight, pauseReason, failureCode, result, queued, triggers });
}

function teamState(members: TeamMemberState[], messageCount: number, roomMessageCounts: readonly number[], log: TeamMessageLog): TeamState {
  return Object.freeze({ members: Object.freeze(members), messageCount, roomMessageCounts, log });
}

/**
 * A writable copy of a frozen array. Not `slice`: V8 copies a frozen array's elements on its
 * slow path, about ten times slower than this loop for the few members a team has (measured:
 * 260 ns against 20 for two elements), and the reducer copies the members on every event.
 */
function copyOf<T>(array: readonly T[]): T[] {
  const length = array.length;
  const copy = new Array<T>(length);
  for (let index = 0; index < length; index++) copy[index] = array[index]!;
  return copy;
}

function withMember(state: TeamState, index: number, member: TeamMemberState): TeamState {
  const members = copyOf(state.members);
  members[index] = member;
  return teamState(members, state.messageCount, state.roomMessageCounts, state.log);
}

const NO_TRIGGERS: readonly string[] = Object.freeze([]);

/**
 * Whether `position` is `teamPosition` of the member's turn `turn` (`prefix` is the member's
 * `positionPrefix`), compared in place instead of building the position again for each dispatch.
 */
function isTurnPosition(position: string, prefix: string, turn: number): boolean {
  const turnText = String(turn);
  return position.length === prefix.length + turnText.length && position.startsWith(prefix) && position.endsWith(turnText);
}

function dispatched(plan: TeamPlan, state: TeamState, index: number, position: string): TeamState {
  const member = state.members[index]!;
  if (member.status !== 'idle' || !member.queued || member.turns >= plan.maxTurnsPerMember) return state;
  if (!isTurnPosition(position, plan.members[index]!.positionPrefix, member.turns + 1)) return state;
  return withMember(state, index, memberState(member, 'in-flight', position, member.pauseReason, member.failureCode, member.result, member.turns + 1, false, NO_TRIGGERS));
}

function paused(state: TeamState, index: number, reason: unknown): TeamState {
  if (typeof reason !== 'string') return state;
  const member = state.members[index]!;
  return withMember(state, index, memberState(member, 'paused', member.inFlight, reason, member.failureCode, member.result));
}

function resumed(state: TeamState, index: number): TeamState {
  const member = state.members[index]!;
  if (member.status !== 'paused') return state;
  return withMember(state, index, memberState(member, 'in-flight', member.inFlight, null, member.failureCode, member.result));
}

function failed(state: TeamState, index: number, code: unknown): TeamState {
  if (typeof code !== 'string') return state;
  const member = state.members[index]!;
  return withMember(state, index, memberState(member, 'failed', null, null, code, member.result));
}

/**
 * The result as the state keeps it: a deep-frozen copy, or the value itself when it is one
 * already (the executor hands over a result it froze and core verified once; a storage's read,
 * a payload it deep-froze), or undefined when it is not JSON. Copied before it is validated, so
 * that a result nobody froze is walked once, not twice: `validateTeamTurnResult` of the copy
 * finds its JSON verdict remembered and gives the verdict it gives for the original, of which
 * the copy holds exactly the JSON.
 */
function savedCopy(result: unknown): TeamTurnResult | undefined {
  try {
    return copyFrozenJson(result as Json) as TeamTurnResult;
  } catch (error) {
    if (isJsonValueError(error)) return undefined;
    throw error;
  }
}

/**
 * A valid result: the member becomes idle with it, each post becomes a saved message and each
 * distinct member it mentions is queued with the message id added to its triggers.
 */
function completed(plan: TeamPlan, state: TeamState, index: number, position: string, result: unknown): TeamState {
  const member = state.members[index]!;
  if (member.status !== 'in-flight') return state;
  const saved = savedCopy(result);
  if (saved === undefined || validateTeamTurnResult(plan, member.id, saved) !== null) {
    return withMember(state, index, memberState(member, 'failed', null, member.pauseReason, TeamFailureCodes.RESULT_INVALID, member.result));
  }
  const members = copyOf(state.members);
  members[index] = memberState(member, 'idle', null, member.pauseReason, member.failureCode, saved);
  const posts = saved.posts;
  if (posts === undefined || posts.length === 0) return teamState(members, state.messageCount, state.roomMessageCounts, state.log);

  const log = appendableLog(plan, state);
  const roomMessageCounts = copyOf(state.roomMessageCounts);
  let messageCount = state.messageCount;
  for (let postIndex = 0; postIndex < posts.length; postIndex++) {
    const post = posts[postIndex]!;
    const room = plan.roomIndex.get(post.roomId)!;
    const messageIndex = messageCount;
    // `dispatched` made `position` this member's turn number `member.turns`.
    log.append(position, member.turns, postIndex, index, room, post);
    roomMessageCounts[room]!++;
    messageCount++;
    const { mentions } = post;
    let id: string | undefined;
    for (let mentionIndex = 0; mentionIndex < mentions.length; mentionIndex++) {
      const mentioned = mentions[mentionIndex]!;
      if (mentions.indexOf(mentioned) !== mentionIndex) continue;
      const target = plan.memberIndex.get(mentioned)!;
      const current = members[target]!;
      const triggers = Object.freeze([...current.triggers, (id ??= log.id(messageIndex))]);
      members[target] = memberState(current, current.status, current.inFlight, current.pauseReason, current.failureCode, current.result, current.turns, true, triggers);
    }
  }
  return teamState(members, messageCount, Object.freeze(roomMessageCounts), log);
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
