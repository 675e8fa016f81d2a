import { canonicalJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import type { TeamMessage, TeamTurnResult } from '@roundtable/graph';
import { formatRoomLine } from '@roundtable/rooms';
import type { MemberView } from './memberView.js';

/** What the prompt of one attempt is built from: the dispatch input and the attempt's context. */
export interface MemberPromptInput {
  /** This member's own previous successful result, or null on its first turn. */
  readonly result: TeamTurnResult | null;
  readonly messages: readonly TeamMessage[];
  /** Ids of the messages that requested this turn. */
  readonly triggers: readonly string[];
  /** This member's turn number, from 1. */
  readonly turn: number;
  /** Why the previous attempt of this turn was refused, on a retried attempt. */
  readonly previousFailure: { readonly code: string; readonly message: string } | null;
}

export interface MemberPrompt {
  readonly system: string;
  readonly user: string;
}

/** Marks a message line that requested this turn; other lines start with two spaces. */
export const TRIGGER_MARK = '* ';

const RULES_WITH_ROOMS = [
  'You act in turns. Each turn ends with exactly one answer: a summary, optional data, and optional posts.',
  'A post goes to one of your rooms, and may mention only members of that room.',
  "Mentioning a member queues that member's next turn. A mention never interrupts a turn in progress.",
  'Your posts are sent when your turn ends, never earlier: nobody can read or answer them during your turn.',
  'To get an answer, end your turn with a post that mentions who should answer; their reply will mention you and queue your next turn.',
  'When nothing more is needed from anyone, end your turn without mentions.',
];

const RULES_WITHOUT_ROOMS = [
  'You act in turns. Each turn ends with exactly one answer: a summary and optional data.',
  'This team has no rooms: you cannot post messages or mention anyone.',
];

/**
 * The prompt of one attempt (SPEC 12): a system part with the member's role and brief, the
 * task, its rooms and their members, the rules, then the user's instructions; a user part with
 * the member's previous result (or "first turn") and its input messages in the room-file line
 * format, grouped by room in saved order, the messages that requested this turn marked.
 */
export function memberPrompt(view: MemberView, input: MemberPromptInput, options: { instructions?: string; answerSchema?: string } = {}): MemberPrompt {
  const { instructions, answerSchema } = options;
  const system: string[] = [
    `You are ${JSON.stringify(view.memberId)}, a member of a team.`,
    `Your role: ${view.role}`,
    `Your brief: ${view.brief}`,
    '',
    `The team's task: ${view.task}`,
    '',
  ];
  if (!view.communicates) system.push('Rooms: this team has none.');
  else if (view.rooms.length === 0) system.push('Rooms: you belong to none, so you cannot post.');
  else {
    system.push('Your rooms and their members:');
    for (const room of view.rooms) {
      const members = room.members.map((member) => (member === view.memberId ? `${member} (you)` : member));
      system.push(`- room ${JSON.stringify(room.id)}: ${members.join(', ')}`);
    }
  }
  system.push('', 'Rules:', ...(view.communicates && view.rooms.length > 0 ? RULES_WITH_ROOMS : RULES_WITHOUT_ROOMS).map((rule) => `- ${rule}`));
  // Providers without structured outputs (JSON mode only) never see the schema unless it is here.
  if (answerSchema !== undefined) system.push(`- Answer with one JSON object and nothing else, matching this JSON Schema: ${answerSchema}`);
  if (instructions !== undefined && instructions.trim() !== '') system.push('', instructions);

  const user: string[] = [];
  user.push(`This is your turn ${input.turn} of at most ${view.maxTurns}.`);
  user.push(input.result === null ? 'Your previous result: none, this is your first turn.' : `Your previous result: ${previousResult(input.result)}`);
  if (view.communicates && view.rooms.length > 0) user.push('', ...messageLines(view, input));
  if (input.previousFailure !== null) {
    user.push(
      '',
      `Your previous answer for this turn was refused (${input.previousFailure.code}): ${input.previousFailure.message}`,
      'Answer again, keeping to the schema and the rules.',
    );
  }
  return { system: system.join('\n'), user: user.join('\n') };
}

/** The member's own summary, the posts it sent and the data it chose to keep (usage figures left out). */
function previousResult(result: TeamTurnResult): string {
  const kept: { summary: string; posts?: Json; data?: Json } = { summary: result.summary };
  if (result.posts !== undefined) kept.posts = result.posts;
  const output = modelData(result.data);
  if (output !== undefined) kept.data = output;
  return canonicalJson(kept);
}

function modelData(data: Json | undefined): Json | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  return data['output'];
}

function messageLines(view: MemberView, input: MemberPromptInput): string[] {
  const triggers = new Set(input.triggers);
  const lines = [
    'Messages in your rooms, oldest first, one per line as "sender [message id] @mentions: text"' +
      (triggers.size > 0 ? `; lines starting with "${TRIGGER_MARK.trim()}" requested this turn:` : ':'),
  ];
  for (const room of view.rooms) {
    const inRoom = input.messages.filter((message) => message.roomId === room.id);
    lines.push(`Room ${JSON.stringify(room.id)}:${inRoom.length === 0 ? ' (no messages)' : ''}`);
    for (const message of inRoom) lines.push(`${triggers.has(message.id) ? TRIGGER_MARK : '  '}${formatRoomLine(message).slice(0, -1)}`);
  }
  return lines;
}
