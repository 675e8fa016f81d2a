import type { CompiledGraph, TeamDefinition } from '@roundtable/graph';
import { AiSdkMemberError } from './aiSdkMemberError.js';

/** One room as a member sees it: its id and every member in it, in declaration order. */
export interface MemberRoom {
  readonly id: string;
  readonly members: readonly string[];
}

/** What one member's prompt and schema are built from, read once from the compiled team. */
export interface MemberView {
  readonly memberId: string;
  readonly role: string;
  readonly brief: string;
  readonly task: string;
  readonly maxTurns: number;
  /** False when the team declares no `communication`: nobody may post, not even `posts: []`. */
  readonly communicates: boolean;
  /** The rooms this member belongs to, in declaration order. */
  readonly rooms: readonly MemberRoom[];
}

/**
 * Reads one member out of a compiled team graph. The definition is already validated and frozen
 * by `compileGraph`, so this only picks the member's part: INVALID_MEMBER if the graph is not a
 * team of type version 1 or does not declare the member.
 */
export function memberView(graph: CompiledGraph<unknown>, memberId: string): MemberView {
  if (graph.kind !== 'team' || graph.typeVersion !== 1 || typeof graph.validateNodeResult !== 'function') {
    throw new AiSdkMemberError('INVALID_MEMBER', `aiSdkMember needs a compiled team graph (kind "team", version 1), not kind "${graph.kind}" version ${graph.typeVersion}.`);
  }
  const definition = graph.definition.value as TeamDefinition;
  const node = definition.nodes.find((candidate) => candidate.id === memberId);
  if (node === undefined) {
    throw new AiSdkMemberError('INVALID_MEMBER', `Member "${memberId}" is not declared by team "${definition.id}".`, { details: { memberId } });
  }
  const communication = definition.data.communication;
  return {
    memberId,
    role: node.data.role,
    brief: node.data.brief,
    task: definition.data.task,
    maxTurns: definition.data.maxTurnsPerMember,
    communicates: communication !== undefined,
    rooms: (communication?.rooms ?? []).filter((room) => room.members.includes(memberId)).map((room) => ({ id: room.id, members: [...room.members] })),
  };
}
