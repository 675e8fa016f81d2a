import { isIdentifier, jsonPointer } from '@roundtable/core';
import { GraphErrorCodes, GraphValidationError, graphIssue } from './errors.js';
import type { GraphValidationIssue } from './errors.js';
import type { GraphDefinition } from './graphDefinition.js';
import { hasOwn, isPositiveSafeInteger, isRecord } from './json.js';

/** One member as the compiled team sees it. */
export interface TeamPlanMember {
  readonly id: string;
  readonly role: string;
  readonly brief: string;
  readonly initialTurn: boolean;
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

const DATA_KEYS = ['task', 'globalConcurrency', 'maxTurnsPerMember', 'communication'];
const COMMUNICATION_KEYS = ['rooms', 'tailMessages'];
const ROOM_KEYS = ['id', 'members'];
const NODE_DATA_KEYS = ['role', 'brief', 'initialTurn'];

function teamIssue(path: string, message: string): GraphValidationIssue {
  return graphIssue(GraphErrorCodes.INVALID_TEAM, path, message);
}

function unknownKeys(object: Record<string, unknown>, allowed: readonly string[], path: string): GraphValidationIssue[] {
  return Object.keys(object)
    .filter((key) => !allowed.includes(key))
    .map((key) => teamIssue(jsonPointer(path, key), `Unknown field "${key}".`));
}

function limitIssue(owner: Record<string, unknown>, key: string, path: string): GraphValidationIssue[] {
  return isPositiveSafeInteger(owner[key]) ? [] : [teamIssue(`${path}/${key}`, `"${key}" must be a positive safe integer.`)];
}

function roomIssues(rooms: unknown, declared: ReadonlySet<string>): GraphValidationIssue[] {
  const path = '/data/communication/rooms';
  if (!Array.isArray(rooms)) return [teamIssue(path, '"rooms" must be an array.')];
  const issues: GraphValidationIssue[] = [];
  const roomIds = new Set<string>();
  rooms.forEach((room: unknown, index) => {
    const roomPath = `${path}/${index}`;
    if (!isRecord(room)) {
      issues.push(teamIssue(roomPath, 'A room must be an object { id, members }.'));
      return;
    }
    const id = room['id'];
    if (!isIdentifier(id)) issues.push(teamIssue(`${roomPath}/id`, 'A room id must be an identifier.'));
    else if (roomIds.has(id)) issues.push(teamIssue(`${roomPath}/id`, `Room id "${id}" is declared twice.`));
    else roomIds.add(id);
    const members = room['members'];
    if (!Array.isArray(members)) issues.push(teamIssue(`${roomPath}/members`, 'Room members must be an array of member ids.'));
    else {
      const seen = new Set<string>();
      members.forEach((member: unknown, memberIndex) => {
        const memberPath = `${roomPath}/members/${memberIndex}`;
        if (typeof member !== 'string' || !declared.has(member)) issues.push(teamIssue(memberPath, 'A room member must be a declared member id.'));
        else if (seen.has(member)) issues.push(teamIssue(memberPath, `Member "${member}" is listed twice in this room.`));
        else seen.add(member);
      });
    }
    issues.push(...unknownKeys(room, ROOM_KEYS, roomPath));
  });
  return issues;
}

function communicationIssues(data: Record<string, unknown>, declared: ReadonlySet<string>): GraphValidationIssue[] {
  if (!hasOwn(data, 'communication')) return [];
  const path = '/data/communication';
  const communication = data['communication'];
  if (!isRecord(communication)) return [teamIssue(path, '"communication" must be an object { rooms, tailMessages } when present.')];
  return [
    ...roomIssues(communication['rooms'], declared),
    ...limitIssue(communication, 'tailMessages', path),
    ...unknownKeys(communication, COMMUNICATION_KEYS, path),
  ];
}

function dataIssues(data: unknown, memberCount: number, declared: ReadonlySet<string>): GraphValidationIssue[] {
  if (!isRecord(data)) return [teamIssue('/data', 'Team data must be an object { task, globalConcurrency, maxTurnsPerMember, communication? }.')];
  const issues: GraphValidationIssue[] = [];
  if (typeof data['task'] !== 'string') issues.push(teamIssue('/data/task', '"task" must be a string.'));
  issues.push(...limitIssue(data, 'globalConcurrency', '/data'));
  const maxTurns = data['maxTurnsPerMember'];
  if (!isPositiveSafeInteger(maxTurns)) issues.push(...limitIssue(data, 'maxTurnsPerMember', '/data'));
  else if (!Number.isSafeInteger(memberCount * maxTurns)) {
    issues.push(teamIssue('/data/maxTurnsPerMember', 'The member count times "maxTurnsPerMember" must be a safe integer.'));
  }
  issues.push(...communicationIssues(data, declared), ...unknownKeys(data, DATA_KEYS, '/data'));
  return issues;
}

function nodeDataIssues(data: unknown, path: string): GraphValidationIssue[] {
  if (!isRecord(data)) return [teamIssue(path, 'Member data must be an object { role, brief, initialTurn? }.')];
  const issues: GraphValidationIssue[] = [];
  if (typeof data['role'] !== 'string') issues.push(teamIssue(`${path}/role`, '"role" must be a string.'));
  if (typeof data['brief'] !== 'string') issues.push(teamIssue(`${path}/brief`, '"brief" must be a string.'));
  if (hasOwn(data, 'initialTurn') && typeof data['initialTurn'] !== 'boolean') {
    issues.push(teamIssue(`${path}/initialTurn`, '"initialTurn" must be a boolean when present.'));
  }
  issues.push(...unknownKeys(data, NODE_DATA_KEYS, path));
  return issues;
}

/** Every team-specific problem of a definition that is already a valid `GraphDefinition`. */
export function validateTeamDefinition(definition: GraphDefinition): GraphValidationIssue[] {
  const nodes: readonly unknown[] = Array.isArray(definition.nodes) ? definition.nodes : [];
  const declared = new Set<string>();
  for (const node of nodes) if (isRecord(node) && typeof node['id'] === 'string') declared.add(node['id']);
  const issues = dataIssues(definition.data, nodes.length, declared);
  nodes.forEach((node, index) => {
    issues.push(...nodeDataIssues(isRecord(node) ? node['data'] : undefined, `/nodes/${index}/data`));
  });
  if (!Array.isArray(definition.edges) || definition.edges.length > 0) {
    issues.push(teamIssue('/edges', 'A team has no edges: messages request turns, edges do not connect members.'));
  }
  return issues;
}

interface ValidTeamData {
  task: string;
  globalConcurrency: number;
  maxTurnsPerMember: number;
  communication?: { rooms: { id: string; members: string[] }[]; tailMessages: number };
}

interface ValidTeamNode {
  id: string;
  data: { role: string; brief: string; initialTurn?: boolean };
}

/** Validates a team definition (throwing `GraphValidationError` with every issue) and plans it. */
export function planTeam(definition: GraphDefinition): TeamPlan {
  const issues = validateTeamDefinition(definition);
  if (issues.length > 0) throw new GraphValidationError(issues);
  const data = definition.data as unknown as ValidTeamData;
  const nodes = definition.nodes as unknown as ValidTeamNode[];
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
