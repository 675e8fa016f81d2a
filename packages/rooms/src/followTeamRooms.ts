import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { runView } from '@roundtable/graph';
import { followStream } from '@roundtable/storage';
import { formatRoomLine } from './formatRoomLine.js';
import { RoomsError, roomsIo, roomsIoError } from './roomsError.js';
import { checkRoomsOptions, foldTeamRun, messagesAfter, roomTargets, writeRoomFile, writeRoomIndex } from './teamRun.js';
import type { ProjectTeamRoomsOptions, ProjectedRooms, RoomTarget } from './teamRun.js';
import { currentFile } from './writeFileAtomically.js';
import type { WrittenFile } from './writeFileAtomically.js';

export interface FollowTeamRoomsOptions extends ProjectTeamRoomsOptions {
  /** Ends the follow; the promise then resolves with what was written. */
  readonly signal: AbortSignal;
  /** How often the record's head is polled when the adapter gives no change hint (default 250 ms). */
  readonly pollIntervalMs?: number;
}

/** Append-only, and never through a symlink swapped in at the file's name. */
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW;

/** One room file as this follower last left it. */
interface FollowedRoom {
  readonly target: RoomTarget;
  written: WrittenFile;
}

function sameFile(a: WrittenFile | null, b: WrittenFile): boolean {
  return a !== null && a.dev === b.dev && a.ino === b.ino && a.size === b.size;
}

/**
 * Appends `text` to the room file if it is still exactly the file this follower wrote (same
 * file, same size); returns false when it is not (deleted, replaced, truncated, grown by
 * someone else, a symlink put in its place), so the caller rebuilds it.
 */
async function appendIfUnchanged(room: FollowedRoom, text: string): Promise<boolean> {
  if (!sameFile(await currentFile(room.target.path), room.written)) return false;
  let handle: FileHandle;
  try {
    handle = await open(room.target.path, APPEND_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return false;
    throw roomsIoError('open', room.target.path, error);
  }
  try {
    const stats = await roomsIo('inspect', room.target.path, () => handle.stat());
    // Swapped between the check and the open: write nothing into someone else's file.
    if (!sameFile({ dev: stats.dev, ino: stats.ino, size: stats.size }, room.written)) return false;
    const bytes = Buffer.from(text, 'utf8');
    await roomsIo('append to', room.target.path, () => handle.write(bytes));
    room.written.size += bytes.length;
    return true;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Projects the run's rooms like `projectTeamRooms`, then follows the record: each newly
 * accepted message is appended as one line to its room's file (same names, same format,
 * append-only writes), so `tail -f` on a room file shows the conversation live. A room file
 * deleted or replaced meanwhile is rebuilt atomically before the next line is added. The room
 * index is rewritten whenever lines are added. Resolves with `{ revision, files }` once
 * `signal` aborts; rejects with a typed error for a record that does not fit together, a
 * storage failure, or ROOMS_IO_ERROR.
 */
export async function followTeamRooms(options: FollowTeamRoomsOptions): Promise<ProjectedRooms> {
  const directory = checkRoomsOptions(options);
  const { runId, signal } = options;
  // A fork is followed as its run: the parent's prefix, then its own events, in run revisions.
  const storage = runView(options.storage);
  if (!(signal instanceof AbortSignal)) throw new RoomsError('INVALID_ROOMS_OPTIONS', 'signal must be an AbortSignal: it is what ends the follow.');
  const folder = await foldTeamRun(storage, runId);
  const targets = roomTargets(folder, storage, runId, directory);
  const files = targets.map(({ roomId, path }) => ({ roomId, path }));
  const rooms: FollowedRoom[] = [];
  if (targets.length > 0) {
    await roomsIo('create the directory', directory, () => mkdir(directory, { recursive: true, mode: 0o700 }));
    for (const target of targets) rooms.push({ target, written: await writeRoomFile(target, folder.state) });
    await writeRoomIndex(storage, runId, directory, folder.revision, targets);
  }
  let messageCount = folder.state.messageCount;
  let indexedRevision = folder.revision;

  const follow = followStream(storage, runId, { after: folder.revision, signal, ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }) });
  for await (const event of follow) {
    // No endOfRead here: a follow yields a dispatch batch event by event, and the fold still
    // refuses a short batch at the next event that is not part of it.
    folder.apply(event);
    const state = folder.state;
    if (state.messageCount === messageCount || rooms.length === 0) continue;
    const fresh = messagesAfter(state, messageCount);
    messageCount = state.messageCount;
    for (const room of rooms) {
      const lines = fresh.filter((message) => message.roomId === room.target.roomId).map(formatRoomLine).join('');
      if (lines === '') continue;
      if (await appendIfUnchanged(room, lines)) continue;
      await roomsIo('create the directory', directory, () => mkdir(directory, { recursive: true, mode: 0o700 }));
      room.written = await writeRoomFile(room.target, state);
    }
    await writeRoomIndex(storage, runId, directory, folder.revision, targets);
    indexedRevision = folder.revision;
  }
  if (rooms.length > 0 && indexedRevision !== folder.revision) await writeRoomIndex(storage, runId, directory, folder.revision, targets);
  return { revision: folder.revision, files };
}
