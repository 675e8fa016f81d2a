import { mkdir } from 'node:fs/promises';
import { roomsIo } from './roomsError.js';
import { checkRoomsOptions, foldTeamRun, roomTargets, writeRoomFile, writeRoomIndex } from './teamRun.js';
import type { ProjectTeamRoomsOptions, ProjectedRooms } from './teamRun.js';

/**
 * Rebuilds the room files of a stored team run from its record, and the run's room index
 * beside them. It replays the record with the team reducer (refusing a record that does not
 * fit together, before any file is touched), never appends, and replaces each file atomically.
 * Filesystem failures are ROOMS_IO_ERROR.
 */
export async function projectTeamRooms(options: ProjectTeamRoomsOptions): Promise<ProjectedRooms> {
  const directory = checkRoomsOptions(options);
  const { storage, runId } = options;
  const folder = await foldTeamRun(storage, runId);
  const targets = roomTargets(folder, storage, runId, directory);
  if (targets.length === 0) return { revision: folder.revision, files: [] };

  await roomsIo('create the directory', directory, () => mkdir(directory, { recursive: true, mode: 0o700 }));
  for (const target of targets) await writeRoomFile(target, folder.state);
  await writeRoomIndex(storage, runId, directory, folder.revision, targets);
  return { revision: folder.revision, files: targets.map(({ roomId, path }) => ({ roomId, path })) };
}
