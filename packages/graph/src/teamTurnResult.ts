import { MAX_JSON_DEPTH, jsonHeight, jsonPointer } from '@roundtable/core';
import { GraphErrorCodes, graphIssue } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import { findJsonProblem, hasOwn, isRecord } from './json.js';
import type { TeamPlan } from './teamPlan.js';
import { TeamPostSchema } from './teamSchemas.js';

/** A post's exact fields, read from `TeamPostSchema` so the hot-path check below cannot drift from it. */
const POST_KEYS: readonly string[] = Object.keys(TeamPostSchema.shape);

/**
 * How deeply a result may nest. The final answer holds each result three levels down
 * (`/agents/<i>/result`), and that answer must itself be JSON (at most 256 levels).
 */
export const MAX_TEAM_RESULT_NESTING = MAX_JSON_DEPTH - 3;

function invalid(path: string, message: string): GraphValidationIssue {
  return graphIssue(GraphErrorCodes.RESULT_INVALID, path, message);
}

/** The problem of post `postIndex` of a result by `sender`, or null; its path is written only for a problem (a valid post costs no string). */
function postIssue(plan: TeamPlan, sender: string, post: unknown, postIndex: number): GraphValidationIssue | null {
  if (!isRecord(post)) return invalid(`/posts/${postIndex}`, 'A post must be an object { roomId, text, mentions }.');
  const keys = Object.keys(post);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (!POST_KEYS.includes(key)) return invalid(jsonPointer(`/posts/${postIndex}`, key), `Unknown post field "${key}".`);
  }
  const roomId = post['roomId'];
  if (typeof roomId !== 'string') return invalid(`/posts/${postIndex}/roomId`, `A post by "${sender}" must name a declared room (roomId is ${typeName(roomId)}).`);
  const roomIndex = plan.roomIndex.get(roomId);
  const room = roomIndex === undefined ? undefined : plan.rooms[roomIndex];
  if (room === undefined) return invalid(`/posts/${postIndex}/roomId`, `Member "${sender}" posted to room ${JSON.stringify(roomId)}, which this team does not declare.`);
  if (!room.memberSet.has(sender)) return invalid(`/posts/${postIndex}/roomId`, `Member "${sender}" is not in room "${room.id}".`);
  if (typeof post['text'] !== 'string') return invalid(`/posts/${postIndex}/text`, 'Post text must be a string.');
  const mentions = post['mentions'];
  if (!Array.isArray(mentions)) return invalid(`/posts/${postIndex}/mentions`, 'Post mentions must be an array of member ids.');
  for (let index = 0; index < mentions.length; index++) {
    const mention: unknown = mentions[index];
    if (typeof mention !== 'string') {
      return invalid(`/posts/${postIndex}/mentions/${index}`, `A mention by "${sender}" in room "${room.id}" must be a member id (found ${typeName(mention)}).`);
    }
    if (!room.memberSet.has(mention)) {
      return invalid(`/posts/${postIndex}/mentions/${index}`, `Member "${sender}" mentioned ${JSON.stringify(mention)}, who is not a member of room "${room.id}".`);
    }
  }
  return null;
}

/** A short name of a value's type for messages: `a number`, `null`, `an array`. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'undefined' ? 'undefined' : `${type === 'object' ? 'an' : 'a'} ${type}`;
}

/**
 * Checks a member's turn result against SPEC §3.1: null when it is valid, otherwise the first
 * problem (code RESULT_INVALID). One bad post rejects the whole result.
 */
export function validateTeamTurnResult(plan: TeamPlan, memberId: string, result: unknown): GraphValidationIssue | null {
  if (typeof memberId !== 'string' || !plan.memberIndex.has(memberId)) {
    return invalid('', `${JSON.stringify(String(memberId))} is not a member of this team.`);
  }
  if (!isRecord(result)) return invalid('', 'A turn result must be an object { summary, data?, posts? }.');
  if (typeof result['summary'] !== 'string') return invalid('/summary', 'A turn result needs a string "summary".');
  if (hasOwn(result, 'data')) {
    const problem = findJsonProblem(result['data']);
    if (problem !== null) return invalid(`/data${problem.path}`, problem.message);
  }
  if (hasOwn(result, 'posts')) {
    const posts = result['posts'];
    if (!Array.isArray(posts)) return invalid('/posts', '"posts" must be an array when present.');
    if (!plan.communicates) return invalid('/posts', 'This team declares no communication, so a result cannot have posts.');
    for (let index = 0; index < posts.length; index++) {
      const issue = postIssue(plan, memberId, posts[index], index);
      if (issue !== null) return issue;
    }
  }
  const height = jsonHeight(result);
  if (height < 0) {
    const problem = findJsonProblem(result);
    return invalid(problem?.path ?? '', problem?.message ?? 'A turn result must be a JSON value.');
  }
  if (height > MAX_TEAM_RESULT_NESTING) {
    return invalid('', `A turn result may nest at most ${MAX_TEAM_RESULT_NESTING} levels, so that the team's final answer stays JSON.`);
  }
  return null;
}
