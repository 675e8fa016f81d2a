import type { Json } from '@roundtable/core';
import { z } from 'zod';
import type { MemberView } from './memberView.js';

/**
 * The structured output one member's model is asked for. Built from the compiled team, so a
 * model cannot even express a post the team would refuse: `roomId` is one of the member's own
 * rooms and `mentions` are members of that same room (a union over rooms); without
 * `communication`, or for a member in no room, there is no `posts` field at all. Unknown fields
 * are refused (`additionalProperties: false`).
 */
export function memberOutputSchema(view: MemberView) {
  const base = {
    summary: z.string().describe('What you did this turn, in a sentence or a short paragraph. It is your answer when the run ends.'),
    // Any JSON: the answer is parsed from JSON text. `{}` in JSON Schema, which every provider
    // accepts (a recursive JSON type is refused by some structured-output modes).
    data: z.unknown().optional().describe('Optional structured data to keep with your result (any JSON value).'),
  };
  const posts = view.communicates ? roomPostSchema(view) : null;
  if (posts === null) return z.strictObject(base);
  return z.strictObject({
    ...base,
    posts: z.array(posts).optional().describe('Messages sent to your rooms when your turn ends. Mention members to request their next turn.'),
  });
}

function roomPostSchema(view: MemberView) {
  const variants = view.rooms.map((room) =>
    z.strictObject({
      roomId: z.literal(room.id),
      text: z.string(),
      mentions: z.array(z.enum(room.members as [string, ...string[]])).describe(`Members of room ${JSON.stringify(room.id)} whose next turn this message requests.`),
    }),
  );
  const [first, second, ...rest] = variants;
  if (first === undefined) return null;
  return second === undefined ? first : z.union([first, second, ...rest]);
}

export type MemberOutput = {
  summary: string;
  data?: Json;
  posts?: { roomId: string; text: string; mentions: string[] }[];
};
