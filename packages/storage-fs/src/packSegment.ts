import { linkSync } from 'node:fs';
import { join } from 'node:path';
import { corruptStream } from '@roundtable/storage/adapter';
import { batchFileName, checkBatchFile } from './batchFile.js';
import { errorCode, fsyncDirectory, readFileSync } from './safeFs.js';
import { encodeSegmentFile, segmentFileName } from './segmentFile.js';
import type { Chunk, StreamState } from './streamState.js';
import { removeFileQuietly, writeTempFile } from './tempFiles.js';

/** Past this many bytes of unpacked batch files a stream is packed whatever their number. */
export const SEGMENT_TARGET_BYTES = 4 * 1024 * 1024;

/**
 * Packs a stream's oldest batch files into one segment file once more than `segmentBatches` of
 * them (or more than SEGMENT_TARGET_BYTES) wait, always leaving the newest, so that reads open
 * one file per segment instead of one per batch. A segment holds at most `segmentBatches`
 * batches and, unless one batch alone is larger, SEGMENT_TARGET_BYTES. Call inside the state's
 * `exclusive`; call again while it returns true (a stream written before segments existed is
 * packed segment by segment on its first append).
 *
 * Crash-safe in every step: each batch file is read back and checked (a damaged one is never
 * given a new checksum), the segment is written whole to a temp file, fsynced and linked in
 * under `<first revision>.segment` (`link` refuses an existing name, so of two packers of one
 * stream exactly one wins), the stream folder is fsynced, and only then are the packed batch
 * files removed. Killed before the link, nothing changed; after it, readers take the segment
 * and skip the batch files it holds, which the next pack removes. The packed batch files are
 * removed in the background (`removeInBackground`). Returns whether it packed.
 */
export async function packSegment(state: StreamState, tempFolder: string, segmentBatches: number): Promise<boolean> {
  if (!state.packDue(segmentBatches, SEGMENT_TARGET_BYTES)) return false;
  const unpacked = state.unpackedBatches();
  // The oldest batches, up to segmentBatches of them or SEGMENT_TARGET_BYTES (at least one).
  const packed: Chunk[] = [];
  let packedBytes = 0;
  for (const chunk of unpacked.slice(0, -1)) {
    if (packed.length > 0 && (packed.length >= segmentBatches || packedBytes + chunk.size > SEGMENT_TARGET_BYTES)) break;
    packed.push(chunk);
    packedBytes += chunk.size;
  }
  const files: Buffer[] = [];
  for (const chunk of packed) {
    const name = batchFileName(chunk.first);
    const file = readFileSync(state.folder, name, state.streamId);
    // Gone: another process packed it first; the next catch-up finds its segment.
    if (file === null) return false;
    const batch = checkBatchFile(file, { streamId: state.streamId, first: chunk.first, label: `batch file ${name}` });
    if (batch.first + batch.count - 1 !== chunk.last) throw corruptStream(state.streamId, `batch file ${name} holds ${batch.count} events, expected ${chunk.last - chunk.first + 1}.`);
    files.push(file);
  }
  const first = packed[0]!.first;
  const last = packed.at(-1)!.last;
  const segment = encodeSegmentFile(state.streamId, first, last, files);
  const tempPath = await writeTempFile(tempFolder, segment);
  try {
    linkSync(tempPath, join(state.folder, segmentFileName(first)));
  } catch (error) {
    removeFileQuietly(tempPath);
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await fsyncDirectory(state.folder);
  } catch (error) {
    // Linked but maybe not durable: a later probe takes the segment in, or a later pack redoes it.
    state.removeInBackground([tempPath]);
    throw error;
  }
  state.addPacked({ first, last, batches: packed.length, size: segment.length });
  state.removeInBackground([tempPath, ...[...state.takeLeftovers(), ...packed.map((chunk) => chunk.first)].map((revision) => join(state.folder, batchFileName(revision)))]);
  return true;
}
