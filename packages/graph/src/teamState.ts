import { GraphErrorCodes, GraphValidationError, graphIssue } from './errors.js';
import { markSavedMessage } from './savedMessageMark.js';
import type { TeamPlan } from './teamPlan.js';
import type { TeamMessage, TeamPost, TeamTurnResult } from './teamSchemas.js';

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

/** How many built messages a log keeps for the next input that shows them again (a power of two). */
const BUILT_MESSAGES = 32;

/**
 * Storage shared by a chain of team states: it is only ever appended to, and each state records
 * how much of it is its own, so folding an event never copies the messages. Internal: read it
 * through `teamMessages`.
 *
 * A saved message is kept as columns, not as an object: its text and mentions (the very values
 * of the frozen post, so shared with the turn result and, in memory, with the stored event), the
 * position of its turn (one string for every message of the turn), its sender and its room as
 * indexes into the plan. Its id `<position>/<postIndex>` is written when the message is built;
 * a message id is found again from the sender's first message of that turn (one number per
 * member turn), not from a map entry per message. Messages are built (frozen) when an input,
 * `teamMessages` or a reader asks for them; the last few built are kept, since consecutive
 * inputs show the same room tails. About 50 bytes a message instead of about 220 (an object, its
 * id string and a `Map` entry).
 */
export class TeamMessageLog {
  readonly #plan: TeamPlan;
  readonly #texts: string[];
  readonly #mentions: (readonly string[])[];
  readonly #positions: string[];
  /** Per message: `plan.members` index of its sender. */
  readonly #senders: number[];
  /** Per message: `plan.rooms` index of its room. */
  readonly #rooms: number[];
  /** Per member, by turn: the index of the first message of that turn, -1 for a turn without one. */
  readonly #turnStarts: number[][];
  /** Per declared room, in declaration order: indexes of its messages. */
  readonly roomMessages: number[][];
  /**
   * One frozen array per distinct list of at most two mentions, shared by every message that
   * has it: where the record is not in memory (SQLite, fs) nothing else keeps a post's own
   * mentions array, which is about 100 bytes (an array, its elements and core's mark). At most
   * (members + 1)² entries; longer lists are kept as the post's own array.
   */
  readonly #mentionLists = new Map<string, readonly string[]>();
  readonly #built: (TeamMessage | undefined)[] = new Array<TeamMessage | undefined>(BUILT_MESSAGES).fill(undefined);
  readonly #builtAt = new Int32Array(BUILT_MESSAGES).fill(-1);
  /**
   * The ids `id` wrote last, by index slot: a member's triggers are these very strings, so
   * `indexOf` finds a recent one by comparing references, without parsing it.
   */
  readonly #ids: string[] = new Array<string>(BUILT_MESSAGES).fill('');
  readonly #idAt = new Int32Array(BUILT_MESSAGES).fill(-1);

