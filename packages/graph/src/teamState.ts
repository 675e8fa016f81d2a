import { GraphErrorCodes, GraphValidationError, graphIssue } from './errors.js';
import type { TeamPlan } from './teamPlan.js';
import type { TeamMessage, TeamTurnResult } from './teamSchemas.js';

export type TeamMemberStatus = 'idle' | 'in-flight' | 'paused' | 'failed';

/** One member's part of the team state. */
export interface TeamMemberState {
  readonly id: string;
  readonly status: TeamMemberStatus;
  /** Turns dispatched so far (the current one included). */
  readonly turns: number;
  /** The position of the turn in flight or paused, else null. */
  readonly inFlight: string | null;
  readonly pauseReason: string | null;
  readonly failureCode: string | null;
  /** The last successful result, or null. */
  readonly result: TeamTurnResult | null;
  /** A turn has been requested (initial turn or a mention) and not yet dispatched. */
  readonly queued: boolean;
  /** Ids of the messages that requested the queued turn, in arrival order. */
  readonly triggers: readonly string[];
}

/**
 * Storage shared by a chain of team states: it is only ever appended to, and each state records
 * how much of it is its own, so folding an event never copies the messages. Internal: read it
 * through `teamMessages`.
 */
export interface TeamMessageLog {
  readonly messages: TeamMessage[];
  readonly indexById: Map<string, number>;
  /** Per declared room, in declaration order: indexes into `messages`. */
  readonly roomMessages: number[][];
  readonly roomIndex: ReadonlyMap<string, number>;
}

/**
 * The folded state of a team run. Treat it as opaque and immutable: read it with
 * `teamMemberStates` and `teamMessages`. Older states stay valid after newer ones are derived.
 */
export interface TeamState {
  /** Members in declaration order. */
  readonly members: readonly TeamMemberState[];
  /** How many saved messages this state holds. */
  readonly messageCount: number;
  /** Per declared room, how many of its messages this state holds. */
  readonly roomMessageCounts: readonly number[];
  /** Internal shared storage; see `TeamMessageLog`. */
  readonly log: TeamMessageLog;
}

/** The dispatch position of a member's turn: `team/<memberId>/<turn>`, turns counting from 1. */
export function teamPosition(memberId: string, turn: number): string {
  return flatJoin('team', memberId, turn);
}

/**
 * The parts joined with `/` into one flat string. A template literal or `+` of 13 characters or
 * more makes a V8 cons string, which the first hash or comparison flattens into a second copy
 * while the cons stays: a position and a message id, kept for the whole run (saved messages,
 * the fold's dispatched set, stored payloads), cost about 57 bytes more that way. `join`
 * writes one sequential string, and is no slower.
 */
export function flatJoin(...parts: readonly (string | number)[]): string {
  return parts.join('/');
}

export function initialTeamState(plan: TeamPlan): TeamState {
  const members = plan.members.map((member) =>
    Object.freeze<TeamMemberState>({
      id: member.id,
      status: 'idle',
      turns: 0,
      inFlight: null,
      pauseReason: null,
      failureCode: null,
      result: null,
      queued: member.initialTurn,
      triggers: Object.freeze([]),
    }),
  );
  const log: TeamMessageLog = {
    messages: [],
    indexById: new Map(),
    roomMessages: plan.rooms.map(() => []),
    roomIndex: plan.roomIndex,
  };
  return Object.freeze({
    members: Object.freeze(members),
    messageCount: 0,
    roomMessageCounts: Object.freeze(plan.rooms.map(() => 0)),
    log,
  });
}

/** True when nothing was appended to the shared log after `state`, so it may append in place. */
function ownsLogTail(state: TeamState): boolean {
  const { log } = state;
  if (log.messages.length !== state.messageCount) return false;
  return log.roomMessages.every((list, room) => list.length === state.roomMessageCounts[room]);
}

/**
 * The log that a successor of `state` appends to: the shared one when `state` is the newest
 * state of its chain, otherwise (someone is folding from an older state) a copy of this
 * state's own prefix, so the newer states keep theirs.
 */
export function appendableLog(state: TeamState): TeamMessageLog {
  if (ownsLogTail(state)) return state.log;
  const messages = state.log.messages.slice(0, state.messageCount);
  return {
    messages,
    indexById: new Map(messages.map((message, index) => [message.id, index])),
    roomMessages: state.log.roomMessages.map((list, room) => list.slice(0, state.roomMessageCounts[room])),
    roomIndex: state.log.roomIndex,
  };
}

/** The saved messages of a team state in saved order: all of them, or one room's. */
export function teamMessages(state: TeamState, roomId?: string): readonly TeamMessage[] {
  const { log } = state;
  if (roomId === undefined) return log.messages.slice(0, state.messageCount);
  const room = log.roomIndex.get(roomId);
  if (room === undefined) {
    throw new GraphValidationError([graphIssue(GraphErrorCodes.INVALID_TEAM, '', `Room "${roomId}" is not declared by this team.`)]);
  }
  const indexes = log.roomMessages[room]!;
  const count = state.roomMessageCounts[room]!;
  const messages: TeamMessage[] = [];
  for (let i = 0; i < count; i++) messages.push(log.messages[indexes[i]!]!);
  return messages;
}

/** The members of a team state in declaration order. */
export function teamMemberStates(state: TeamState): readonly TeamMemberState[] {
  return state.members;
}
