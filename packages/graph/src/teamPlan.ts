import { GraphErrorCodes, GraphValidationError } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import type { GraphDefinition } from './graphDefinition.js';
import { schemaIssues } from './schemaIssues.js';
import type { IssueMap, IssueRule } from './schemaIssues.js';
import { TeamDefinitionSchema, teamCrossFieldRules } from './teamSchemas.js';
import type { TeamDefinition } from './teamSchemas.js';
import { teamPosition } from './teamState.js';

/** One member as the compiled team sees it. */
export interface TeamPlanMember {
  readonly id: string;
  readonly role: string;
  readonly brief: string;
  readonly initialTurn: boolean;
  /** `teamPosition(id, turn)` without the turn: `team/<id>/`. */
  readonly positionPrefix: string;
  /** Indexes into `TeamPlan.rooms` of the rooms this member belongs to, in declaration order. */
  readonly rooms: readonly number[];
}

export interface TeamPlanRoom {
  readonly id: string;
  readonly members: readonly string[];
  readonly memberSet: ReadonlySet<string>;
}

/** A validated team definition in the shape the reducer and decider read. */
export interface TeamPlan {
  readonly task: string;
  readonly globalConcurrency: number;
  readonly maxTurnsPerMember: number;
  /** False when the definition declares no `communication`: no member may post. */
  readonly communicates: boolean;
  readonly tailMessages: number;
  readonly members: readonly TeamPlanMember[];
  readonly memberIndex: ReadonlyMap<string, number>;
  readonly rooms: readonly TeamPlanRoom[];
  readonly roomIndex: ReadonlyMap<string, number>;
}

const { INVALID_TEAM } = GraphErrorCodes;

const teamRule = (message: string): IssueRule => ({ code: INVALID_TEAM, message });
const limitRule = (key: string): IssueRule => teamRule(`"${key}" must be a positive safe integer.`);

/** The sentence for each team rule of `TeamDefinitionSchema`, by the path it is reported at. */
const TEAM_ISSUES: IssueMap = {
  code: INVALID_TEAM,
  rules: new Map<string, IssueRule>([
    ['data', teamRule('Team data must be an object { task, globalConcurrency, maxTurnsPerMember, communication? }.')],
    ['data/task', teamRule('"task" must be a string.')],
    ['data/globalConcurrency', limitRule('globalConcurrency')],
    ['data/maxTurnsPerMember', limitRule('maxTurnsPerMember')],
    ['data/communication', teamRule('"communication" must be an object { rooms, tailMessages } when present.')],
    ['data/communication/rooms', teamRule('"rooms" must be an array.')],
    ['data/communication/rooms/*', teamRule('A room must be an object { id, members }.')],
    ['data/communication/rooms/*/id', teamRule('A room id must be an identifier.')],
    ['data/communication/rooms/*/members', teamRule('Room members must be an array of member ids.')],
    ['data/communication/rooms/*/members/*', teamRule('A room member must be a declared member id.')],
    ['data/communication/tailMessages', limitRule('tailMessages')],
    ['nodes/*/data', teamRule('Member data must be an object { role, brief, initialTurn? }.')],
    ['nodes/*/data/role', teamRule('"role" must be a string.')],
    ['nodes/*/data/brief', teamRule('"brief" must be a string.')],
    ['nodes/*/data/initialTurn', teamRule('"initialTurn" must be a boolean when present.')],
    ['edges', teamRule('A team has no edges: messages request turns, edges do not connect members.')],
  ]),
};

/**
 * Every team-specific problem of a definition that is already a valid `GraphDefinition`:
 * `TeamDefinitionSchema`'s verdict, each issue named `INVALID_TEAM` at the field it is about.
 */
export function validateTeamDefinition(definition: GraphDefinition): GraphValidationIssue[] {
  return schemaIssues(TeamDefinitionSchema, definition, TEAM_ISSUES, [teamCrossFieldRules]);
}

function assertTeamDefinition(definition: GraphDefinition): asserts definition is TeamDefinition {
  const issues = validateTeamDefinition(definition);
  if (issues.length > 0) throw new GraphValidationError(issues);
}

/** Validates a team definition (throwing `GraphValidationError` with every issue) and plans it. */
export function planTeam(definition: GraphDefinition): TeamPlan {
  assertTeamDefinition(definition);
  const { data, nodes } = definition;
  const rooms: TeamPlanRoom[] = (data.communication?.rooms ?? []).map((room) => ({
    id: room.id,
    members: room.members,
    memberSet: new Set(room.members),
  }));
  const members: TeamPlanMember[] = nodes.map((node) => ({
    id: node.id,
    role: node.data.role,
    brief: node.data.brief,
    initialTurn: node.data.initialTurn !== false,
    positionPrefix: teamPosition(node.id, 0).slice(0, -1),
    rooms: rooms.flatMap((room, index) => (room.memberSet.has(node.id) ? [index] : [])),
  }));
  return {
    task: data.task,
    globalConcurrency: data.globalConcurrency,
    maxTurnsPerMember: data.maxTurnsPerMember,
    communicates: data.communication !== undefined,
    tailMessages: data.communication?.tailMessages ?? 0,
    members,
    memberIndex: new Map(members.map((member, index) => [member.id, index])),
    rooms,
    roomIndex: new Map(rooms.map((room, index) => [room.id, index])),
  };
}