  constructor(plan: TeamPlan, from?: { log: TeamMessageLog; messageCount: number; roomMessageCounts: readonly number[] }) {
    this.#plan = plan;
    if (from === undefined) {
      this.#texts = [];
      this.#mentions = [];
      this.#positions = [];
      this.#senders = [];
      this.#rooms = [];
      this.#turnStarts = plan.members.map(() => []);
      this.roomMessages = plan.rooms.map(() => []);
      return;
    }
    // A copy of the first `messageCount` messages (an older state's own), for a branch.
    const { log, messageCount, roomMessageCounts } = from;
    this.#texts = log.#texts.slice(0, messageCount);
    this.#mentions = log.#mentions.slice(0, messageCount);
    this.#positions = log.#positions.slice(0, messageCount);
    this.#senders = log.#senders.slice(0, messageCount);
    this.#rooms = log.#rooms.slice(0, messageCount);
    this.#turnStarts = log.#turnStarts.map((starts) => {
      // A member's turns start in saved order: drop the ones this copy does not hold.
      let turns = starts.length;
      while (turns > 0 && (starts[turns - 1]! >= messageCount || starts[turns - 1] === -1)) turns--;
      return starts.slice(0, turns);
    });
    this.roomMessages = log.roomMessages.map((list, room) => list.slice(0, roomMessageCounts[room]));
  }

  /** How many messages the log holds (states of the chain may hold fewer). */
  get length(): number {
    return this.#texts.length;
  }

  get roomIndex(): ReadonlyMap<string, number> {
    return this.#plan.roomIndex;
  }

  /** Saves post `postIndex` of the turn at `position` (`team/<sender>/<turn>`) of member `sender`. */
  append(position: string, turn: number, postIndex: number, sender: number, room: number, post: TeamPost): void {
    const index = this.#texts.length;
    if (postIndex === 0) {
      const starts = this.#turnStarts[sender]!;
      while (starts.length < turn) starts.push(-1);
      starts[turn] = index;
    }
    this.#texts.push(post.text);
    this.#mentions.push(this.#sharedMentions(post.mentions));
    this.#positions.push(position);
    this.#senders.push(sender);
    this.#rooms.push(room);
    this.roomMessages[room]!.push(index);
  }

  /** A frozen list equal to `mentions`: one shared with earlier messages when it is short. */
  #sharedMentions(mentions: readonly string[]): readonly string[] {
    if (mentions.length > 2) return mentions;
    // Member ids are identifiers, which never hold U+0000.
    const key = mentions.length === 0 ? '' : mentions.length === 1 ? mentions[0]! : `${mentions[0]!}\u0000${mentions[1]!}`;
    const shared = this.#mentionLists.get(key);
    if (shared !== undefined && shared.length === mentions.length) return shared;
    this.#mentionLists.set(key, mentions);
    return mentions;
  }

  /** The id of message `index`: `<position>/<postIndex>`. */
  id(index: number): string {
    const slot = index & (BUILT_MESSAGES - 1);
    if (this.#idAt[slot] === index) return this.#ids[slot]!;
    const position = this.#positions[index]!;
    // The messages of one turn are saved together, and a position completes once per chain.
    let first = index;
    while (first > 0 && this.#positions[first - 1] === position) first--;
    const id = flatJoin(position, index - first);
    this.#ids[slot] = id;
    this.#idAt[slot] = index;
    return id;
  }

  /** The saved message at `index` (0 … length - 1), frozen. */
  message(index: number): TeamMessage {
    const slot = index & (BUILT_MESSAGES - 1);
    if (this.#builtAt[slot] === index) return this.#built[slot]!;
    // Stamped as saved (`isSavedMessage`): its parts are the verified, deep-frozen post's, the
    // plan's ids and a position the reducer matched, so it is JSON two levels high by construction.
    const message: TeamMessage = Object.freeze(
      markSavedMessage({
        id: this.id(index),
        roomId: this.#plan.rooms[this.#rooms[index]!]!.id,
        text: this.#texts[index]!,
        mentions: this.#mentions[index]! as string[],
        sender: this.#plan.members[this.#senders[index]!]!.id,
        position: this.#positions[index]!,
      }),
    );
    this.#built[slot] = message;
    this.#builtAt[slot] = index;
    return message;
  }

  /** Messages `from` … `to - 1`, in saved order. */
  slice(from: number, to: number): TeamMessage[] {
    const messages: TeamMessage[] = [];
    for (let index = from; index < to; index++) messages.push(this.message(index));
    return messages;
  }

  /** The index of the message with this id, or undefined when the log holds none. */
  indexOf(id: string): number | undefined {
    for (let slot = 0; slot < BUILT_MESSAGES; slot++) if (this.#ids[slot] === id && this.#idAt[slot] !== -1) return this.#idAt[slot]!;
    if (!id.startsWith('team/')) return undefined;
    const postAt = id.lastIndexOf('/');
    const turnAt = id.lastIndexOf('/', postAt - 1);
    if (turnAt < 5) return undefined;
    const sender = this.#plan.memberIndex.get(id.slice(5, turnAt));
    if (sender === undefined) return undefined;
    const start = this.#turnStarts[sender]![Number(id.slice(turnAt + 1, postAt))];
    if (start === undefined || start === -1) return undefined;
    const index = start + Number(id.slice(postAt + 1));
    // Whatever the parts parsed as, only an index whose message has exactly this id is it.
    if (!Number.isSafeInteger(index) || index < start || index >= this.#texts.length) return undefined;
    return this.id(index) === id ? index : undefined;
  }
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
  return Object.freeze({
    members: Object.freeze(members),
    messageCount: 0,
    roomMessageCounts: Object.freeze(plan.rooms.map(() => 0)),
    log: new TeamMessageLog(plan),
  });
}

/** True when nothing was appended to the shared log after `state`, so it may append in place. */
function ownsLogTail(state: TeamState): boolean {
  const { log } = state;
  if (log.length !== state.messageCount) return false;
  return log.roomMessages.every((list, room) => list.length === state.roomMessageCounts[room]);
}

/**
 * The log that a successor of `state` appends to: the shared one when `state` is the newest
 * state of its chain, otherwise (someone is folding from an older state) a copy of this
 * state's own prefix, so the newer states keep theirs.
 */
export function appendableLog(plan: TeamPlan, state: TeamState): TeamMessageLog {
  if (ownsLogTail(state)) return state.log;
  return new TeamMessageLog(plan, { log: state.log, messageCount: state.messageCount, roomMessageCounts: state.roomMessageCounts });
}

/** The saved messages of a team state in saved order: all of them, or one room's. */
export function teamMessages(state: TeamState, roomId?: string): readonly TeamMessage[] {
  const { log } = state;
  if (roomId === undefined) return log.slice(0, state.messageCount);
  const room = log.roomIndex.get(roomId);
  if (room === undefined) {
    throw new GraphValidationError([graphIssue(GraphErrorCodes.INVALID_TEAM, '', `Room "${roomId}" is not declared by this team.`)]);
  }
  const indexes = log.roomMessages[room]!;
  const count = state.roomMessageCounts[room]!;
  const messages: TeamMessage[] = [];
  for (let i = 0; i < count; i++) messages.push(log.message(indexes[i]!));
  return messages;
}

/** The members of a team state in declaration order. */
export function teamMemberStates(state: TeamState): readonly TeamMemberState[] {
  return state.members;
}
