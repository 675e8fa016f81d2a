import { isIdentifier } from '@roundtable/core';
import { z } from 'zod';
import { GraphErrorCodes } from './errors.js';
import { GraphEdgeSchema, IdentifierSchema, graphDefinitionSchema } from './graphDefinition.js';
import { JsonValueSchema, isPositiveSafeInteger, isRecord } from './json.js';
import { stableIssue } from './schemaIssues.js';
import type { CrossFieldRule } from './schemaIssues.js';

/** Positive safe integer: 0, -1, 1.5 and 2^53 are refused. */
const LimitSchema = z.number().int().positive();

export const TeamRoomSchema = z.strictObject({
  /** Any identifier; never used to build a path. */
  id: IdentifierSchema,
  /** Distinct declared member ids. */
  members: z.array(z.string()),
});

export const TeamCommunicationSchema = z.strictObject({
  rooms: z.array(TeamRoomSchema),
  /** How many recent messages of each of its rooms a member's input holds. */
  tailMessages: LimitSchema,
});

export const TeamGraphDataSchema = z.strictObject({
  task: z.string(),
  globalConcurrency: LimitSchema,
  maxTurnsPerMember: LimitSchema,
  communication: TeamCommunicationSchema.optional(),
});

export const TeamNodeDataSchema = z.strictObject({
  role: z.string(),
  brief: z.string(),
  /** Absent means true: the member is queued for a turn when the run starts. */
  initialTurn: z.boolean().optional(),
});

/**
 * The team rules that span fields: room ids are unique, a room's members are distinct declared
 * member ids, and the member count times `maxTurnsPerMember` is a safe integer. It runs even
 * when fields are malformed (so one error lists every problem), and so reads `definition` as
 * an unknown value.
 */
export const teamCrossFieldRules: CrossFieldRule = (definition, context) => {
  if (!isRecord(definition)) return;
  const nodes: readonly unknown[] = Array.isArray(definition['nodes']) ? definition['nodes'] : [];
  const declared = new Set<string>();
  for (const node of nodes) if (isRecord(node) && typeof node['id'] === 'string') declared.add(node['id']);
  const data = definition['data'];
  if (!isRecord(data)) return;
  const maxTurns = data['maxTurnsPerMember'];
  if (isPositiveSafeInteger(maxTurns) && !Number.isSafeInteger(nodes.length * maxTurns)) {
    context.addIssue(stableIssue(GraphErrorCodes.INVALID_TEAM, 'The member count times "maxTurnsPerMember" must be a safe integer.', ['data', 'maxTurnsPerMember']));
  }
  const communication = data['communication'];
  const rooms = isRecord(communication) ? communication['rooms'] : undefined;
  if (!Array.isArray(rooms)) return;
  const roomIds = new Set<string>();
  rooms.forEach((room: unknown, index) => {
    if (!isRecord(room)) return;
    const path = ['data', 'communication', 'rooms', index];
    const id = room['id'];
    if (isIdentifier(id)) {
      if (roomIds.has(id)) context.addIssue(stableIssue(GraphErrorCodes.INVALID_TEAM, `Room id "${id}" is declared twice.`, [...path, 'id']));
      roomIds.add(id);
    }
    const members = room['members'];
    if (!Array.isArray(members)) return;
    const seen = new Set<string>();
    members.forEach((member: unknown, memberIndex) => {
      if (typeof member !== 'string') return;
      const memberPath = [...path, 'members', memberIndex];
      if (!declared.has(member)) context.addIssue(stableIssue(GraphErrorCodes.INVALID_TEAM, 'A room member must be a declared member id.', memberPath));
      else if (seen.has(member)) context.addIssue(stableIssue(GraphErrorCodes.INVALID_TEAM, `Member "${member}" is listed twice in this room.`, memberPath));
      else seen.add(member);
    });
  });
};

/**
 * The definition of a team: a graph definition (every rule of `GraphDefinitionSchema`) with
 * team data, member nodes and no edges, plus the team rules of SPEC §3.1.
 */
export const TeamDefinitionSchema = graphDefinitionSchema(TeamGraphDataSchema, TeamNodeDataSchema, z.array(GraphEdgeSchema).max(0)).superRefine(teamCrossFieldRules, {
  when: () => true,
});

/** One message a member posts with its turn result. Unknown fields are refused: they would be lost. */
export const TeamPostSchema = z.strictObject({
  roomId: z.string(),
  text: z.string(),
  mentions: z.array(z.string()),
});

/**
 * What a member returns from a turn. `validateNodeResult` also accepts (JSON) fields beyond
 * these and the team keeps them with the result; parsing with this schema strips them, as zod
 * objects do. A plain object schema keeps the inferred type assignable to `Json`.
 */
export const TeamTurnResultSchema = z.object({
  summary: z.string(),
  data: JsonValueSchema.optional(),
  posts: z.array(TeamPostSchema).optional(),
});

/** A saved message: a post plus who sent it, from which turn, and its id `<position>/<postIndex>`. */
export const TeamMessageSchema = z.strictObject({
  id: z.string(),
  roomId: z.string(),
  text: z.string(),
  mentions: z.array(z.string()),
  sender: z.string(),
  position: z.string(),
});

/** The input of one member turn. */
export const TeamDispatchInputSchema = z.strictObject({
  task: z.string(),
  role: z.string(),
  brief: z.string(),
  /** This member's own previous result, or null on its first turn. */
  result: TeamTurnResultSchema.nullable(),
  messages: z.array(TeamMessageSchema),
  /** This member's turn number, from 1. */
  turn: z.number().int().positive(),
  /** Ids of the saved messages that requested this turn, in saved order; empty for an unrequested initial turn. */
  triggers: z.array(z.string()),
});

/** The output of a completed team run. */
export const TeamGraphResultSchema = z.strictObject({
  task: z.string(),
  agents: z.array(z.strictObject({ name: z.string(), role: z.string(), result: TeamTurnResultSchema.nullable() })),
});

export type TeamRoom = z.infer<typeof TeamRoomSchema>;
export type TeamCommunication = z.infer<typeof TeamCommunicationSchema>;
export type TeamGraphData = z.infer<typeof TeamGraphDataSchema>;
export type TeamNodeData = z.infer<typeof TeamNodeDataSchema>;
export type TeamDefinition = z.infer<typeof TeamDefinitionSchema>;
export type TeamPost = z.infer<typeof TeamPostSchema>;
export type TeamTurnResult = z.infer<typeof TeamTurnResultSchema>;
export type TeamMessage = z.infer<typeof TeamMessageSchema>;
export type TeamDispatchInput = z.infer<typeof TeamDispatchInputSchema>;
export type TeamGraphResult = z.infer<typeof TeamGraphResultSchema>;
