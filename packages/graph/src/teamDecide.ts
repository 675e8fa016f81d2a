import { jsonHeight } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import type { GraphCommand } from './graphCommand.js';
import { isSavedMessage } from './savedMessageMark.js';
import { TeamFailureCodes } from './teamFailureCodes.js';
import type { TeamPlan, TeamPlanMember } from './teamPlan.js';
import type { TeamDispatchInput, TeamGraphResult, TeamMessage } from './teamSchemas.js';
import { teamPosition } from './teamState.js';
import type { TeamMemberState, TeamState } from './teamState.js';

/**
 * Sorts a few log indexes in place, ascending: by insertion, with no comparator closure and no
 * work array (a turn's input has its rooms' tails and its triggers, a handful of indexes).
 */
function sortIndexes(indexes: number[]): number[] {
  if (indexes.length > 32) return indexes.sort((a, b) => a - b);
  for (let i = 1; i < indexes.length; i++) {
    const index = indexes[i]!;
    let j = i - 1;
    while (j >= 0 && indexes[j]! > index) {
      indexes[j + 1] = indexes[j]!;
      j--;
    }
    indexes[j + 1] = index;
  }
  return indexes;
}

/** The log indexes of the member's triggers, in saved order (an id the state does not hold is left out). */
function triggerIndexes(state: TeamState, member: TeamMemberState): number[] {
  const { log } = state;
  const indexes: number[] = [];
  for (const id of member.triggers) {
    const index = log.indexOf(id);
    if (index !== undefined && index < state.messageCount) indexes.push(index);
  }
  return sortIndexes(indexes);
}

/**
 * The messages a member's next turn sees: for each room it belongs to, the room's last
 * `tailMessages`, plus every triggering message (`triggers`, its log indexes) even if older,
 * each once, in saved order. Reads only those tails and triggers, never the whole log.
 */
function inputMessages(plan: TeamPlan, state: TeamState, planMember: TeamPlanMember, triggers: readonly number[]): TeamMessage[] {
  const { log } = state;
  const indexes = triggers.slice();
  for (const room of planMember.rooms) {
    const list = log.roomMessages[room]!;
    const count = state.roomMessageCounts[room]!;
    for (let i = Math.max(0, count - plan.tailMessages); i < count; i++) indexes.push(list[i]!);
  }
  sortIndexes(indexes);
  const messages: TeamMessage[] = [];
  for (let i = 0; i < indexes.length; i++) if (i === 0 || indexes[i] !== indexes[i - 1]) messages.push(log.message(indexes[i]!));
  return messages;
}

function dispatchInput(plan: TeamPlan, state: TeamState, index: number): TeamDispatchInput {
  const planMember = plan.members[index]!;
  const member = state.members[index]!;
  const triggers = triggerIndexes(state, member);
  return {
    task: plan.task,
    role: planMember.role,
    brief: planMember.brief,
    result: member.result,
    messages: inputMessages(plan, state, planMember, triggers),
    turn: member.turns + 1,
    triggers: triggers.map((trigger) => state.log.id(trigger)),
  };
}

/**
 * Whether a dispatch input that `dispatchInput` built is JSON: the verdict `isJson` of
 * `@roundtable/core` gives for the whole input, from its parts, which `compileGraph` asks
 * instead of walking the input (a walk of the fresh object and its two fresh arrays cost about
 * 1.1 µs a dispatch, measured; this about a fifth of it). What it does not look at is JSON by
 * construction: the input and its `messages` and `triggers` arrays are plain objects and arrays
 * just built with fixed keys, holding no cycle (nothing built before them can hold them);
 * `task`, `role` and `brief` are strings of the plan, which `compileGraph` read from the
 * definition after checking it is JSON. The rest comes from the state, which a caller of
 * `decide` could have made by hand, so each of those parts (the turn, the result, each message
 * and each trigger) is judged JSON within the nesting limit at the depth it sits at: a message
 * the reducer saved (`isSavedMessage`) is JSON two levels high by construction, anything else
 * is walked; `jsonHeight` of a saved result, which the reducer deep-froze and verified, costs
 * O(1). Property-tested against `isJson` of the whole input.
 */
export function teamDispatchInputIsJson(input: unknown): boolean {
  const { result, messages, turn, triggers } = input as TeamDispatchInput;
  // The result and the turn sit one level down in the input, each message and trigger two.
  if (jsonHeight(turn, 1) < 0 || jsonHeight(result, 1) < 0) return false;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (!isSavedMessage(message) && jsonHeight(message, 2) < 0) return false;
  }
  for (let index = 0; index < triggers.length; index++) if (jsonHeight(triggers[index], 2) < 0) return false;
  return true;
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
