import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  GraphExecutionError,
  RunRecordFolder,
  TEAM_GRAPH_KIND,
  TEAM_GRAPH_VERSION,
  compileGraph,
  isGraphValidationError,
  parseRunStartedEvent,
  teamGraphType,
  teamMessages,
} from '@roundtable/graph';
import type { TeamDefinition, TeamState } from '@roundtable/graph';
import type { RunStorage } from '@roundtable/storage';
import { formatRoomLine } from './formatRoomLine.js';
import { roomFileName } from './roomFileName.js';
import { writeFileAtomically } from './writeFileAtomically.js';

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

/**
 * Rebuilds the room files of a stored team run from its record. It replays the record with
 * the team reducer (refusing a record that does not fit together, before any file is
 * touched), never appends, and replaces each room file atomically.
 */
export async function projectTeamRooms(options: ProjectTeamRoomsOptions): Promise<ProjectedRooms> {
  const { storage, runId } = options;
  const folder = await foldTeamRun(storage, runId);
  const definition = folder.definition!.value as TeamDefinition;
  const rooms = definition.data.communication?.rooms ?? [];
  if (rooms.length === 0) return { revision: folder.revision, files: [] };

  const directory = resolve(options.directory);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const files: ProjectedRoomFile[] = [];
  for (const room of rooms) {
    const path = join(directory, roomFileName(storage.identity, runId, room.id));
    const text = teamMessages(folder.state, room.id).map(formatRoomLine).join('');
    await writeFileAtomically(path, text);
    files.push({ roomId: room.id, path });
  }
  return { revision: folder.revision, files };
}

/** Reads the whole record once: the first event decides the graph, the fold checks the rest. */
async function foldTeamRun(storage: RunStorage, runId: string): Promise<RunRecordFolder<TeamState>> {
  let folder: RunRecordFolder<TeamState> | null = null;
  for await (const event of storage.read(runId)) {
    if (folder === null) {
      const stored = parseRunStartedEvent(event);
      if (stored.kind !== TEAM_GRAPH_KIND || stored.typeVersion !== TEAM_GRAPH_VERSION) {
        throw new GraphExecutionError(
          'STORED_GRAPH_MISMATCH',
          `Run ${runId} holds a ${stored.kind} graph of type version ${stored.typeVersion}; room files need a team graph of type version ${TEAM_GRAPH_VERSION}.`,
          { details: { kind: stored.kind, typeVersion: stored.typeVersion } },
        );
      }
      folder = new RunRecordFolder(compileStoredTeam(stored.value, runId));
    }
    folder.apply(event);
  }
  if (folder === null) {
    throw new GraphExecutionError('STORED_GRAPH_MISMATCH', `Run ${runId} has no events, so it holds no team graph.`, { details: { runId } });
  }
  folder.endOfRead();
  return folder;
}

function compileStoredTeam(value: unknown, runId: string) {
  try {
    return compileGraph(teamGraphType, value as TeamDefinition);
  } catch (error) {
    if (!isGraphValidationError(error)) throw error;
    throw new GraphExecutionError('INVALID_EVENT', `Run ${runId} stores a team definition that does not validate: ${error.message}`, { cause: error });
  }
}
