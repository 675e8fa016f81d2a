import { linkSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { NewEvent } from '@roundtable/storage';
import { corruptStream, duplicateEventId, prepareAppend, resolveAgainstHead } from '@roundtable/storage/adapter';
import type { PreparedAppend } from '@roundtable/storage/adapter';
import { batchFileName, encodeBatchFile } from './batchFile.js';
import { assertOpen, catchUp, stateOf } from './fsContext.js';
import type { FsContext } from './fsContext.js';
import { HEAD_MARKER } from './headMarker.js';
import { SEGMENT_TARGET_BYTES, packSegment } from './packSegment.js';
import { directoryExistsSync, ensureDirectory, errorCode, fsyncDirectory, unsafePath } from './safeFs.js';
import type { StreamState } from './streamState.js';
import { removeFileQuietly, writeTempFile } from './tempFiles.js';

/** How many lost link races one append retries before deciding the stream is damaged. */
const MAX_COMMIT_ATTEMPTS = 5;

/**
 * Commits a batch atomically: the whole file is written and fsynced under a temp name, then
 * hard-linked to its final name. `link` fails with EEXIST when another writer (any process)
 * committed that revision first, which makes it the cross-process exclusion; no lock file
 * exists that a crash could leave behind. A link that succeeds over a revision a segment
 * already holds (this instance's head was stale and the batch file there was packed away) is
 * taken back. Then the stream folder is fsynced and the temp file renamed to the head marker.
 * Returns false when the race was lost.
 */
async function commit(tempFolder: string, state: StreamState, prepared: PreparedAppend): Promise<boolean> {
  if (!directoryExistsSync(tempFolder)) throw unsafePath(tempFolder, 'the temp folder has disappeared');
  const first = prepared.expectedRevision + 1;
  const bytes = encodeBatchFile(state.streamId, first, prepared.texts);
  const tempPath = await writeTempFile(tempFolder, bytes);
  let marked = false;
  try {
    if (!state.folderExists) await ensureDirectory(state.folder);
    const path = join(state.folder, batchFileName(first));
    try {
      linkSync(tempPath, path);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      throw error;
    }
    if (state.segmentHolds(first)) {
      unlinkSync(path);
      return false;
    }
    state.addCommitted(prepared, bytes.length);
    await fsyncDirectory(state.folder);
    // The marker lags at worst (a crash before this rename, or a racing writer's older batch
    // renamed last): it records a revision at or below the head, never above it.
    try {
      renameSync(tempPath, join(state.folder, HEAD_MARKER));
      marked = true;
    } catch {
      // A head marker that cannot be replaced (damage in its place) only weakens the check.
    }
    return true;
  } finally {
    if (!marked) removeFileQuietly(tempPath);
  }
}

/** `RunStorage.append` of the fs adapter, before its error mapping. */
export async function appendToStream(context: FsContext, streamId: string, expectedRevision: number, events: readonly NewEvent[]): Promise<number> {
  assertOpen(context);
  const prepared = prepareAppend(context.config, streamId, expectedRevision, events);
  const state = stateOf(context, streamId);
  // An append accepted before close() still completes: close() waits for it.
  return state.exclusive(async () => {
    for (let attempt = 1; attempt <= MAX_COMMIT_ATTEMPTS; attempt++) {
      await catchUp(context, state);
      const outcome = await resolveAgainstHead(prepared, state.head, (from, to) => state.committedTexts(from, to));
      if (outcome !== 'write') return outcome;
      state.gatherEventIds();
      const repeated = prepared.eventIds.find((eventId) => state.hasEventId(eventId));
      if (repeated !== undefined) throw duplicateEventId(repeated, streamId);
      if (await commit(context.tempFolder, state, prepared)) {
        // Packing is queued behind this append rather than inside it; it only ever speeds up
        // reads, so a pack that fails (a full disk, damage it found) leaves the batch files
        // as they are for the next one to try.
        if (!state.packDue(context.segmentBatches, SEGMENT_TARGET_BYTES)) return prepared.nextHead;
        void state.exclusive(async () => {
          try {
            while (await packSegment(state, context.tempFolder, context.segmentBatches));
          } catch {
            // Left for the next append to try again.
          }
        });
        return prepared.nextHead;
      }
      // Another writer linked this batch's file name first: catch up and judge again.
    }
    throw corruptStream(streamId, `batch file ${batchFileName(expectedRevision + 1)} exists but could not be read as the next batch.`);
  });
}
