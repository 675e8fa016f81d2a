import { basename, join, resolve } from 'node:path';
import { GraphExecutionError, TEAM_GRAPH_KIND, TEAM_GRAPH_VERSION, compileGraph, foldStream, isGraphValidationError, readRunDefinition, teamGraphType, teamMessages } from '@roundtable/graph';
import type { RunRecordFolder, TeamDefinition, TeamMessage, TeamState } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';
import { formatRoomLine } from './formatRoomLine.js';
import { roomFileName, roomIndexFileName } from './roomFileName.js';
import { RoomsError } from './roomsError.js';
import { writeFileAtomically } from './writeFileAtomically.js';
import type { WrittenFile } from './writeFileAtomically.js';

export interface ProjectTeamRoomsOptions {
  readonly storage: RunStorage;
  readonly runId: string;
  /** The operator's output directory (created 0700 if missing). Keep it outside member workspaces. */
  readonly directory: string;
}

export interface ProjectedRoomFile {
  readonly roomId: string;
  /** Absolute path of the room's file. Use it; never build a file name from a room id. */
  readonly path: string;
}

export interface ProjectedRooms {
  /** The last revision read, host events included. */
  readonly revision: number;
  /** One file per declared room, in declaration order; empty for a team without communication. */
  readonly files: readonly ProjectedRoomFile[];
}

/** One declared room and where its file goes. */
export interface RoomTarget extends ProjectedRoomFile {
  /** The room's place in declaration order (its index in `TeamState.roomMessageCounts`). */
  readonly index: number;
}

/** Checks the options every projector function takes; returns the absolute directory. */
export function checkRoomsOptions(options: ProjectTeamRoomsOptions): string {
  if (typeof options !== 'object' || options === null) throw new RoomsError('INVALID_ROOMS_OPTIONS', 'The room projector needs an options object { storage, runId, directory }.');
  const { storage, directory } = options;
  if (typeof storage !== 'object' || storage === null || typeof storage.read !== 'function' || typeof storage.identity !== 'object') {
    throw new RoomsError('INVALID_ROOMS_OPTIONS', 'storage must be a RunStorage.');
  }
  if (typeof directory !== 'string' || directory.length === 0 || directory.includes('\0')) {
    throw new RoomsError('INVALID_ROOMS_OPTIONS', 'directory must be a non-empty path without NUL characters.');
  }
  return resolve(directory);
}

/**
 * Folds the whole record with the team graph it was started with: the first event decides the
 * graph (a run of another kind, or no run, is STORED_GRAPH_MISMATCH), the fold checks the rest.
 */
export async function foldTeamRun(storage: RunStorage, runId: string): Promise<RunRecordFolder<TeamState>> {
  const stored = await readRunDefinition(storage, runId);
  if (stored === null) {
    throw new GraphExecutionError('STORED_GRAPH_MISMATCH', `Run ${runId} has no events, so it holds no team graph.`, { details: { runId } });
  }
  if (stored.kind !== TEAM_GRAPH_KIND || stored.typeVersion !== TEAM_GRAPH_VERSION) {
    throw new GraphExecutionError(
      'STORED_GRAPH_MISMATCH',
      `Run ${runId} holds a ${stored.kind} graph of type version ${stored.typeVersion}; room files need a team graph of type version ${TEAM_GRAPH_VERSION} (a team conversation; a callable team job has no rooms: \`roundtable show\` shows its run).`,
      { details: { kind: stored.kind, typeVersion: stored.typeVersion } },
    );
  }
  return foldStream(storage, runId, { graph: compileStoredTeam(stored.value, runId) });
}

function compileStoredTeam(value: unknown, runId: string) {
  try {
    return compileGraph(teamGraphType, value as TeamDefinition);
  } catch (error) {
    if (!isGraphValidationError(error)) throw error;
    throw new GraphExecutionError('INVALID_EVENT', `Run ${runId} stores a team definition that does not validate: ${error.message}`, { cause: error });
  }
}

/** Where each declared room's file goes, in declaration order. */
export function roomTargets(folder: RunRecordFolder<TeamState>, storage: RunStorage, runId: string, directory: string): RoomTarget[] {
  const definition = folder.definition!.value as TeamDefinition;
  const rooms = definition.data.communication?.rooms ?? [];
  return rooms.map((room, index) => ({ roomId: room.id, path: join(directory, roomFileName(storage.identity, runId, room.id)), index }));
}

/** Rewrites a room's whole file from the state, atomically. */
export function writeRoomFile(target: RoomTarget, state: TeamState): Promise<WrittenFile> {
  return writeFileAtomically(target.path, teamMessages(state, target.roomId).map(formatRoomLine).join(''));
}

/** Writes the run's room index `roundtable-run-<hex>.json` (SPEC 11.9), atomically. */
export async function writeRoomIndex(storage: RunStorage, runId: string, directory: string, revision: number, targets: readonly RoomTarget[]): Promise<void> {
  const index = { runId, revision, rooms: targets.map((target) => ({ roomId: target.roomId, file: basename(target.path) })) };
  await writeFileAtomically(join(directory, roomIndexFileName(storage.identity, runId)), `${JSON.stringify(index, null, 2)}\n`);
}

/**
 * The messages of `state` after the first `count`, in saved order: the ones a follower has
 * not written yet. Reads the state's shared message log directly (O(new messages)), where
 * `teamMessages` would copy every message of the run on each event.
 */
export function messagesAfter(state: TeamState, count: number): readonly TeamMessage[] {
  return state.log.slice(count, state.messageCount);
}
